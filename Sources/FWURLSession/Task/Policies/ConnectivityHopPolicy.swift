import Foundation
import FWNetworkMonitor
import FWTransport

// MARK: - Policy 7: connectivity
//
// A hop whose transport failed for want of a route — its connection could not be made because there was no
// route to the host (`TransportError.isNoRoute`: ENETUNREACH or EHOSTUNREACH on every address), or its host
// name could not be resolved for now (`isTemporaryLookupFailure`) while the network-change monitor knows no
// interface but loopback that is up with an address (with one, the lookup failed for another reason: a name
// server that does not answer, and the task fails with `cannotFindHost`) — fails with
// `notConnectedToInternet`, unless the session's configuration `waitsForConnectivity`: then the task waits for
// a route (`waitForRoute`; `URLSessionTask+Connectivity.swift` watches the path) and, when the path becomes
// reachable (`ConnectivityRetryRule`, `pathChanged`), sends its request again as a new hop
// (`Hop.Reason.routeRetry`). Any other failure is left to the task (`continue`).

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

/// A task's waiting for connectivity (`TaskPolicyState.connectivity`, under the task's `transfer` lock).
struct ConnectivityWait {
    /// `taskIsWaitingForConnectivity` went out (it is sent once per task).
    var messageSent = false
    /// The task waits for a route; cleared when it retries, completes or is cancelled.
    var isWaiting = false
    /// The watch on the path to the host, while the task waits.
    var watch: NetworkWatch?
    var rule = ConnectivityRetryRule()

    /// Stops waiting (the task completed or was cancelled): the watch to cancel, if the task had one.
    mutating func end() -> NetworkWatch? {
        isWaiting = false
        defer { watch = nil }
        return watch
    }
}

/// Policy 7: waiting for a route.
enum ConnectivityHopPolicy {
    /// The hop's transport failed with `error`: for want of a route, the task fails with
    /// `notConnectedToInternet` or waits; otherwise `continue`. `interfaceUp` is asked only for a lookup failure.
    static func failed(_ error: TransportError, url: URL?, _ configuration: URLSessionConfiguration,
                       interfaceUp: () -> Bool?) -> HopDecision {
        guard error.isNoRoute || error.isTemporaryLookupFailure,
              isForWantOfRoute(error, interfaceUp: error.isNoRoute ? nil : interfaceUp()) else { return .continue }
        let notConnected = URLError(.notConnectedToInternet, url: url, description: "not connected: \(error)",
                                    underlying: error.underlying ?? error)
        return configuration.waitsForConnectivity ? .waitForRoute(otherwise: notConnected) : .fail(notConnected)
    }

    /// The path to the host is now `path`: true when the waiting task sends its request again (it stops
    /// waiting; the caller cancels the watch it took out of `state`).
    static func pathChanged(_ path: NetworkPath, _ state: inout TaskPolicyState) -> Bool {
        guard state.connectivity.isWaiting, state.connectivity.rule.shouldRetry(on: path) else { return false }
        state.connectivity.isWaiting = false
        return true
    }
}
