import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// The URLSession surface end to end on loopback: delegate order and queue, completion handlers,
// async, invalidation, and the URLError of every failure.
@Suite struct URLSessionTests {
    private static func makeServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            switch request.target {
            case "/hello": return .ok("hello", contentType: "text/plain; charset=utf-8")
            case "/chunked": return .chunked(["a", "bc", "def"])
            case "/headers": return .ok(request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            case "/slow":
                var reply = LoopbackHTTPServer.Reply.ok("slow")
                reply.delay = 1
                return reply
            case "/malformed": return .raw("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n")
            case "/not-http": return .raw("HTTP/2.0 200 OK\r\n\r\n")
            case "/many-fields": return .ok("x", headers: (1...5).map { ("X-\($0)", "\($0)") })
            case "/gzip":
                let body = [UInt8](Data(base64Encoded: "H4sIAAAAAAACA8tIzcnJ11FIr8os4MoYZY+yR9mj7EHMBgCKFA1AsAQAAA==")!)
                let asked = request.header("Accept-Encoding") == ContentCodings.acceptEncoding
                return .status(200, body: asked ? body : [],
                               headers: [("Content-Encoding", "gzip")])
            case "/corrupt-gzip":
                return .status(200, body: Array("not gzip at all".utf8), headers: [("Content-Encoding", "gzip")])
            default: return .status(404)
            }
        }
    }

    @Test func completionHandlerGetsBodyAndResponse() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let result = load(session, URLRequest(url: url(server, "/hello")))
        #expect(result.error == nil)
        #expect(result.data == Data("hello".utf8))
        #expect(result.response?.statusCode == 200)
        #expect(result.response?.mimeType == "text/plain")
        #expect(result.response?.textEncodingName == "utf-8")
        #expect(result.response?.expectedContentLength == 5)
    }

    @Test func theConfigurationIsACopyThatCannotChangeTheSession() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Made": "at creation"]
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        #expect(session.configuration !== session.configuration)
        session.configuration.httpAdditionalHeaders = ["X-Made": "later"]
        #expect(session.configuration.httpAdditionalHeaders?["X-Made"] as? String == "at creation")
        // The stores are shared, not copied: they are the session's.
        #expect(session.configuration.httpCookieStorage === configuration.httpCookieStorage)
        let result = load(session, URLRequest(url: url(server, "/headers")))
        let echoed = String(decoding: result.data ?? Data(), as: UTF8.self)
        #expect(echoed.contains("X-Made: at creation"))
    }

    @Test func delegateMessagesArriveInOrderOnTheDelegateQueue() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        delegate.expectedQueue.withLock { $0 = queue }
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: queue)
        let task = session.dataTask(with: url(server, "/chunked"))
        #expect(task.state == .suspended)
        task.resume()
        #expect(delegate.waitForCompletion())
        session.finishTasksAndInvalidate()
        #expect(waitUntil(timeout: 5) { delegate.log.withLock { $0.invalidated } })

        let log = delegate.log.withLock { $0 }
        #expect(log.messages.first == "response 200")
        #expect(log.messages.dropFirst().prefix { $0 == "data" }.count == log.messages.count - 4)
        #expect(Array(log.messages.suffix(3)) == ["metrics", "complete", "invalid"])
        #expect(log.data == Data("abcdef".utf8))
        #expect(log.error == nil)
        #expect(log.offDelegateQueue == 0)
        #expect(task.state == .completed)
        #expect(task.countOfBytesReceived == 6)
        #expect(session.delegate == nil)
    }

    @Test func cancelDispositionCancelsTheTask() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate(disposition: .cancel)
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: url(server, "/hello")).resume()
        #expect(delegate.waitForCompletion())
        let log = delegate.log.withLock { $0 }
        #expect((log.error as? URLError)?.code == .cancelled)
        #expect(!log.messages.contains("data"))
    }

    @Test func asyncDataReturnsBodyAndResponse() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: url(server, "/hello"))
        #expect(data == Data("hello".utf8))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func cancellingTheSwiftTaskCancelsTheLoad() async throws {
        let load = LockedBox<Task<(Data, URLResponse), any Error>?>(nil)
        // The server cancels the load when the request arrives, so the cancel comes while the load is in
        // flight (however long the load's task waits for a thread).
        let server = try LoopbackHTTPServer { _ in
            load.withLock { $0 }?.cancel()
            var reply = LoopbackHTTPServer.Reply.ok("slow")
            reply.delay = 1
            return reply
        }
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let task = load.withLock { load in
            let task = Task { try await session.data(from: url(server, "/slow")) }
            load = task
            return task
        }
        await #expect { try await task.value } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(server.requestCount == 1)
    }

    @Test func cancelBeforeResumeCompletesWithCancelled() throws {
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!) { _, _, error in
            #expect((error as? URLError)?.code == .cancelled)
            done.signal()
        }
        task.cancel()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(task.state == .completed)
    }

    @Test func invalidateAndCancelEndsRunningTasksThenInvalidates() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate()
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        session.dataTask(with: url(server, "/slow")).resume()
        #expect(waitUntil(timeout: 2) { server.requestCount == 1 })
        session.invalidateAndCancel()
        #expect(waitUntil(timeout: 5) { delegate.log.withLock { $0.invalidated } })
        let log = delegate.log.withLock { $0 }
        #expect((log.error as? URLError)?.code == .cancelled)
        #expect(log.messages.last == "invalid")
    }

    @Test func configurationHeadersAndDefaultsAreSent() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-Session": "s", "Accept": "text/plain"]
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url(server, "/headers"))
        request.setValue("r", forHTTPHeaderField: "X-Request")
        let text = String(decoding: load(session, request).data ?? Data(), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        // Host first (RFC 9110 §7.2), then the request's own fields in order.
        #expect(Array(lines.prefix(2)) == ["Host: 127.0.0.1:\(server.port)", "X-Request: r"])
        #expect(lines.contains("X-Session: s"))
        #expect(lines.contains("Accept: text/plain"))
        #expect(lines.contains("User-Agent: FWNetworking/0.1"))
        #expect(lines.contains("Host: 127.0.0.1:\(server.port)"))
    }

    @Test(arguments: [
        ("malformed", URLError.Code.badServerResponse),
        ("notHTTP", .cannotParseResponse),
        ("overLimit", .badServerResponse),
        ("corruptGzip", .cannotDecodeContentData),
        ("refused", .cannotConnectToHost),
        ("unknownHost", .cannotFindHost),
        ("unsupportedScheme", .unsupportedURL),
        ("noURL", .unsupportedURL),
        ("injection", .badURL),
    ])
    func failuresMapToTheURLErrorUsersExpect(_ scenario: String, _ code: URLError.Code) throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.default
        configuration.httpResponseLimits.maxHeaderCount = 4
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let refusedPort = try ScriptedServer { _ in }
        let port = refusedPort.port
        refusedPort.stop()
        var request: URLRequest
        switch scenario {
        case "malformed": request = URLRequest(url: url(server, "/malformed"))
        case "notHTTP": request = URLRequest(url: url(server, "/not-http"))
        case "overLimit": request = URLRequest(url: url(server, "/many-fields"))
        case "corruptGzip": request = URLRequest(url: url(server, "/corrupt-gzip"))
        case "refused": request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!)
        case "unknownHost": request = URLRequest(url: URL(string: "http://no-such-host.invalid/")!)
        case "unsupportedScheme": request = URLRequest(url: URL(string: "gopher://127.0.0.1/")!)
        case "noURL":
            request = URLRequest(url: url(server, "/hello"))
            request.url = nil
        default:
            // Bytes that must never reach the wire: a method that is not a token (header values are
            // refused the same way, see headerValuesThatWouldInjectAreRefused).
            request = URLRequest(url: url(server, "/hello"))
            request.httpMethod = "GET / HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET"
        }
        let result = load(session, request, timeout: 15)
        #expect(result.error?.code == code)
        #expect(result.error?.errorUserInfo[NSURLErrorFailingURLErrorKey] != nil
                || ["injection", "noURL"].contains(scenario))
        // The session keeps working after any failure.
        #expect(load(session, URLRequest(url: url(server, "/hello"))).data == Data("hello".utf8))
    }

    enum HeaderSetter: String, CaseIterable, Sendable {
        case setValue, addValue, allHTTPHeaderFields
    }

    // Issue 18, item 6: a value with CR, LF or NUL fails the task with badURL before a byte is written,
    // however it was set — never sent without the field, never dropped silently.
    @Test(arguments: HeaderSetter.allCases, ["a\r\nX-Injected: 1", "nul\u{0}", "folded\r\n continuation"])
    func headerValuesThatWouldInjectAreRefused(_ setter: HeaderSetter, _ value: String) throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url(server, "/hello"))
        switch setter {
        case .setValue: request.setValue(value, forHTTPHeaderField: "X-Value")
        case .addValue: request.addValue(value, forHTTPHeaderField: "X-Value")
        case .allHTTPHeaderFields: request.allHTTPHeaderFields = ["X-Value": value]
        }
        #expect(load(session, request).error?.code == .badURL)
        #expect(server.connectionCount == 0)
    }

    @Test func requestTimeoutEndsWithTimedOut() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url(server, "/slow"))
        request.timeoutInterval = 0.2
        #expect(load(session, request).error?.code == .timedOut)
    }

    @Test func resourceTimeoutEndsWithTimedOut() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForResource = 0.3
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        #expect(load(session, URLRequest(url: url(server, "/slow"))).error?.code == .timedOut)
    }

    @Test func suspendHoldsDelegateMessagesUntilResume() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        // The delegate queue waits, so the whole response reaches the task before anything is delivered.
        queue.isSuspended = true
        let task = session.dataTask(with: url(server, "/hello"))
        task.resume()
        #expect(waitUntil(timeout: 5) { session.connectionPoolCounters(for: url(server, "/")).idle == 1 })
        task.suspend()
        #expect(task.state == .suspended)
        // A second request on that connection: once the server has it, the loop iteration that ended the first
        // response, and handed its last events to the task, is over.
        let second = session.dataTask(with: url(server, "/hello"))
        second.resume()
        #expect(waitUntil(timeout: 5) { server.requestCount == 2 })
        // The delegate queue drains the first task (it queued first), which is held, then the second.
        queue.isSuspended = false
        #expect(delegate.waitForCompletion())
        #expect(delegate.log.withLock { $0.messages } == ["response 200", "data", "metrics", "complete"])
        #expect(task.state == .suspended)
        task.resume()
        #expect(waitUntil(timeout: 5) { delegate.log.withLock { $0.messages.count } == 8 })
        #expect(task.state == .completed)
    }

    @Test func metricsDescribeTheExchange() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate()
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }

        session.dataTask(with: url(server, "/hello")).resume()
        #expect(delegate.waitForCompletion())
        let first = try #require(delegate.log.withLock { $0.metrics.first?.transactionMetrics.first })
        delegate.reset()
        session.dataTask(with: url(server, "/hello")).resume()
        #expect(delegate.waitForCompletion())
        let second = try #require(delegate.log.withLock { $0.metrics.first?.transactionMetrics.first })

        #expect(first.isReusedConnection == false)
        let dates = [first.fetchStartDate, first.domainLookupStartDate, first.domainLookupEndDate,
                     first.connectStartDate, first.connectEndDate, first.requestStartDate, first.requestEndDate,
                     first.responseStartDate, first.responseEndDate]
        let known = dates.compactMap { $0 }
        #expect(known.count == dates.count)
        #expect(known == known.sorted())
        #expect(first.secureConnectionStartDate == nil)
        #expect(first.networkProtocolName == "http/1.1")
        #expect(first.remoteAddress == "127.0.0.1")
        #expect(first.remotePort == String(server.port))
        #expect(first.localAddress == "127.0.0.1")
        #expect(first.countOfRequestHeaderBytesSent > 40)
        #expect(first.countOfRequestBodyBytesSent == 0)
        #expect(first.countOfResponseBodyBytesReceived == 5)
        #expect(first.countOfResponseHeaderBytesReceived > 30)
        #expect((first.response as? HTTPURLResponse)?.statusCode == 200)

        #expect(second.isReusedConnection)
        #expect(second.domainLookupStartDate == nil && second.connectStartDate == nil)
        #expect(second.requestStartDate != nil && second.responseEndDate != nil)
    }

    @Test func poolCountersShowTheLimitAndTheQueue() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 2
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let slow = url(server, "/slow")
        let done = LockedBox(0)
        for _ in 0..<5 {
            session.dataTask(with: slow) { _, _, _ in done.withLock { $0 += 1 } }.resume()
        }
        #expect(waitUntil(timeout: 3) { session.connectionPoolCounters(for: slow).waiting == 3 })
        #expect(session.connectionPoolCounters(for: slow).open == 2)
        #expect(waitUntil(timeout: 10) { done.withLock { $0 } == 5 })
        #expect(waitUntil(timeout: 2) { session.connectionPoolCounters(for: slow) ==
            ConnectionPoolCounters(connecting: 0, idle: 2, leased: 0, waiting: 0) })
        #expect(server.peakConcurrentConnections == 2)
    }

    @Test func gzipBodiesAreDecodedAndCountedAsReceived() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate()
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url(server, "/gzip"))
        task.resume()
        #expect(delegate.waitForCompletion())
        #expect(delegate.log.withLock { $0.data } == Data(String(repeating: "hello, gzip\n", count: 100).utf8))
        #expect(task.countOfBytesReceived == 43)
        #expect(task.countOfBytesExpectedToReceive == 43)
        #expect((task.response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
    }

    // MARK: Task snapshots

    /// Reads the session's task snapshot from inside a delegate message (on the delegate queue).
    final class SnapshotDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // `seen` is a LockedBox
        let seen = LockedBox<[Int]?>(nil)

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
            seen.withLock { $0 = session.currentTasks.map(\.taskIdentifier) }
            completionHandler(.allow)
        }
    }

    @Test func currentTasksIsASynchronousSnapshotEvenOnTheDelegateQueue() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = SnapshotDelegate()
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let slow = session.dataTask(with: url(server, "/slow"))
        let hello = session.dataTask(with: url(server, "/hello"))
        #expect(session.currentTasks.map(\.taskIdentifier) == [slow.taskIdentifier, hello.taskIdentifier])
        hello.resume()
        #expect(waitUntil(timeout: 5) { delegate.seen.withLock { $0 } != nil })
        #expect(delegate.seen.withLock { $0 } == [slow.taskIdentifier, hello.taskIdentifier])
        #expect(waitUntil(timeout: 5) { session.currentTasks.map(\.taskIdentifier) == [slow.taskIdentifier] })
    }

    @Test func noTaskIsReportedOnceInvalidateAndCancelWasCalled() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .default, delegate: RecordingDataDelegate(), delegateQueue: nil)
        session.dataTask(with: url(server, "/slow")).resume()
        _ = session.dataTask(with: url(server, "/slow"))
        #expect(session.currentTasks.count == 2)
        session.invalidateAndCancel()
        #expect(session.currentTasks.isEmpty)
        let reported = LockedBox<[URLSessionTask]?>(nil)
        session.getAllTasks { tasks in reported.withLock { $0 = tasks } }
        #expect(waitUntil(timeout: 5) { reported.withLock { $0 } != nil })
        #expect(reported.withLock { $0 }?.isEmpty == true)
    }
}
