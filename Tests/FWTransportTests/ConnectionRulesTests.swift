import Foundation
import FWLoop
import FWTransport
import FWWire
import Testing
import TestSupport

// Connection-level rules of CONFORMANCE.md end to end: Expect: 100-continue, interim responses, the
// request's own Connection: close, per-transport limits, and byte tracing.
@Suite struct ConnectionRulesTests {
    private static let bigBody = [UInt8](repeating: 0x61, count: 1024 * 1024 + 1)

    @Test func aLargeBodyWaitsForContinueAndIsSentAfterIt() throws {
        let server = try ScriptedServer { connection in
            guard let head = try connection.readRequestHead() else { return }
            #expect(head.header("Expect") == "100-continue")
            try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
            let body = try connection.readBytes(count: Self.bigBody.count)
            let text = String(body.count)
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.count)\r\n\r\n\(text)")
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let outcome = fixture.run(getRequest(port: server.port, method: "PUT", body: Self.bigBody))
        #expect(outcome.error == nil)
        #expect(outcome.bodyText == String(Self.bigBody.count))
        #expect(server.scriptErrors.isEmpty)
    }

    // Without `100 Continue` the body goes out after the wait: 1 s, or half the request's idle timeout when
    // that is shorter (0.6 s here), so a server that never sends `100` cannot time out a short request.
    @Test(arguments: [5000, 600])
    func withoutContinueTheBodyIsSentAfterTheWait(idleMilliseconds: Int) throws {
        let server = try ScriptedServer { connection in
            guard try connection.readRequestHead() != nil else { return }
            let body = try connection.readBytes(count: Self.bigBody.count)
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            #expect(body == Self.bigBody)
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let outcome = fixture.run(getRequest(port: server.port, method: "PUT", body: Self.bigBody,
                                             idleTimeout: .milliseconds(idleMilliseconds)))
        #expect(outcome.error == nil)
        #expect(outcome.bodyText == "ok")
        #expect(server.scriptErrors.isEmpty)
    }

    @Test func aFinalStatusBeforeContinueMeansTheBodyIsNeverSent() throws {
        let server = try ScriptedServer { connection in
            guard try connection.readRequestHead() != nil else { return }
            try connection.write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 4\r\n\r\nnope")
            // The client must close without sending a byte of the body.
            #expect(connection.waitForClose(timeout: 3))
            #expect(throws: (any Error).self) { try connection.readBytes(count: 1) }
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let outcome = fixture.run(getRequest(port: server.port, method: "PUT", body: Self.bigBody))
        #expect(outcome.head?.status == 401)
        #expect(outcome.bodyText == "nope")
        #expect(waitUntil(timeout: 3) { server.connectionCount == 1 && server.scriptErrors.isEmpty })
    }

    @Test func interimResponsesAreReportedAndSkipped() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" +
                                 "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let delegate = RecordingDelegate()
        fixture.transport.execute(getRequest(port: server.port), delegate: delegate)
        let outcome = delegate.outcome()
        #expect(outcome.head?.status == 200)
        #expect(outcome.bodyText == "x")
        let interim = delegate.recorded.compactMap { event -> Int? in
            if case .informational(let head) = event { return head.status }
            return nil
        }
        #expect(interim == [103, 102])
    }

    @Test func anUnsolicitedSwitchingProtocolsIsAnError() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        #expect(fixture.run(getRequest(port: server.port)).error?.isBadResponse == true)
    }

    @Test func theRequestsOwnConnectionCloseEndsTheConnection() throws {
        let server = try LoopbackHTTPServer { _ in .ok("x") }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        var headers = HTTPHeaders()
        headers.add(name: "Connection", value: "close")
        #expect(fixture.run(getRequest(port: server.port, headers: headers)).bodyText == "x")
        #expect(fixture.run(getRequest(port: server.port)).bodyText == "x")
        #expect(server.connectionCount == 2)
    }

    @Test func limitsAreErrorsNotTruncation() throws {
        let server = try LoopbackHTTPServer { _ in .ok("x", headers: [("A", "1"), ("B", "2")]) }
        defer { server.stop() }
        var limits = HTTPLimits()
        limits.maxHeaderCount = 2
        let fixture = try TransportFixture(HTTPTransport.Configuration(limits: limits))
        defer { fixture.close() }
        let outcome = fixture.run(getRequest(port: server.port))
        #expect(outcome.error?.isBadResponse == true)
        #expect(outcome.head == nil)
    }

