import Dispatch
import FWLoop
import FWTransport
import FWWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// The transport end to end against scripted loopback servers: exact bytes in, exact bytes out.
@Suite struct HTTPTransportTests {
    @Test func writesTheExactRequestAndParsesTheResponse() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-One: 1\r\n\r\nhello")
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        var headers = HTTPHeaders()
        headers.add(name: "X-Test", value: "yes")
        let outcome = fixture.run(getRequest(port: server.port, path: "/a?b=c", method: "POST", headers: headers,
                                             body: Array("data".utf8)))
        #expect(outcome.error == nil)
        #expect(outcome.head?.status == 200)
        #expect(outcome.head?.headers.first(name: "x-one") == "1")
        #expect(outcome.bodyText == "hello")
        #expect(outcome.terminalCount == 1)
        let request = try #require(server.requests.first)
        #expect(String(decoding: request.rawHead, as: UTF8.self) ==
                "POST /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Test: yes\r\nContent-Length: 4\r\n\r\n")
        #expect(request.body == Array("data".utf8))
    }

    @Test func reusesAKeptAliveConnection() throws {
        let server = try LoopbackHTTPServer { _ in .ok("x") }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let first = fixture.run(getRequest(port: server.port))
        let second = fixture.run(getRequest(port: server.port))
        #expect(first.bodyText == "x" && second.bodyText == "x")
        #expect(first.connection?.isReused == false)
        #expect(second.connection?.isReused == true)
        #expect(server.connectionCount == 1)
        let key = ConnectionKey(scheme: "http", host: "127.0.0.1", port: server.port)
        #expect(waitUntil(timeout: 2) { fixture.transport.counters(for: key).idle == 1 })
    }

    // Issue 23 (stage A1): `.connected` is sent only to a request that asks for it, first and once.
    @Test(arguments: [false, true])
    func connectedIsReportedOnlyWhenAskedFor(_ asked: Bool) throws {
        let server = try LoopbackHTTPServer { _ in .ok("x") }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        for _ in 0..<2 {
            var request = getRequest(port: server.port)
            request.reportsConnection = asked
            let delegate = RecordingDelegate()
            _ = fixture.transport.execute(request, delegate: delegate)
            #expect(delegate.outcome().bodyText == "x")
            let connected = delegate.recorded.enumerated().filter {
                if case .connected = $0.element { return true }
                return false
            }
            #expect(connected.map(\.offset) == (asked ? [0] : []))
        }
        #expect(server.connectionCount == 1)
    }

    // Issue 23 (stage C): `.metrics` goes to a request that asks for it, once per attempt and just before its
    // end, on a new connection and on a reused one; a request that does not ask gets the same response without.
    @Test(arguments: [false, true])
    func metricsAreReportedOnlyWhenAskedFor(_ asked: Bool) throws {
        let server = try LoopbackHTTPServer { _ in .ok("x") }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        for round in 0..<2 {
            var request = getRequest(port: server.port)
            request.reportsMetrics = asked
            let delegate = RecordingDelegate()
            _ = fixture.transport.execute(request, delegate: delegate)
            #expect(delegate.outcome().bodyText == "x")
            let events = delegate.recorded
            let metrics = events.compactMap { event -> TransportMetrics? in
                if case .metrics(let metrics) = event { return metrics }
                return nil
            }
            #expect(metrics.count == (asked ? 1 : 0))
            if let metrics = metrics.first {
                #expect(metrics.isReusedConnection == (round == 1))
                #expect(metrics.responseBodyBytes == 1)
                let beforeEnd = events.count >= 2 ? events[events.count - 2] : nil
                if case .metrics? = beforeEnd {} else { Issue.record("metrics not just before the end: \(events)") }
            }
        }
        #expect(server.connectionCount == 1)
    }

    @Test func connectionCloseFromTheServerOpensANewConnection() throws {
        let server = try LoopbackHTTPServer { _ in .ok("x", headers: [("Connection", "close")]) }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        #expect(fixture.run(getRequest(port: server.port)).bodyText == "x")
        #expect(fixture.run(getRequest(port: server.port)).bodyText == "x")
        #expect(server.connectionCount == 2)
    }

    @Test func neverOpensMoreThanTheLimit() throws {
        let server = try LoopbackHTTPServer { _ in
            var reply = LoopbackHTTPServer.Reply.ok("slow")
            reply.delay = 0.05
            return reply
        }
        defer { server.stop() }
        let fixture = try TransportFixture(HTTPTransport.Configuration(maxConnectionsPerHost: 3))
        defer { fixture.close() }

        let delegates = (0..<20).map { _ in RecordingDelegate() }
        for delegate in delegates { fixture.transport.execute(getRequest(port: server.port), delegate: delegate) }
        let outcomes = delegates.map { $0.outcome(timeout: 10) }
        #expect(outcomes.allSatisfy { $0.bodyText == "slow" })
        #expect(server.peakConcurrentConnections == 3)
        #expect(server.connectionCount == 3)
    }

    @Test func aRefusedConnectionFailsWithCannotConnect() throws {
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let outcome = fixture.run(getRequest(port: refusing.port))
        #expect(outcome.error?.isCannotConnectToHost == true)
        #expect(outcome.terminalCount == 1)
    }

    @Test func anUnknownHostFailsWithCannotFindHost() throws {
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let request = TransportRequest(key: ConnectionKey(scheme: "http", host: "no-such-host.invalid", port: 80),
                                       head: HTTPRequestHead(method: "GET", target: "/", headers: HTTPHeaders()))
        let outcome = fixture.run(request, timeout: 15)
        #expect(outcome.error?.isCannotFindHost == true)
    }

    @Test func aMalformedResponseFailsOnlyItsRequest() throws {
        let server = try ScriptedServer { connection in
            guard let request = try connection.readRequest() else { return }
            if request.target == "/bad" {
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello")
            } else {
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let bad = fixture.run(getRequest(port: server.port, path: "/bad"))
        #expect(bad.error?.isBadResponse == true)
        #expect(fixture.run(getRequest(port: server.port, path: "/good")).bodyText == "ok")
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            _ = connection.waitForClose(timeout: 5)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let outcome = fixture.run(getRequest(port: server.port, idleTimeout: .milliseconds(300)))
        #expect(outcome.error?.isTimedOut == true)
    }

    @Test func aCloseInTheMiddleOfTheBodyIsConnectionLost() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
            connection.close()
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let outcome = fixture.run(getRequest(port: server.port))
        #expect(outcome.error?.isConnectionLost == true)
        #expect(outcome.bodyText == "half")
    }

    @Test func aResetIsConnectionLost() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
            connection.reset()
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        #expect(fixture.run(getRequest(port: server.port)).error?.isConnectionLost == true)
    }

    @Test func aStaleKeptAliveConnectionIsRetriedOnANewOne() throws {
        // The first connection answers once, says nothing about closing, then closes as soon as the
        // next request arrives (as a server whose keep-alive timer just fired would).
        let server = try ScriptedServer { connection in
            guard try connection.readRequest() != nil else { return }
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n\(connection.connectionIndex)")
            if connection.connectionIndex == 0 {
                _ = try connection.readBytes(count: 1)
                connection.close()
            } else {
                _ = connection.waitForClose(timeout: 2)
            }
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        #expect(fixture.run(getRequest(port: server.port)).bodyText == "0")
        let second = fixture.run(getRequest(port: server.port))
        #expect(second.error == nil)
        #expect(second.bodyText == "1")
        #expect(server.connectionCount == 2)
    }

    @Test func bytesWithNoRequestOutstandingCloseTheConnection() throws {
        let server = try ScriptedServer { connection in
            guard try connection.readRequest() != nil else { return }
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na")
            if connection.connectionIndex == 0 {
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale")
            }
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        #expect(fixture.run(getRequest(port: server.port)).bodyText == "a")
        let key = ConnectionKey(scheme: "http", host: "127.0.0.1", port: server.port)
        #expect(waitUntil(timeout: 2) { fixture.transport.counters(for: key).open == 0 })
        let second = fixture.run(getRequest(port: server.port))
        #expect(second.bodyText == "a")
        #expect(server.connectionCount == 2)
    }

    @Test func cancellingWaitingAndRunningRequestsEndsEachOnce() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            _ = connection.waitForClose(timeout: 5)
        }
        defer { server.stop() }
        let fixture = try TransportFixture(HTTPTransport.Configuration(maxConnectionsPerHost: 1))
        defer { fixture.close() }

        let running = RecordingDelegate(), waiting = RecordingDelegate()
        let runningID = fixture.transport.execute(getRequest(port: server.port), delegate: running)
        let waitingID = fixture.transport.execute(getRequest(port: server.port), delegate: waiting)
        #expect(waitUntil(timeout: 2) { server.requests.count == 1 })
        fixture.transport.cancel(waitingID)
        fixture.transport.cancel(runningID)
        fixture.transport.cancel(runningID)
        #expect(waiting.outcome().error?.isCancelled == true)
        #expect(running.outcome().error?.isCancelled == true)
        #expect(waiting.outcome().terminalCount == 1)
        #expect(running.outcome().terminalCount == 1)
    }

    @Test func headerInjectionIsRefusedBeforeAnyConnection() throws {
        let fixture = try TransportFixture()
        defer { fixture.close() }
        var headers = HTTPHeaders()
        headers.add(name: "X-Evil", value: "a\r\nInjected: yes")
        let outcome = fixture.run(getRequest(port: 9, headers: headers))
        #expect(outcome.error?.isInvalidRequest == true)
        #expect(outcome.connection == nil)
    }

    // MARK: Interim responses (issue 18, item 7)

    enum InterimFlood: String, CaseIterable, Sendable {
        /// `100 Continue` after `100 Continue`, as fast as the socket takes them.
        case endless
        /// A `102 Processing` every 0.3 s: each one used to reset the idle timer.
        case slow
    }

    @Test(arguments: InterimFlood.allCases)
    func interimResponsesAreBoundedAndDoNotKeepTheRequestAlive(_ flood: InterimFlood) throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            for _ in 0..<(flood == .endless ? 100_000 : 30) {
                try connection.write("HTTP/1.1 \(flood == .endless ? "100 Continue" : "102 Processing")\r\n\r\n")
                if flood == .slow, !connection.pause(0.3) { return }
            }
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let start = ContinuousClock.now
        let outcome = fixture.run(getRequest(port: server.port, idleTimeout: .seconds(1)), timeout: 8)
        let elapsed = ContinuousClock.now - start
        #expect(flood == .endless ? outcome.error?.isBadResponse == true : outcome.error?.isTimedOut == true)
        #expect(elapsed < .seconds(3))
    }

    // MARK: Reusing kept-alive connections (issue 18, item 8)

    // The server closes the kept-alive connection while the loop is busy, so the close is pending (in the
    // kernel, not yet seen by the loop) when the POST leases the connection: the connection must notice
    // it before writing, and the POST goes out once, on a new connection. The order is held by semaphores:
    // the loop is blocked first, then the server closes (and the client's kernel has the FIN), then the POST
    // is handed over, then the loop runs.
    @Test func aPostNeverGoesOutOnAConnectionTheServerClosedWhileIdle() throws {
        let mayClose = DispatchSemaphore(value: 0), closed = DispatchSemaphore(value: 0)
        let server = try ScriptedServer { connection in
            guard let request = try connection.readRequest() else { return }
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n\(request.method == "GET" ? "ok" : "up")")
            if connection.connectionIndex == 0 {
                _ = mayClose.wait(timeout: .now() + 5)
                connection.closeOnceAcknowledged()
                closed.signal()
            } else {
                _ = connection.waitForClose(timeout: 2)
            }
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        #expect(fixture.run(getRequest(port: server.port)).bodyText == "ok")
        let loopBlocked = DispatchSemaphore(value: 0), loopReleased = DispatchSemaphore(value: 0)
        fixture.group.next().execute {
            loopBlocked.signal()
            _ = loopReleased.wait(timeout: .now() + 5)
        }
        #expect(loopBlocked.wait(timeout: .now() + 5) == .success)
        mayClose.signal()
        #expect(closed.wait(timeout: .now() + 5) == .success)
        let delegate = RecordingDelegate()
        fixture.transport.execute(getRequest(port: server.port, method: "POST", body: Array("data".utf8)),
                                  delegate: delegate)
        loopReleased.signal()
        let post = delegate.outcome(timeout: 5)
        #expect(post.error == nil)
        #expect(post.bodyText == "up")
        #expect(server.requests.filter { $0.method == "POST" }.count == 1)
        #expect(server.connectionCount == 2)
    }

    struct ReplayRow: Sendable, CustomTestStringConvertible {
        var method: String
        var header: String?
        var retried: Bool
        var testDescription: String { "\(method) \(header ?? "without a key")" }
    }

    // The server reads the request on the reused connection, then closes it without a response byte: only
    // a request that may be replayed goes out again (Go's rule: idempotent methods, or an Idempotency-Key).
    @Test(arguments: [
        ReplayRow(method: "POST", header: nil, retried: false),
        ReplayRow(method: "POST", header: "Idempotency-Key", retried: true),
        ReplayRow(method: "POST", header: "X-Idempotency-Key", retried: true),
        ReplayRow(method: "PUT", header: nil, retried: true),
    ])
    func aRequestTheServerMayHaveSeenIsReplayedOnlyWhenSafe(_ row: ReplayRow) throws {
        let server = try ScriptedServer { connection in
            guard try connection.readRequest() != nil else { return }
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n\(connection.connectionIndex)")
            if connection.connectionIndex == 0 {
                _ = try connection.readRequest()
                connection.close()
            } else {
                _ = connection.waitForClose(timeout: 2)
            }
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        #expect(fixture.run(getRequest(port: server.port)).bodyText == "0")
        var headers = HTTPHeaders()
        if let header = row.header { headers.add(name: header, value: "7f3a") }
        let second = fixture.run(getRequest(port: server.port, method: row.method, headers: headers,
                                            body: Array("data".utf8)))
        #expect((second.error?.isConnectionLost ?? false) == !row.retried)
        #expect(second.bodyText == (row.retried ? "1" : ""))
    }
}
