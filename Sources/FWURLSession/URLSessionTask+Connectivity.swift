import Foundation
import FWNetworkMonitor
import FWTransport

// MARK: - Waiting for connectivity: what the task does for `ConnectivityHopPolicy`
//
// When the connectivity policy decides that a task waits for a route (`Task/Policies/ConnectivityHopPolicy.swift`),
// the task tells the delegate `taskIsWaitingForConnectivity` (once in the task's life), watches the path to
// its URL's host on the process's monitor (`NetworkMonitor.shared`), and sends its request again as a new hop
// when the policy says so. Its resource timeout keeps running: when it elapses while the task waits, the task
// fails with `notConnectedToInternet`. Cancelling or finishing the task ends the watch. Without a monitor (a
// sandbox without netlink) the task fails as if it did not wait.

extension URLSessionTask {
    /// The request failed for want of a route: true when the task now waits for one instead of failing,
    /// false when it must fail.
    final func waitForConnectivity() -> Bool {
        guard session.sessionConfiguration.waitsForConnectivity, !isEnding,
              let host = currentRequest?.url?.host, let monitor = try? NetworkMonitor.shared.get() else {
            return false
        }
        let firstTime = withTransfer { transfer -> Bool in
            transfer.policies.connectivity.isWaiting = true
            defer { transfer.policies.connectivity.messageSent = true }
            return !transfer.policies.connectivity.messageSent
        }
        if firstTime {
            DelegateRouter.taskIsWaitingForConnectivity(self)
        }
        let watch = monitor.watch(.host(host)) { [weak self] path in
            self?.connectivityChanged(path)
        }
        let kept = withTransfer { transfer -> Bool in
            guard transfer.policies.connectivity.isWaiting else { return false }
            transfer.policies.connectivity.watch = watch
            return true
        }
        if !kept {
            watch.cancel()
        }
        return true
    }

    /// Whether the task waits for connectivity now.
    final var isWaitingForConnectivity: Bool {
        withTransfer { $0.policies.connectivity.isWaiting }
    }

    /// The monitor's news of the path (its loop thread): sends the request again as a new hop when the
    /// policy says so.
    private func connectivityChanged(_ path: NetworkPath) {
        let retry = withTransfer { transfer -> (watch: NetworkWatch?, request: URLRequest?)? in
            guard ConnectivityHopPolicy.pathChanged(path, &transfer.policies) else { return nil }
            defer { transfer.policies.connectivity.watch = nil }
            return (transfer.policies.connectivity.watch, transfer.hop.request)
        }
        guard let retry else { return }
        retry.watch?.cancel()
        guard let request = retry.request, !isEnding else { return }
        withTransfer { $0.hop = $0.hop.replacing(with: NextHop(request: request, reason: .routeRetry)) }
        send()
    }
}
