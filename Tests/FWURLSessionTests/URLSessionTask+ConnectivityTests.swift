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

// URLSessionTask+Connectivity: when a waiting task retries (ConnectivityRetryRule), who hears
// `taskIsWaitingForConnectivity` (the delegate router's per-message rule), and that a task of a session
// that does not wait fails instead. The waiting itself runs for real in IntegrationTests'
// NetworkNamespaceTests (no route until the test adds one).
@Suite struct URLSessionTaskConnectivityTests {
    static let eth0 = NetworkPath(interface: NetworkInterface(index: 2, name: "eth0", kind: .other))
    static let wwan0 = NetworkPath(interface: NetworkInterface(index: 3, name: "wwan0", kind: .wwan))

    /// Paths heard in order, and whether each one starts a retry.
    @Test(arguments: [
        ("reachable at once", [eth0], [true]),
        ("unreachable, then reachable", [.unreachable, eth0], [false, true]),
        ("the same path again after a failed retry", [eth0, eth0], [true, false]),
        ("another path after a failed retry", [eth0, wwan0], [true, true]),
        ("the same path once it was unreachable in between", [eth0, .unreachable, eth0], [true, false, true]),
        ("unreachable only", [.unreachable, .unreachable], [false, false]),
    ] as [(String, [NetworkPath], [Bool])])
    func retryRule(_ name: String, paths: [NetworkPath], retries: [Bool]) {
        var rule = ConnectivityRetryRule()
        #expect(paths.map { rule.shouldRetry(on: $0) } == retries, "\(name)")
    }

    // MARK: For want of a route

    static let noRoute = TransportError.cannotConnect(IOError(errno: ENETUNREACH, call: "connect"))
    static let refused = TransportError.cannotConnect(IOError(errno: ECONNREFUSED, call: "connect"))
    static let lookupLater = TransportError.cannotFindHost("later", underlying: .temporaryFailure("example.org"))
    static let noSuchHost = TransportError.cannotFindHost("no such host", underlying: .hostNotFound("example.org"))

    @Test(arguments: [
        (noRoute, nil, true), (noRoute, true, true),
        (lookupLater, false, true), (lookupLater, true, false), (lookupLater, nil, false),
        (noSuchHost, false, false), (refused, false, false), (TransportError.timedOut("slow"), false, false),
    ] as [(TransportError, Bool?, Bool)])
    func whatCountsAsNoRoute(_ error: TransportError, interfaceUp: Bool?, noRoute: Bool) {
        #expect(isForWantOfRoute(error, interfaceUp: interfaceUp) == noRoute)
    }

    @Test func aTaskThatDoesNotWaitFailsWithNotConnectedToInternet() throws {
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:9/")))
        /// What the task fails with after `error`: the failure walk's error, else the transport's mapped.
        func failure(after error: TransportError) -> URLError? {
            let (outcome, mapped) = task.walkFailure(error)
            switch outcome?.1 {
            case nil: return mapped
            case .fail(let error)?: return error
            default: return nil
            }
        }
        #expect(failure(after: Self.noRoute)?.code == .notConnectedToInternet)
        #expect(failure(after: Self.refused)?.code == .cannotConnectToHost)
        #expect(failure(after: Self.noSuchHost)?.code == .cannotFindHost)
    }

    // MARK: Who hears taskIsWaitingForConnectivity

    /// Counts `taskIsWaitingForConnectivity`.
    final class WaitingDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // heard: LockedBox
        let heard = LockedBox(0)

        func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
            heard.withLock { $0 += 1 }
        }
    }

    /// A delegate that leaves `taskIsWaitingForConnectivity` to the protocol's default.
    final class SilentDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {} // no state

    /// The task's own delegate: one that implements the message, one that leaves it to the default, none.
    enum TaskDelegate: Sendable {
        case implementing
        case silent
        case none
    }

    @Test(arguments: [
        (TaskDelegate.implementing, [1, 0]),
        (.silent, [0, 1]),
        (.none, [0, 1]),
    ])
    func theTasksDelegateElseTheSessionsHearsTheMessage(_ kind: TaskDelegate, heard: [Int]) throws {
        let sessionDelegate = WaitingDelegate()
        let session = URLSession(configuration: .default, delegate: sessionDelegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:9/")))
        let own = WaitingDelegate()
        switch kind {
        case .implementing: task.delegate = own
        case .silent: task.delegate = SilentDelegate()
        case .none: break
        }
        DelegateRouter.taskIsWaitingForConnectivity(task)
        #expect([own.heard.withLock { $0 }, sessionDelegate.heard.withLock { $0 }] == heard)
    }

    @Test func aTaskOfASessionThatDoesNotWaitDoesNotWait() throws {
        let delegate = WaitingDelegate()
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:9/")))
        #expect(!task.waitForConnectivity())
        #expect(!task.isWaitingForConnectivity)
        #expect(delegate.heard.withLock { $0 } == 0)
    }

    @Test func aCancelledTaskDoesNotWait() throws {
        let configuration = URLSessionConfiguration.default
        configuration.waitsForConnectivity = true
        let delegate = WaitingDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:9/")))
        task.cancel()
        #expect(!task.waitForConnectivity())
        #expect(delegate.heard.withLock { $0 } == 0)
    }
}
