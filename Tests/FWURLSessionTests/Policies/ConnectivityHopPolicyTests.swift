import Foundation
import FWLoop
import FWNetworkMonitor
import FWTransport
@testable import FWURLSession
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

// Policy 7 without a network: which failures wait for a route (or fail with notConnectedToInternet), which
// are left to the task, and when a waiting task retries.
@Suite struct ConnectivityHopPolicyTests {
    static let noRoute = TransportError.cannotConnect(IOError(errno: ENETUNREACH, call: "connect"))
    static let refused = TransportError.cannotConnect(IOError(errno: ECONNREFUSED, call: "connect"))
    static let lookupLater = TransportError.cannotFindHost("later", underlying: .temporaryFailure("example.org"))
    static let eth0 = NetworkPath(interface: NetworkInterface(index: 2, name: "eth0", kind: .other))

    @Test(arguments: [
        (noRoute, nil, false, "fail(-1009)"), (noRoute, nil, true, "waitForRoute(-1009)"),
        (lookupLater, false, false, "fail(-1009)"), (lookupLater, false, true, "waitForRoute(-1009)"),
        (lookupLater, true, true, "continue"), (lookupLater, nil, true, "continue"),
        (refused, false, true, "continue"), (TransportError.timedOut("slow"), false, true, "continue"),
    ] as [(TransportError, Bool?, Bool, String)])
    func failed(_ error: TransportError, _ interfaceUp: Bool?, _ waits: Bool, _ expected: String) {
        let configuration = HopFixtures.configuration(waits: waits)
        let decision = ConnectivityHopPolicy.failed(error, url: URL(string: "http://a.test/"), configuration) {
            interfaceUp
        }
        #expect(decision.summary == expected)
    }

    @Test func aConnectFailureNeverAsksTheMonitor() {
        let configuration = HopFixtures.configuration()
        var asked = false
        _ = ConnectivityHopPolicy.failed(Self.noRoute, url: nil, configuration) {
            asked = true
            return nil
        }
        _ = ConnectivityHopPolicy.failed(Self.refused, url: nil, configuration) {
            asked = true
            return nil
        }
        #expect(!asked)
    }

    @Test func aWaitingTaskRetriesOncePerReachablePath() {
        var state = TaskPolicyState()
        #expect(!ConnectivityHopPolicy.pathChanged(Self.eth0, &state))
        state.connectivity.isWaiting = true
        #expect(!ConnectivityHopPolicy.pathChanged(.unreachable, &state))
        #expect(state.connectivity.isWaiting)
        #expect(ConnectivityHopPolicy.pathChanged(Self.eth0, &state))
        #expect(!state.connectivity.isWaiting)
        state.connectivity.isWaiting = true
        #expect(!ConnectivityHopPolicy.pathChanged(Self.eth0, &state))
    }
}
