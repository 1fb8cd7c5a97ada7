// HTTP/1.1 pipelining through the session (issue 27): `httpShouldUsePipelining` sends GETs back to back on one
// connection, up to `httpPipeliningDepth`; a server that closes mid-pipeline has the unanswered ones replayed
// (counted in `fwPipelineReplayCount`); a POST never joins. The peer is Fixtures/conformance/pipeline-server.py,
// which answers only once it has read a given number of heads (or the client went quiet) and tells in each
// response how many were pending.

import Foundation
import FWTransport
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct PipeliningTests {
    /// What one task got.
    struct Outcome {
        var body = ""
        /// Heads the server had read and not answered when it answered this one (itself included).
        var pending = 0
        var maxPending = 0
        var connection = 0
        var replays = 0
        var error: URLError?
        /// The last transaction's request start and response start (session clock).
        var requestStart: Date?
        var responseStart: Date?
    }

    /// Keeps each task's metrics.
    final class MetricsRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // vars: in `metrics`
        let metrics = LockedBox<[Int: URLSessionTaskMetrics]>([:])
        let collected = DispatchSemaphore(value: 0)

        func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
            self.metrics.withLock { $0[task.taskIdentifier] = metrics }
            collected.signal()
        }
    }

    /// Runs `requests` at once on a new session; the outcomes in their order.
    static func run(_ requests: [URLRequest], pipelining: Bool = true, depth: Int? = nil,
                    perHost: Int = 6) throws -> [Outcome] {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldUsePipelining = pipelining
        if let depth { configuration.httpPipeliningDepth = depth }
        configuration.httpMaximumConnectionsPerHost = perHost
        let recorder = MetricsRecorder()
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let results = LockedBox<[Int: Outcome]>([:])
        let done = DispatchSemaphore(value: 0)
        let tasks = requests.enumerated().map { index, request in
            session.dataTask(with: request) { data, response, error in
                var outcome = Outcome(error: error as? URLError)
                if let response = response as? HTTPURLResponse {
                    outcome.body = String(decoding: data ?? Data(), as: UTF8.self)
                    outcome.pending = Int(response.value(forHTTPHeaderField: "X-Pending") ?? "") ?? 0
                    outcome.maxPending = Int(response.value(forHTTPHeaderField: "X-Max-Pending") ?? "") ?? 0
                    outcome.connection = Int(response.value(forHTTPHeaderField: "X-Connection") ?? "") ?? 0
                }
                results.withLock { $0[index] = outcome }
                done.signal()
            }
        }
        for task in tasks { task.resume() }
        for _ in tasks {
            guard done.wait(timeout: .now() + 30) == .success else { throw Timeout() }
        }
        for _ in tasks { _ = recorder.collected.wait(timeout: .now() + 10) }
        let metrics = recorder.metrics.withLock { $0 }
        return try results.withLock { results in
            try tasks.indices.map { index in
                var outcome = try #require(results[index])
                let transaction = metrics[tasks[index].taskIdentifier]?.transactionMetrics.last
                outcome.replays = transaction?.fwPipelineReplayCount ?? -1
                outcome.requestStart = transaction?.requestStartDate
                outcome.responseStart = transaction?.responseStartDate
                return outcome
            }
        }
    }

    struct Timeout: Error {}

    static func gets(_ server: PipelineServer, _ path: String, _ names: [String]) throws -> [URLRequest] {
        try names.map { URLRequest(url: try #require(URL(string: server.baseURL + path + $0))) }
    }

    @Test("three GETs reach a server that answers only once it has read all three heads")
    func threeHeadsBeforeAnyAnswer() throws {
        let server = try PipelineServer()
        defer { server.stop() }
        let outcomes = try Self.run(try Self.gets(server, "/wait/3/5000/", ["a", "b", "c"]))
        #expect(outcomes.map(\.error) == [nil, nil, nil])
        #expect(outcomes.map(\.body) == ["a", "b", "c"])
        #expect(outcomes.map(\.pending) == [3, 2, 1])
        #expect(Set(outcomes.map(\.connection)).count == 1)
        #expect(outcomes.map(\.replays) == [0, 0, 0])
        // Each follower's request started when its head was written: before the first response began (the
        // server answered only after reading all three), not when the follower's own response was next.
        let firstResponse = try #require(outcomes[0].responseStart)
        for outcome in outcomes.dropFirst() {
            let start = try #require(outcome.requestStart)
            #expect(start <= firstResponse, "\(start) after \(firstResponse)")
            #expect(start <= (outcome.responseStart ?? .distantPast))
        }
    }

    @Test("without pipelining the server sees one head at a time")
    func offByDefault() throws {
        let server = try PipelineServer()
        defer { server.stop() }
        let outcomes = try Self.run(try Self.gets(server, "/wait/3/200/", ["a", "b", "c"]), pipelining: false,
                                    perHost: 1)
        #expect(outcomes.map(\.body) == ["a", "b", "c"])
        #expect(outcomes.map(\.maxPending) == [1, 1, 1])
    }

    @Test("a server that closes after the first response: the other two are replayed on a new connection")
    func replayAfterClose() throws {
        let server = try PipelineServer()
        defer { server.stop() }
        let outcomes = try Self.run(try Self.gets(server, "/closefirst/3/300/", ["a", "b", "c"]))
        #expect(outcomes.map(\.error) == [nil, nil, nil])
        #expect(outcomes.map(\.body) == ["a", "b", "c"])
        #expect(outcomes.map(\.replays) == [0, 1, 1])
        #expect(outcomes[0].connection == 1)
        #expect(outcomes[1].connection == 2 && outcomes[2].connection == 2)
        // Replayed together, pipelined again.
        #expect(outcomes[1].pending == 2)
    }

    @Test("a POST never joins a pipeline")
    func postNeverJoins() throws {
        let server = try PipelineServer()
        defer { server.stop() }
        var post = URLRequest(url: try #require(URL(string: server.baseURL + "/wait/2/300/p")))
        post.httpMethod = "POST"
        post.httpBody = Data("x".utf8)
        let requests = [try Self.gets(server, "/wait/2/300/", ["a"])[0], post,
                        try Self.gets(server, "/wait/2/300/", ["b"])[0]]
        let outcomes = try Self.run(requests, perHost: 1)
        #expect(outcomes.map(\.error) == [nil, nil, nil])
        #expect(outcomes.map(\.body) == ["a", "p", "b"])
        // One connection, one head at a time: the POST joined nothing, and the GET behind it did not jump it.
        #expect(outcomes.map(\.maxPending) == [1, 1, 1])
        #expect(Set(outcomes.map(\.connection)).count == 1)
    }

    @Test("the depth bounds the requests in flight on a connection")
    func depthHonoured() throws {
        let server = try PipelineServer()
        defer { server.stop() }
        let outcomes = try Self.run(try Self.gets(server, "/wait/3/200/", ["a", "b", "c", "d", "e"]), depth: 2,
                                    perHost: 1)
        #expect(outcomes.map(\.error) == [nil, nil, nil, nil, nil])
        #expect(outcomes.map(\.body) == ["a", "b", "c", "d", "e"])
        #expect(outcomes.allSatisfy { $0.maxPending <= 2 }, "\(outcomes.map(\.maxPending))")
        #expect(outcomes[0].pending == 2)
    }

    @Test("the request may opt out, and the depth is a configuration setting with a default of 4")
    func configuration() throws {
        let configuration = URLSessionConfiguration.default
        #expect(!configuration.httpShouldUsePipelining)
        #expect(configuration.httpPipeliningDepth == 4)
        configuration.httpShouldUsePipelining = true
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/")))
        #expect(try TransportRequest(request, configuration: configuration, tracing: false).pipelining)
        request.httpShouldUsePipelining = false
        #expect(try !TransportRequest(request, configuration: configuration, tracing: false).pipelining)
    }
}
