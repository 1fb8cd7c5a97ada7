import Foundation
import FWTransport
import FWWire
import Testing
import TestSupport

// Streamed request bodies end to end (HTTP1Connection+Writing): exact bytes on the wire, 100-continue,
// backpressure, failures, early responses, resends, and progress.
@Suite struct RequestBodyStreamTests {
    /// Answers 200 with `body` and waits (bounded) for the client to close.
    static func answerOK(_ connection: ScriptedConnection, body: String = "ok") throws {
        try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        _ = connection.waitForClose(timeout: 2)
    }

    private static func upload(port: Int, method: String = "POST", body: TransportRequestBody) -> TransportRequest {
        TransportRequest(key: ConnectionKey(scheme: "http", host: "127.0.0.1", port: port),
                         head: HTTPRequestHead(method: method, target: "/upload", headers: HTTPHeaders()), body: body,
                         idleTimeout: .seconds(5))
    }

    /// A server that answers every request with the number of body bytes it read (after a 100 when the
    /// request expects one).
    private static func countingServer() throws -> ScriptedServer {
        try ScriptedServer { connection in
            while let head = try connection.readRequestHead() {
                if head.header("Expect") != nil { try connection.write("HTTP/1.1 100 Continue\r\n\r\n") }
                let length = Int(head.header("Content-Length") ?? "0") ?? 0
                let text = String(try connection.readBytes(count: length).count)
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.count)\r\n\r\n\(text)")
            }
        }
    }

    // MARK: Framing

    @Test func aStreamOfKnownLengthIsSentWithContentLength() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try Self.answerOK(connection)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let source = TestBodySource { TestBodyProducer(total: 100_000, maxPiece: 30_000) }
        let outcome = fixture.run(Self.upload(port: server.port, body: source.body(length: 100_000)))
        #expect(outcome.error == nil)
        #expect(outcome.bodyText == "ok")
        let request = try #require(server.requests.first)
        #expect(String(decoding: request.rawHead, as: UTF8.self) ==
                "POST /upload HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 100000\r\n\r\n")
        #expect(request.rawBody == TestBodyProducer.content(100_000))
        #expect(source.made.map(\.record.stops) == [1])
    }

    @Test func aStreamOfUnknownLengthIsChunkedAndExpectsContinue() throws {
        let pieces = [26, 26, 8]
        var expected: [UInt8] = []
        var offset = 0
        for size in pieces {
            expected += Array(String(size, radix: 16).utf8) + [13, 10]
            expected += TestBodyProducer.content(size, from: offset) + [13, 10]
            offset += size
        }
        expected += Array("0\r\n\r\n".utf8)
        let wire = expected
        let server = try ScriptedServer { connection in
            guard try connection.readRequestHead() != nil else { return }
            try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
            let raw = try connection.readBytes(count: wire.count)
            #expect(raw == wire)
            try Self.answerOK(connection)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let source = TestBodySource { TestBodyProducer(total: 60, maxPiece: 26) }
        let delegate = RecordingDelegate()
        fixture.transport.execute(Self.upload(port: server.port, body: source.body(length: nil)), delegate: delegate)
        let outcome = delegate.outcome()
        #expect(outcome.error == nil)
        #expect(outcome.bodyText == "ok")
        let request = try #require(server.requests.first)
        #expect(String(decoding: request.rawHead, as: UTF8.self) == "POST /upload HTTP/1.1\r\n" +
                "Host: 127.0.0.1:\(server.port)\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
        // Progress counts payload, never chunk framing.
        #expect(delegate.bodyBytesSentTotals.last == 60)
        #expect(server.scriptErrors.isEmpty)
    }

    // MARK: 100-continue

    @Test func aLargeStreamWaitsForContinueBeforeAskingTheProducer() throws {
        let length = 2 * 1024 * 1024
        let source = TestBodySource { TestBodyProducer(total: length) }
        let server = try ScriptedServer { connection in
            guard let head = try connection.readRequestHead() else { return }
            #expect(head.header("Expect") == "100-continue")
            // The client holds the body for up to a second: nothing was asked of the producer yet.
            #expect(source.made.map(\.record.asks) == [0])
            try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
            let body = try connection.readBytes(count: length)
            #expect(body == TestBodyProducer.content(length))
            try Self.answerOK(connection)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let request = Self.upload(port: server.port, method: "PUT", body: source.body(length: Int64(length)))
        let outcome = fixture.run(request)
        #expect(outcome.error == nil)
        #expect(outcome.bodyText == "ok")
        #expect(server.scriptErrors.isEmpty)
    }

    @Test func aFinalStatusBeforeContinueNeverAsksTheProducerAndStopsItOnce() throws {
        let server = try ScriptedServer { connection in
            guard try connection.readRequestHead() != nil else { return }
            try connection.write("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 2\r\n\r\nno")
            #expect(connection.waitForClose(timeout: 3))
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let source = TestBodySource { TestBodyProducer(total: 10) }
        let outcome = fixture.run(Self.upload(port: server.port, body: source.body(length: nil)))
        #expect(outcome.head?.status == 417)
        #expect(outcome.bodyText == "no")
        let record = try #require(source.made.first?.record)
        #expect(record.asks == 0)
        #expect(record.stops == 1)
        #expect(waitUntil(timeout: 3) { server.connectionCount == 1 && server.scriptErrors.isEmpty })
    }

    // MARK: Producers

    @Test func aProducerAnsweringSlowlyFromAnotherThreadIsWaitedFor() throws {
        let server = try Self.countingServer()
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let source = TestBodySource { TestBodyProducer(total: 200_000, maxPiece: 50_000, delay: 0.02) }
        for attempt in 0..<2 {
            let outcome = fixture.run(Self.upload(port: server.port, body: source.body(length: 200_000)))
            #expect(outcome.error == nil)
            #expect(outcome.bodyText == "200000")
            // A fully sent stream leaves the connection reusable.
            #expect(outcome.connection?.isReused == (attempt == 1))
        }
        for record in source.made.map(\.record) {
            #expect(record.asks == 5)
            #expect(record.maxOutstanding == 1)
            #expect(record.stops == 1)
        }
        #expect(server.connectionCount == 1)
    }

    @Test func aProducerFailingMidBodyFailsOnlyItsRequestAndTheConnectionIsNotReused() throws {
        let server = try ScriptedServer { connection in
            guard let head = try connection.readRequestHead() else { return }
            if head.method == "POST" {
                // The client gives up on the body and closes; nothing completes the declared length.
                _ = connection.waitForClose(timeout: 3)
                return
            }
            try Self.answerOK(connection, body: "x")
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let source = TestBodySource {
            TestBodyProducer(total: 100_000, maxPiece: 40_000, ending: .fail("the disk went away"))
        }
        let failed = fixture.run(Self.upload(port: server.port, body: source.body(length: 300_000)))
        let error = try #require(failed.error)
        #expect(error.isBodyStreamFailed)
        #expect(error.description.contains("the disk went away"))
        #expect(failed.terminalCount == 1)
        #expect(source.made.map(\.record.stops) == [1])

        let next = fixture.run(getRequest(port: server.port))
        #expect(next.bodyText == "x")
        #expect(server.connectionCount == 2)
    }

    @Test func aStreamWithoutAProducerFailsBeforeAnyByteIsSent() throws {
        let server = try ScriptedServer { connection in
            let head = try connection.readRequestHead()
            #expect(head == nil, "the connection closes before the head is written")
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let source = TestBodySource(available: 0) { TestBodyProducer(total: 1) }
        let outcome = fixture.run(Self.upload(port: server.port, body: source.body(length: 1)))
        #expect(outcome.error?.isBodyStreamFailed == true)
        #expect(source.makeCalls == 1)
        #expect(waitUntil(timeout: 3) { server.connectionCount == 1 && server.scriptErrors.isEmpty })
    }

    /// A stream whose producer disagrees with its declared length.
    struct WrongLength: CustomTestStringConvertible, Sendable {
        let declared: Int
        let produced: Int
        var testDescription: String { "declared \(declared), produced \(produced)" }
    }

    @Test(arguments: [WrongLength(declared: 10, produced: 5), WrongLength(declared: 5, produced: 6)])
    func aStreamOfTheWrongLengthFailsAndNothingMisFramedIsSent(_ wrong: WrongLength) throws {
        let sent = min(wrong.declared, wrong.produced)
        let server = try ScriptedServer { connection in
            guard try connection.readRequestHead() != nil else { return }
            #expect(try connection.readBytes(count: sent) == TestBodyProducer.content(sent))
            #expect(connection.waitForClose(timeout: 3))
            // Not one byte past the declared length (or a framing of the short body's end) arrived.
            #expect(throws: (any Error).self) { try connection.readBytes(count: 1) }
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let source = TestBodySource { TestBodyProducer(total: wrong.produced, maxPiece: 3) }
        let outcome = fixture.run(Self.upload(port: server.port, body: source.body(length: Int64(wrong.declared))))
        #expect(outcome.error?.isBodyStreamFailed == true)
        #expect(source.made.map(\.record.stops) == [1])
        #expect(waitUntil(timeout: 3) { server.connectionCount == 1 && server.scriptErrors.isEmpty })
    }

    @Test func aFinalResponseBeforeTheBodyEndsStopsTheProducerOnce() throws {
        let server = try ScriptedServer { connection in
            guard let head = try connection.readRequestHead() else { return }
            if head.method == "POST" {
                _ = try connection.readBytes(count: 10_000)
                try connection.write("HTTP/1.1 413 Content Too Large\r\nContent-Length: 3\r\n\r\nbig")
                #expect(connection.waitForClose(timeout: 3))
                return
            }
            try Self.answerOK(connection, body: "x")
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        // The first piece comes at once; the second waits until the test opens the gate.
        let source = TestBodySource { TestBodyProducer(total: 1_000_000, maxPiece: 10_000, gateAfter: 1) }
        let outcome = fixture.run(Self.upload(port: server.port, body: source.body(length: 1_000_000)))
        #expect(outcome.error == nil)
        #expect(outcome.head?.status == 413)
        #expect(outcome.bodyText == "big")
        let producer = try #require(source.made.first)
        producer.openGate()
        // The late answer to the second ask is ignored; the producer was stopped exactly once.
        #expect(waitUntil(timeout: 3) { producer.record.outstanding == 0 })
        #expect(producer.record.asks == 2)
        #expect(producer.record.stops == 1)

        #expect(fixture.run(getRequest(port: server.port)).bodyText == "x")
        #expect(server.connectionCount == 2)
    }

    // MARK: Resending

    /// A server whose first connection answers one GET, then closes when the next request arrives (as a
    /// server whose keep-alive timer just fired would); later connections count body bytes.
    private static func staleFirstConnectionServer() throws -> ScriptedServer {
        try ScriptedServer { connection in
            if connection.connectionIndex == 0 {
                guard try connection.readRequest() != nil else { return }
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n0")
                _ = try connection.readBytes(count: 1)
                connection.reset()
                return
            }
            guard let head = try connection.readRequestHead() else { return }
            let length = Int(head.header("Content-Length") ?? "0") ?? 0
            let body = try connection.readBytes(count: length)
            #expect(body == TestBodyProducer.content(length))
            let text = String(body.count)
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.count)\r\n\r\n\(text)")
            _ = connection.waitForClose(timeout: 2)
        }
    }

    @Test func aStaleConnectionRetryMakesANewProducer() throws {
        let server = try Self.staleFirstConnectionServer()
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        #expect(fixture.run(getRequest(port: server.port)).bodyText == "0")
        let source = TestBodySource { TestBodyProducer(total: 50_000) }
        let outcome = fixture.run(Self.upload(port: server.port, method: "PUT", body: source.body(length: 50_000)))
        #expect(outcome.error == nil)
        #expect(outcome.bodyText == "50000")
        #expect(source.makeCalls == 2)
        #expect(source.made.map(\.record.stops) == [1, 1])
        #expect(server.connectionCount == 2)
    }

    @Test func noRetryWhenTheStreamCannotBeProducedAgain() throws {
        let server = try Self.staleFirstConnectionServer()
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        #expect(fixture.run(getRequest(port: server.port)).bodyText == "0")
        let source = TestBodySource(available: 1) { TestBodyProducer(total: 50_000) }
        let outcome = fixture.run(Self.upload(port: server.port, method: "PUT", body: source.body(length: 50_000)))
        #expect(outcome.error?.isConnectionLost == true)
        #expect(source.makeCalls == 2)
        #expect(source.made.map(\.record.stops) == [1])
        #expect(server.connectionCount == 1)
    }

    // MARK: Progress and backpressure

    @Test(arguments: [false, true])
    func bodyBytesSentGrowsAndEndsAtTheLength(streamed: Bool) throws {
        let server = try Self.countingServer()
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let length = 300_000
        let source = TestBodySource { TestBodyProducer(total: length) }
        let body = streamed ? source.body(length: Int64(length)) : .bytes(TestBodyProducer.content(length))
        let delegate = RecordingDelegate()
        fixture.transport.execute(Self.upload(port: server.port, body: body), delegate: delegate)
        #expect(delegate.outcome().bodyText == String(length))
        let totals = delegate.bodyBytesSentTotals
        #expect(zip(totals, totals.dropFirst()).allSatisfy { $0 < $1 })
        #expect(totals.last == Int64(length))
        if streamed {
            // A piece is asked for only once the previous one was written whole: one report per piece.
            let piece = TestBodyProducer.maximumPieceSize
            #expect(totals == stride(from: piece, to: length, by: piece).map(Int64.init) + [Int64(length)])
        }
    }

    @Test func overTLSProgressCountsPayloadNotCiphertext() throws {
        // s_server without -www reads and prints the request but never answers.
        let server = try OpenSSLServer.start(www: false)
        defer { server.stop() }
        let configuration = HTTPTransport.Configuration(serverTrustHandler: { _, _, _, decide in decide(.trust) })
        let fixture = try TransportFixture(configuration)
        defer { fixture.close() }

        let length = 200_000
        let source = TestBodySource { TestBodyProducer(total: length) }
        let request = TransportRequest(key: ConnectionKey(scheme: "https", host: "127.0.0.1", port: server.port),
                                       head: HTTPRequestHead(method: "PUT", target: "/", headers: HTTPHeaders()),
                                       body: source.body(length: Int64(length)), idleTimeout: .seconds(5))
        let delegate = RecordingDelegate()
        let id = fixture.transport.execute(request, delegate: delegate)
        #expect(waitUntil(timeout: 5) { delegate.bodyBytesSentTotals.last == Int64(length) })
        let totals = delegate.bodyBytesSentTotals
        #expect(zip(totals, totals.dropFirst()).allSatisfy { $0 < $1 })
        fixture.transport.cancel(id)
        #expect(delegate.outcome().error?.isCancelled == true)
        #expect(source.made.map(\.record.stops) == [1])
    }

    @Test func aLargeStreamToASlowReaderKeepsOnePieceInFlight() throws {
        let length = 64 * 1024 * 1024
        let source = TestBodySource { TestBodyProducer(total: length) }
        let server = try ScriptedServer { connection in
            guard try connection.readRequestHead() != nil else { return }
            try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
            var received = 0
            var last: [UInt8] = []
            while received < length {
                last = try connection.readBytes(count: min(256 * 1024, length - received))
                received += last.count
                guard received % (4 * 1024 * 1024) == 0 else { continue }
                // Slow: stop reading until the client has filled the socket's buffers with a whole piece more than
                // was read (it is asked for a piece only once the one before was written whole).
                let ahead = min(length, received + 2 * TestBodyProducer.maximumPieceSize)
                #expect(waitUntil(timeout: 5) { (source.made.first?.record.produced ?? 0) >= ahead })
            }
            #expect(last == TestBodyProducer.content(last.count, from: length - last.count))
            let text = String(received)
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.count)\r\n\r\n\(text)")
            _ = connection.waitForClose(timeout: 2)
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }

        let outcome = fixture.run(Self.upload(port: server.port, body: source.body(length: Int64(length))), timeout: 20)
        #expect(outcome.error == nil)
        #expect(outcome.bodyText == String(length))
        let record = try #require(source.made.first?.record)
        #expect(record.maxOutstanding == 1)
        #expect(record.largestAsk <= TestBodyProducer.maximumPieceSize)
        #expect(record.largestPiece <= TestBodyProducer.maximumPieceSize)
        #expect(record.asks == length / TestBodyProducer.maximumPieceSize + 1)
        #expect(record.stops == 1)
    }
}
