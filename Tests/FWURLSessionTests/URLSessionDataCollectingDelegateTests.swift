import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// URLSessionDataCollectingDelegate (FWNetworking addition), end to end against a loopback server: a task whose
// routed data delegate conforms collects its body once, within the session's limits, and hands it over after its
// last `didReceive data` and before its metrics; a delegate that declines collects nothing; a body over the
// limit ends the task with `dataLengthExceedsMaximum` and hands nothing over.
@Suite struct URLSessionDataCollectingDelegateTests {
    /// Records the messages it hears; wants the body of every task but those described as "uncollected".
    final class Collector: NSObject, URLSessionDataCollectingDelegate,
        @unchecked Sendable { // `heard`, `body`, `error`: LockedBoxes
        let heard = LockedBox<[String]>([])
        let body = LockedBox<Data?>(nil)
        let error = LockedBox<URLError?>(nil)

        func urlSession(_ session: URLSession, shouldCollectBodyOf dataTask: URLSessionDataTask) -> Bool {
            dataTask.taskDescription != "uncollected"
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            heard.withLock { if $0.last != "data" { $0.append("data") } }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didCollectBody body: Data) {
            heard.withLock { $0.append("body") }
            self.body.withLock { $0 = body }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask,
                        didFinishCollecting metrics: URLSessionTaskMetrics) {
            heard.withLock { $0.append("metrics") }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            self.error.withLock { $0 = error as? URLError }
            heard.withLock { $0.append("complete") }
        }
    }

    /// 64 KiB at `/announced` (with its length) and at `/chunked` (in 16 chunks, no length).
    static func server() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            let body = String(repeating: "a", count: 64 << 10)
            guard request.target == "/chunked" else { return .ok(body) }
            return .chunked(Array(repeating: String(repeating: "a", count: 4 << 10), count: 16))
        }
    }

    /// Runs one task on a session whose delegate is `collector`, with a collected-body limit of `limit`.
    static func run(_ path: String, collector: Collector, limit: Int64 = 1 << 20, description: String? = nil,
                    server: LoopbackHTTPServer) -> Bool {
        let configuration = URLSessionConfiguration.ephemeral
        var limits = configuration.httpResponseLimits
        limits.maxCollectedBodySize = limit
        configuration.httpResponseLimits = limits
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: URL(string: server.baseURL + path)!)
        task.taskDescription = description
        task.resume()
        return waitUntil(timeout: 10) { collector.heard.withLock { $0.last } == "complete" }
    }

    @Test(arguments: ["/announced", "/chunked"])
    func theBodyIsHandedOverOnceAfterItsLastPiece(_ path: String) throws {
        let server = try Self.server()
        defer { server.stop() }
        let collector = Collector()
        #expect(Self.run(path, collector: collector, server: server))
        #expect(collector.heard.withLock { $0 } == ["data", "body", "metrics", "complete"])
        #expect(collector.body.withLock { $0 } == Data(repeating: 0x61, count: 64 << 10))
        #expect(collector.error.withLock { $0 } == nil)
    }

    @Test func aDelegateThatDeclinesHearsTheBodyOnlyInPieces() throws {
        let server = try Self.server()
        defer { server.stop() }
        let collector = Collector()
        #expect(Self.run("/announced", collector: collector, description: "uncollected", server: server))
        #expect(collector.heard.withLock { $0 } == ["data", "metrics", "complete"])
        #expect(collector.body.withLock { $0 } == nil)
    }

    @Test(arguments: ["/announced", "/chunked"])
    func aBodyOverTheLimitEndsTheTaskAndIsNotHandedOver(_ path: String) throws {
        let server = try Self.server()
        defer { server.stop() }
        let collector = Collector()
        #expect(Self.run(path, collector: collector, limit: 16 << 10, server: server))
        #expect(collector.error.withLock { $0 }?.code == .dataLengthExceedsMaximum)
        #expect(!collector.heard.withLock { $0 }.contains("body"))
        #expect(collector.body.withLock { $0 } == nil)
    }
}
