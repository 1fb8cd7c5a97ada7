// The event trace (issue 27, item 5): `URLSessionTaskTraceDelegate.urlSession(_:task:didEmitTraceEvent:)` hears
// every event of a traced task, and the trace of a redirected, retried request tells its hops, attempts and
// connections apart. Plus the JSON line's schema, checked by parsing it back.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

/// Records the trace events of every task and the completion.
final class TraceRecorder: NSObject, URLSessionDataDelegate, URLSessionTaskTraceDelegate,
    @unchecked Sendable { // state: in `log`
    struct Log {
        var events: [URLSessionTaskTraceEvent] = []
        var data = Data()
        var completed = 0
        var error: (any Error)?
        /// Trace events that arrived off the session's delegate queue.
        var offDelegateQueue = 0
    }

    let log = LockedBox(Log())
    let tracesChunks: Bool

    init(tracesChunks: Bool = true) {
        self.tracesChunks = tracesChunks
        super.init()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didEmitTraceEvent event: URLSessionTaskTraceEvent) {
        let onQueue = OperationQueue.current === session.delegateQueue
        log.withLock {
            $0.events.append(event)
            if !onQueue { $0.offDelegateQueue += 1 }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        log.withLock { $0.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        log.withLock {
            $0.completed += 1
            $0.error = error
        }
    }

    func waitForCompletions(_ count: Int) -> Bool {
        waitUntil(timeout: 10) { log.withLock { $0.completed >= count } }
    }
}

extension URLSessionTaskTraceEvent.Value {
    var string: String? { if case .string(let text) = self { text } else { nil } }
    var integer: Int64? { if case .integer(let number) = self { number } else { nil } }
    var bool: Bool? { if case .bool(let flag) = self { flag } else { nil } }
}

@Suite struct TaskTraceTests {
    /// Connection 0: `/prime` gets a keep-alive 200, `/start` a 302 to `/final`, and `/final` a reset (no
    /// response byte: the transport retries it, the connection having been reused). Connection 1: `/final`
    /// gets 200 "done".
    private static func redirectingResettingServer() throws -> ScriptedServer {
        try ScriptedServer { connection in
            while let request = try connection.readRequest() {
                switch request.target {
                case "/prime": try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                case "/start": try connection.write("HTTP/1.1 302 Found\r\nLocation: /final\r\nContent-Length: 0\r\n\r\n")
                case "/final" where connection.connectionIndex == 0:
                    connection.reset()
                    return
                default: try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone")
                }
            }
        }
    }

    @Test("the trace of a redirected, retried request tells hops, attempts and connections apart")
    func redirectedRetriedTrace() throws {
        let server = try Self.redirectingResettingServer()
        defer { server.stop() }
        let recorder = TraceRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let base = "http://127.0.0.1:\(server.port)"
        session.dataTask(with: try #require(URL(string: base + "/prime"))).resume()
        #expect(recorder.waitForCompletions(1))
        let task = session.dataTask(with: try #require(URL(string: base + "/start")))
        task.resume()
        #expect(recorder.waitForCompletions(2))
        let log = recorder.log.withLock { $0 }
        #expect(log.error == nil, "\(String(describing: log.error))")
        #expect(log.data == Data("okdone".utf8))
        #expect(server.connectionCount == 2)
        #expect(log.offDelegateQueue == 0)

        let events = log.events.filter { $0.taskIdentifier == task.taskIdentifier }
        // One time line, in emission order.
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        let names = events.map(\.name).filter { !["send", "recv", "body", "resolve", "connect"].contains($0) }
        #expect(names == ["request", "pool", "connected", "response_head", "redirect",
                          "request", "pool", "connected", "retry", "pool", "connected", "response_head", "end"],
                "\(names)")

        // Hop 0: the first request, on the primed connection (reused), answered with the 302.
        let hop0 = events.filter { $0.hop == 0 }
        let reused = try #require(hop0.first { $0.name == "connected" })
        let firstConnection = try #require(reused.connection)
        #expect(reused[field: "reused"]?.bool == true)
        #expect(hop0.first { $0.name == "pool" }?[field: "decision"]?.string == "reused")
        #expect(hop0.first { $0.name == "response_head" }?[field: "status"]?.integer == 302)
        let redirect = try #require(events.first { $0.name == "redirect" })
        #expect(redirect.hop == 0)
        #expect(redirect[field: "status"]?.integer == 302)
        #expect(redirect[field: "url"]?.string == base + "/final")
        #expect(hop0.filter { $0.name != "request" }.allSatisfy { $0.attempt == 1 && $0.connection == firstConnection })

        // Hop 1: the redirect's request, first on the same connection (reset), then retried on a new one.
        let hop1 = events.filter { $0.hop == 1 }
        #expect(hop1.first?.name == "request")
        #expect(hop1.first?[field: "reason"]?.string == "redirect")
        let attempt1 = hop1.filter { $0.attempt == 1 && $0.name != "request" }
        #expect(attempt1.allSatisfy { $0.connection == firstConnection }, "\(attempt1.map(\.jsonLine))")
        #expect(attempt1.contains { $0.name == "send" })
        let retry = try #require(hop1.first { $0.name == "retry" })
        #expect(retry.attempt == 2)
        // The retry names the failed attempt's error: the reset connection, as the URL error it would have been.
        #expect(retry[field: "error_code"]?.integer == Int64(URLError.Code.networkConnectionLost.rawValue),
                "\(retry.jsonLine)")
        #expect(retry[field: "error"]?.string?.isEmpty == false, "\(retry.jsonLine)")
        let attempt2 = hop1.filter { $0.attempt == 2 }
        let secondConnection = try #require(attempt2.first { $0.name == "connected" })
        #expect(secondConnection.connection != firstConnection)
        #expect(secondConnection[field: "reused"]?.bool == false)
        #expect(attempt2.first { $0.name == "pool" }?[field: "decision"]?.string == "new")
        #expect(attempt2.contains { $0.name == "connect" })
        #expect(attempt2.first { $0.name == "response_head" }?[field: "status"]?.integer == 200)
        let end = try #require(events.last)
        #expect(end.name == "end")
        #expect(end.hop == 1 && end.attempt == 2 && end.connection == secondConnection.connection)
        // The bytes: what the second connection read is the 200 response, as sent.
        let received = attempt2.filter { $0.name == "recv" }.compactMap { event -> [UInt8]? in
            if case .bytes(let bytes)? = event[field: "data"] { bytes } else { nil }
        }
        #expect(received.flatMap { $0 } == Array("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone".utf8))
    }

    @Test("a request that queues behind the per-host limit is traced as waited, then runs on the freed connection")
    func waitedPoolDecision() throws {
        let released = LockedBox(false)
        let server = try ScriptedServer { connection in
            while let request = try connection.readRequest() {
                if request.target == "/hold" { _ = waitUntil(timeout: 10) { released.withLock { $0 } } }
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
        }
        defer { server.stop() }
        let recorder = TraceRecorder()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let base = "http://127.0.0.1:\(server.port)"
        func events(of task: URLSessionTask) -> [URLSessionTaskTraceEvent] {
            recorder.log.withLock { $0.events.filter { $0.taskIdentifier == task.taskIdentifier } }
        }
        let first = session.dataTask(with: try #require(URL(string: base + "/hold")))
        first.resume()
        #expect(waitUntil(timeout: 10) { events(of: first).contains { $0.name == "send" } })
        let second = session.dataTask(with: try #require(URL(string: base + "/next")))
        second.resume()
        // The pool's decision reaches the trace with the connection; the pool's own counters show the wait.
        let origin = try #require(URL(string: base))
        #expect(waitUntil(timeout: 10) { session.connectionPoolCounters(for: origin).waiting == 1 })
        #expect(!events(of: second).contains { $0.name == "connected" })
        released.withLock { $0 = true }
        #expect(recorder.waitForCompletions(2))

        #expect(events(of: first).first { $0.name == "pool" }?[field: "decision"]?.string == "new")
        let waited = events(of: second)
        #expect(waited.first { $0.name == "pool" }?[field: "decision"]?.string == "waited")
        let connected = try #require(waited.first { $0.name == "connected" })
        #expect(connected[field: "reused"]?.bool == true)
        #expect(connected.connection == events(of: first).first { $0.name == "connected" }?.connection)
        #expect(waited.last?.name == "end")
        #expect(server.connectionCount == 1)
    }

    @Test("each chunk of a chunked body is a chunk event with its size and extensions, before its data, in wire order")
    func chunkEvents() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let recorder = TraceRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: try #require(URL(string: server.baseURL + "/chunks"))).resume()
        #expect(recorder.waitForCompletions(1))
        let log = recorder.log.withLock { $0 }
        #expect(log.error == nil, "\(String(describing: log.error))")
        #expect(log.data == Data("helloabcdefghijklmnopqrstuvwxyzxyz".utf8))

        // The body events of one chunk joined (a read may cut a chunk's data in two).
        var steps: [(name: String, size: Int64)] = []
        for event in log.events where ["chunk", "body"].contains(event.name) {
            let size = event[field: "size"]?.integer ?? -1
            if event.name == "body", steps.last?.name == "body" { steps[steps.count - 1].size += size } else {
                steps.append((event.name, size))
            }
        }
        #expect(steps.map { "\($0.name) \($0.size)" } == ["chunk 5", "body 5", "chunk 26", "body 26", "chunk 3",
                                                         "body 3", "chunk 0"])
        let chunks = log.events.filter { $0.name == "chunk" }
        #expect(chunks.map { $0[field: "extensions"]?.string } == [nil, ";name=value;q=\"a b\"", nil, ";last"])
        let names = log.events.map(\.name)
        let head = try #require(names.firstIndex(of: "response_head"))
        let firstChunk = try #require(names.firstIndex(of: "chunk"))
        let trailers = try #require(names.firstIndex(of: "trailers"))
        #expect(head < firstChunk && names.lastIndex(of: "chunk").map { $0 < trailers } == true, "\(names)")
        // Each chunk event comes after the bytes of its size line were received.
        let lines = ["5\r\n", "1a;name=value;q=\"a b\"\r\n", "3\r\n", "0;last\r\n"]
        for (line, index) in zip(lines, log.events.indices.filter({ log.events[$0].name == "chunk" })) {
            let received = log.events[..<index].filter { $0.name == "recv" }.flatMap { event -> [UInt8] in
                if case .bytes(let bytes)? = event[field: "data"] { bytes } else { [] }
            }
            #expect(String(decoding: received, as: UTF8.self).contains(line), "\(line)")
        }
    }

    @Test("a trace delegate that does not trace chunks gets no chunk event, and the whole body")
    func chunksNotTraced() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let recorder = TraceRecorder(tracesChunks: false)
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: try #require(URL(string: server.baseURL + "/chunks"))).resume()
        #expect(recorder.waitForCompletions(1))
        let log = recorder.log.withLock { $0 }
        #expect(log.data == Data("helloabcdefghijklmnopqrstuvwxyzxyz".utf8))
        let names = log.events.map(\.name)
        #expect(!names.contains("chunk") && names.contains("body") && names.last == "end", "\(names)")
    }

    @Test("a task whose delegate is no trace delegate sends no trace message")
    func untracedTaskEmitsNothing() throws {
        let server = try Self.redirectingResettingServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:\(server.port)/prime")))
        task.resume()
        #expect(delegate.waitForCompletion(timeout: 10))
        #expect(!DelegateRouter.wantsTrace(task: task))
        #expect(task.read(\.transfer.trace.enabled) == false)
    }

    @Test("a JSON line parses back to the schema: envelope, typed fields, base64 bytes, escaped text")
    func jsonLineRoundTrip() throws {
        let bytes: [UInt8] = [0, 13, 10, 0xFF, 0x22]
        let event = URLSessionTaskTraceEvent(
            time: 123_456_789_012, taskIdentifier: 7, hop: 1, attempt: 2, connection: 3, name: "recv",
            fields: [("size", .integer(5)), ("data", .bytes(bytes)), ("reused", .bool(true)),
                     ("text", .string("quote \" backslash \\ tab \t nul \u{0} é")),
                     ("names", .strings(["bare-lf", "obs-fold"])),
                     ("headers", .fields([("X-A", "1"), ("x-b", "two words")]))])
        let line = event.jsonLine
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["t"] as? Int == 123_456_789_012)
        #expect(object["task"] as? Int == 7)
        #expect(object["hop"] as? Int == 1)
        #expect(object["attempt"] as? Int == 2)
        #expect(object["connection"] as? Int == 3)
        #expect(object["event"] as? String == "recv")
        #expect(object["size"] as? Int == 5)
        #expect((object["data"] as? String).flatMap { Data(base64Encoded: $0) } == Data(bytes))
        #expect(object["reused"] as? Bool == true)
        #expect(object["text"] as? String == "quote \" backslash \\ tab \t nul \u{0} é")
        #expect(object["names"] as? [String] == ["bare-lf", "obs-fold"])
        #expect(object["headers"] as? [[String]] == [["X-A", "1"], ["x-b", "two words"]])

        let before = URLSessionTaskTraceEvent(time: 1, taskIdentifier: 1, hop: 0, attempt: 1, connection: nil,
                                              name: "request", fields: [])
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(before.jsonLine.utf8)) as? [String: Any])
        #expect(envelope["connection"] is NSNull)
        #expect(Set(envelope.keys) == ["t", "task", "hop", "attempt", "connection", "event"])
    }
}
