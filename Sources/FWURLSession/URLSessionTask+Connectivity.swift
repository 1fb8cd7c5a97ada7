import Foundation
import FWTransport

// MARK: - Waiting for connectivity
//
// A task whose request failed for want of a route — its connection could not be made because there was no
// route to the host (`TransportError.isNoRoute`: ENETUNREACH or EHOSTUNREACH on every address), or its host
// name could not be resolved for now (`isTemporaryLookupFailure`) while the network-change monitor knows no
// interface but loopback that is up with an address (with one, the lookup failed for another reason: a name
// server that does not answer, and the task fails with `cannotFindHost`) — fails at once with
// `notConnectedToInternet`, unless its session's configuration
// `waitsForConnectivity`. Then it tells the delegate `taskIsWaitingForConnectivity` (once in the task's
// life), watches the path to its URL's host on the process's monitor (`NetworkMonitor.shared`), and sends
// its request again when the path becomes reachable (`ConnectivityRetryRule`). Its resource timeout keeps
// running: when it elapses while the task waits, the task fails with `notConnectedToInternet`. Cancelling
// or finishing the task ends the watch. Without a monitor (a sandbox without netlink) the task fails as if
// it did not wait, and a failed lookup stays `cannotFindHost`.

/// Whether a transport failure means "no route": a connect without a route, or a lookup that failed for
/// now while no interface but loopback is up (`interfaceUp`, nil when no monitor can tell).
func isForWantOfRoute(_ error: TransportError, interfaceUp: Bool?) -> Bool {
    error.isNoRoute || (error.isTemporaryLookupFailure && interfaceUp == false)
}

/// When a waiting task sends its request again: when the path is reachable, and not over the very path
/// the last attempt already failed on (the kernel disagreed with the view, or the neighbour did not
/// answer) until the path has changed or been unreachable in between. A task never retries in a loop on
/// an unchanged view.
struct ConnectivityRetryRule: Equatable {
    /// The path of the last retry, forgotten when the path becomes unreachable.
    private var lastTried: NetworkPath?

    /// Whether to retry now that the path is `path`.
    mutating func shouldRetry(on path: NetworkPath) -> Bool {
        guard path.isReachable else {
            lastTried = nil
            return false
        }
        guard path != lastTried else {
            return false
        }
        lastTried = path
        return true
    }
}

/// A task's waiting for connectivity (in `TaskTransfer`, under the task's `transfer` lock).
struct ConnectivityWait {
    /// `taskIsWaitingForConnectivity` went out (it is sent once per task).
    var messageSent = false
    /// The task waits for a route; cleared when it retries, completes or is cancelled.
    var isWaiting = false
    /// The watch on the path to the host, while the task waits.
    var watch: NetworkWatch?
    var rule = ConnectivityRetryRule()
}

extension URLSessionTask {
    /// What the task completes with after the transport failed with `error` (delegate queue): nil when it
    /// waits for connectivity instead.
    final func failure(after error: TransportError) -> URLError? {
        let url = currentRequest?.url
        guard error.isNoRoute || error.isTemporaryLookupFailure else {
            return URLError(error, url: url)
        }
        let interfaceUp = error.isNoRoute ? nil : (try? NetworkMonitor.shared.get())?.hasUsableInterface()
        guard isForWantOfRoute(error, interfaceUp: interfaceUp) else {
            return URLError(error, url: url)
        }
        if waitForConnectivity() {
            return nil
        }
        return URLError(.notConnectedToInternet, url: url, description: "not connected: \(error)",
                        underlying: error.underlying ?? error)
    }

    /// The request failed for want of a route: true when the task now waits for one instead of failing,
    /// false when it must fail.
    final func waitForConnectivity() -> Bool {
        guard session.sessionConfiguration.waitsForConnectivity, !control.withLock({ $0.isEnding }),
              let host = currentRequest?.url?.host, let monitor = try? NetworkMonitor.shared.get() else {
            return false
        }
        let firstTime = transfer.withLock { transfer -> Bool in
            transfer.connectivity.isWaiting = true
            defer { transfer.connectivity.messageSent = true }
            return !transfer.connectivity.messageSent
        }
        if firstTime {
            DelegateRouter.taskIsWaitingForConnectivity(self)
        }
        let watch = monitor.watch(.host(host)) { [weak self] path in
            self?.connectivityChanged(path)
        }
        let kept = transfer.withLock { transfer -> Bool in
            guard transfer.connectivity.isWaiting else { return false }
            transfer.connectivity.watch = watch
            return true
        }
        if !kept {
            watch.cancel()
        }
        return true
    }

    /// Whether the task waits for connectivity now.
    final var isWaitingForConnectivity: Bool {
        transfer.withLock { $0.connectivity.isWaiting }
    }

    /// Stops waiting (the task completed or was cancelled).
    final func endConnectivityWait() {
        let watch = transfer.withLock { transfer -> NetworkWatch? in
            transfer.connectivity.isWaiting = false
            defer { transfer.connectivity.watch = nil }
            return transfer.connectivity.watch
        }
        watch?.cancel()
    }

    /// The monitor's news of the path (its loop thread): sends the request again when the rule says so.
    private func connectivityChanged(_ path: NetworkPath) {
        let retry = transfer.withLock { transfer -> (watch: NetworkWatch?, request: URLRequest?)? in
            guard transfer.connectivity.isWaiting, transfer.connectivity.rule.shouldRetry(on: path) else {
                return nil
            }
            transfer.connectivity.isWaiting = false
            defer { transfer.connectivity.watch = nil }
            return (transfer.connectivity.watch, transfer.currentRequest)
        }
        guard let retry else { return }
        retry.watch?.cancel()
        guard let request = retry.request, !control.withLock({ $0.isEnding }) else { return }
        send(request)
    }
}
