import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// The request timeout covers the whole attempt (issue 18, item 2): waiting for a free connection,
// connecting, the TLS handshake, writing the request and reading the response; and the more restrictive of
// the session's `timeoutIntervalForRequest` and the request's own `timeoutInterval` applies, whichever of
// the two it is. Each row stalls one phase against a loopback peer and expects `timedOut` after about the
// restrictive value (1 s, where the other one is 30 s), and the pool to hold nothing for the request after.
//
// The whole table runs on a manual clock in ManualClockTimeoutTests; here, on wall time, stay the rows that
// run the real loop and its monotonic clock end to end: a stalled read, and a queue behind a session-wide
// 1 s (whose trickling blocker needs real time to pass to keep its own timeout from running out).
@Suite struct RequestTimeoutTests {
    enum Phase: String, CaseIterable, Sendable {
        case queue, connect, tls, write, read
    }

    enum Side: String, CaseIterable, Sendable {
        /// `URLRequest(url:cachePolicy:timeoutInterval: 1)` in a session of 30 s.
        case request
        /// A session of 1 s, the request's `timeoutInterval` assigned 30.
        case session
    }

    static let restrictive = 1.0
    static let lenient = 30.0

    /// The peer that stalls `phase`, and the URL of the request that runs into it.
    final class Peer: Sendable {
        let url: URL
        /// How many requests the peer has read (always 0 for `.connect`).
        let requestCount: @Sendable () -> Int
        private let stop: @Sendable () -> Void

        init(_ phase: Phase) throws {
            switch phase {
            case .connect:
                let listener = try UnacceptedListener()
                url = URL(string: "http://127.0.0.1:\(listener.port)/")!
                requestCount = { 0 }
                stop = listener.stop
            case .queue, .tls, .write, .read:
                let server = try ScriptedServer { connection in try Self.stall(phase, connection) }
                url = URL(string: "\(phase == .tls ? "https" : "http")://127.0.0.1:\(server.port)/")!
                requestCount = { server.requests.count }
                stop = server.stop
            }
        }

        deinit { stop() }

        private static func stall(_ phase: Phase, _ connection: ScriptedConnection) throws {
            switch phase {
            case .queue:
                // The blocker: a body that keeps trickling, so its own idle timeout never fires.
                _ = try connection.readRequest()
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
                for _ in 0..<100 {
                    try connection.write("x")
                    if !connection.pause(0.1) { return }
                }
            case .tls, .connect:
                _ = connection.waitForClose(timeout: 10)
            case .write:
                _ = try connection.readRequestHead()
                try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
                connection.pause(10)
            case .read:
                _ = try connection.readRequest()
                _ = connection.waitForClose(timeout: 10)
            }
        }
    }

    static let rows = Phase.allCases.flatMap { phase in Side.allCases.map { (phase, $0) } }

    @Test(arguments: [(Phase.read, Side.request), (.queue, .session)])
    func theTimeoutCoversThePhase(_ phase: Phase, _ side: Side) throws {
        let peer = try Peer(phase)
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.timeoutIntervalForRequest = side == .session ? Self.restrictive : Self.lenient
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        var request = side == .request
            ? URLRequest(url: peer.url, cachePolicy: .useProtocolCachePolicy, timeoutInterval: Self.restrictive)
            : URLRequest(url: peer.url)
        if side == .session { request.timeoutInterval = Self.lenient }

        if phase == .queue {
            session.dataTask(with: URLRequest(url: peer.url)) { _, _, _ in }.resume()
            #expect(waitUntil(timeout: 5) { session.connectionPoolCounters(for: peer.url).leased == 1 })
        }
        let outcome = LockedBox<(error: URLError?, seconds: Double)?>(nil)
        let start = ContinuousClock.now
        let task: URLSessionTask
        if phase == .write {
            task = session.uploadTask(with: request, from: Data(count: 32 << 20)) { _, _, error in
                outcome.withLock { $0 = (error as? URLError, (ContinuousClock.now - start) / .seconds(1)) }
            }
        } else {
            task = session.dataTask(with: request) { _, _, error in
                outcome.withLock { $0 = (error as? URLError, (ContinuousClock.now - start) / .seconds(1)) }
            }
        }
        task.resume()

        #expect(waitUntil(timeout: Self.restrictive + 9) { outcome.withLock { $0 } != nil })
        let result = outcome.withLock { $0 }
        #expect(result?.error?.code == .timedOut)
        #expect((result?.seconds ?? 0) >= Self.restrictive - 0.05)
        #expect((result?.seconds ?? .infinity) < Self.restrictive + 4)
        // Nothing of the request is left in the pool: no connection still being made for it, no wait.
        let blockers = phase == .queue ? 1 : 0
        #expect(waitUntil(timeout: 3) {
            let counters = session.connectionPoolCounters(for: peer.url)
            return counters.connecting == 0 && counters.waiting == 0 && counters.leased == blockers
        })
    }
}