    @Test func tracingReportsTheExactBytesBothWays() throws {
        let reply = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX-Odd:  spaced \r\n\r\nabc"
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write(reply)
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        var request = getRequest(port: server.port, method: "POST", body: Array("body".utf8))
        request.tracesBytes = true
        let delegate = RecordingDelegate()
        fixture.transport.execute(request, delegate: delegate)
        _ = delegate.outcome()
        var written: [UInt8] = [], read: [UInt8] = [], head: [UInt8] = []
        for event in delegate.recorded {
            switch event {
            case .wireWrite(let bytes): written += bytes
            case .wireRead(let bytes): read += bytes
            case .headSent(let bytes): head = bytes
            default: break
            }
        }
        #expect(read == Array(reply.utf8))
        #expect(written == head + Array("body".utf8))
        #expect(written == server.requests.first.map { $0.rawHead + $0.body })
    }

    @Test func aConnectionCarriesAtMostMaxRequests() throws {
        let server = try LoopbackHTTPServer { _ in .ok("x") }
        defer { server.stop() }
        let fixture = try TransportFixture(HTTPTransport.Configuration(maxRequestsPerConnection: 2))
        defer { fixture.close() }
        for _ in 0..<5 { #expect(fixture.run(getRequest(port: server.port)).bodyText == "x") }
        #expect(server.connectionCount == 3)
    }

    @Test func pausedReadingAppliesBackpressureAndStopsTheIdleTimeout() throws {
        let total = 32 * 1024 * 1024
        let written = LockedBox(0)
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n")
            let chunk = [UInt8](repeating: 0x62, count: 64 * 1024)
            for _ in 0..<(total / chunk.count) {
                try connection.write(chunk)
                written.withLock { $0 += chunk.count }
            }
            _ = connection.waitForClose(timeout: 5)
        }
        defer { server.stop() }
        let loops = try ManualEventLoopGroup()
        let fixture = TransportFixture(group: loops.group)
        defer { fixture.close() }
        let delegate = RecordingDelegate()
        let id = fixture.transport.execute(getRequest(port: server.port, idleTimeout: .milliseconds(300)),
                                           delegate: delegate)
        fixture.transport.setReadingPaused(true, for: id, version: 1)
        #expect(waitUntil(timeout: 5) { written.withLock { $0 } > 0 }, "the server started writing")
        // Far past the idle timeout: a paused request must not time out, and the server stalls once the
        // socket buffers are full.
        try loops.advanceTime(by: .seconds(5))
        #expect(!delegate.recorded.contains { $0.isTerminal })
        #expect(written.withLock { $0 } < total)
        fixture.transport.setReadingPaused(false, for: id, version: 2)
        let outcome = delegate.outcome(timeout: 10)
        #expect(outcome.error == nil)
        #expect(outcome.body.count == total)
    }

    @Test func anUnpausedRequestTimesOutOnceItsIdleTimeoutPasses() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            _ = connection.waitForClose(timeout: 5)
        }
        defer { server.stop() }
        let loops = try ManualEventLoopGroup()
        let fixture = TransportFixture(group: loops.group)
        defer { fixture.close() }
        let delegate = RecordingDelegate()
        fixture.transport.execute(getRequest(port: server.port, idleTimeout: .milliseconds(300)), delegate: delegate)
        #expect(waitUntil(timeout: 5) { delegate.recorded.contains { if case .body = $0 { true } else { false } } })
        try loops.advanceTime(by: .milliseconds(299))
        #expect(!delegate.recorded.contains { $0.isTerminal }, "not before the timeout")
        try loops.advanceTime(by: .milliseconds(1))
        #expect(delegate.outcome(timeout: 5).error?.isTimedOut == true)
    }

    @Test func aRequestWaitingForAConnectionTimesOutWithinItsOwnTimeout() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            _ = connection.waitForClose(timeout: 5)
        }
        defer { server.stop() }
        let loops = try ManualEventLoopGroup()
        let fixture = TransportFixture(HTTPTransport.Configuration(maxConnectionsPerHost: 1), group: loops.group)
        defer { fixture.close() }
        let busy = RecordingDelegate(), queued = RecordingDelegate()
        let key = ConnectionKey(scheme: "http", host: "127.0.0.1", port: server.port)
        fixture.transport.execute(getRequest(port: server.port, idleTimeout: .seconds(60)), delegate: busy)
        #expect(waitUntil(timeout: 5) { server.connectionCount == 1 })
        // The server accepts before the client's loop sees its connection made: until then the first request
        // waits too.
        #expect(waitUntil(timeout: 5) { fixture.transport.counters(for: key).waiting == 0 })
        fixture.transport.execute(getRequest(port: server.port, idleTimeout: .milliseconds(300)), delegate: queued)
        #expect(fixture.transport.counters(for: key).waiting == 1)
        try loops.advanceTime(by: .milliseconds(299))
        #expect(queued.recorded.isEmpty, "still waiting")
        try loops.advanceTime(by: .milliseconds(1))
        #expect(queued.outcome(timeout: 5).error?.isTimedOut == true)
        #expect(fixture.transport.counters(for: key).waiting == 0)
        #expect(!busy.recorded.contains { $0.isTerminal }, "the request on the connection is left alone")
    }
}
