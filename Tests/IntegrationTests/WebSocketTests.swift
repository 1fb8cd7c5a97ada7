import Foundation
import FWNetworking
import FWTLS
import Testing
import TestSupport

// URLSessionWebSocketTask end to end against Debian's python3-websockets (Fixtures/websocket/server.py), a
// WebSocket implementation nobody here wrote: echo with and without permessage-deflate, subprotocols, a
// large fragmented message, pings both ways, closes from either side, an abrupt end, an oversized message,
// and wss:// with the fixtures' CA.
@Suite struct WebSocketTests {
    /// What the delegate heard, in order.
    final class Recorder: NSObject, URLSessionWebSocketDelegate, @unchecked Sendable { // state: `events` is a LockedBox
        enum Event: Equatable {
            case opened(String?)
            case closed(URLSessionWebSocketTask.CloseCode, String?)
            case completed(URLError.Code?)
        }

        let events = LockedBox<[Event]>([])
        /// The status of each transaction the task's metrics list.
        let transactions = LockedBox<[Int?]>([])

        func urlSession(_ session: URLSession, task: URLSessionTask,
                        didFinishCollecting metrics: URLSessionTaskMetrics) {
            let statuses = metrics.transactionMetrics.map { ($0.response as? HTTPURLResponse)?.statusCode }
            transactions.withLock { $0 = statuses }
        }

        func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                        didOpenWithProtocol protocol: String?) {
            events.withLock { $0.append(.opened(`protocol`)) }
        }

        func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
            events.withLock { $0.append(.closed(closeCode, reason.map { String(decoding: $0, as: UTF8.self) })) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            events.withLock { $0.append(.completed((error as? URLError)?.code)) }
        }

        /// Waits (bounded) for the completion and returns every event.
        func awaitCompletion() -> [Event] {
            _ = waitUntil(timeout: 30) {
                events.withLock { $0.contains { if case .completed = $0 { true } else { false } } }
            }
            return events.withLock { $0 }
        }
    }

    private static func session(_ recorder: Recorder, systemRoots: Bool = false) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        // A bound on every task: a receive that is never answered fails instead of hanging the suite.
        configuration.timeoutIntervalForResource = 60
        configuration.tlsTrustRoots = systemRoots
            ? .system : .certificates(try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        return URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
    }

    private static func url(_ port: Int, _ path: String, scheme: String = "ws") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    private static func text(_ message: URLSessionWebSocketTask.Message) -> String? {
        if case .string(let text) = message { return text }
        return nil
    }

    // MARK: Messages

    @Test(arguments: [false, true])
    func echoesTextAndBinary(compressed: Bool) async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let port = compressed ? server.deflatePort : server.plainPort

        let probe = session.webSocketTask(with: Self.url(port, "/extensions"))
        probe.resume()
        #expect(Self.text(try await probe.receive()) == (compressed ? "permessage-deflate" : ""))
        probe.cancel(with: .normalClosure, reason: nil)

        let task = session.webSocketTask(with: Self.url(port, "/echo"))
        task.resume()
        let repetitive = String(repeating: "all work and no play ", count: 5000)
        try await task.send(.string("héllo, wörld"))
        try await task.send(.data(Data([0, 1, 2, 255])))
        try await task.send(.string(repetitive))
        try await task.send(.data(Data()))
        #expect(Self.text(try await task.receive()) == "héllo, wörld")
        guard case .data(let binary) = try await task.receive() else { throw URLError(.badServerResponse) }
        #expect(binary == Data([0, 1, 2, 255]))
        #expect(Self.text(try await task.receive()) == repetitive)
        guard case .data(let empty) = try await task.receive() else { throw URLError(.badServerResponse) }
        #expect(empty.isEmpty)
        #expect((task.response as? HTTPURLResponse)?.statusCode == 101)
    }

    @Test(arguments: [(["chat.v1"], "chat.v1"), (["nope", "chat.v2"], "chat.v2"), (["nope"], nil)]
            as [([String], String?)])
    func negotiatesASubprotocol(offered: [String], chosen: String?) async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.plainPort, "/subprotocol"), protocols: offered)
        task.resume()
        #expect(Self.text(try await task.receive()) == chosen ?? "")
        task.cancel(with: .normalClosure, reason: nil)
        #expect(recorder.awaitCompletion().first == .opened(chosen))
    }

    // Issue 28, item 5: what the server sent before it saw our close still answers receive calls, after the
    // task completed too (nobody was asking when the echoes came); then receive fails.
    @Test func echoesSentBeforeTheServerSawOurCloseAreStillReceived() async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.plainPort, "/echo-in-order"))
        task.resume()
        try await task.send(.string("one"))
        try await task.send(.string("two"))
        task.cancel(with: .normalClosure, reason: nil)
        #expect(recorder.awaitCompletion() == [.opened(nil), .closed(.normalClosure, nil), .completed(nil)])
        #expect(Self.text(try await task.receive()) == "one")
        #expect(Self.text(try await task.receive()) == "two")
        await #expect(throws: URLError.self) { _ = try await task.receive() }
    }

    @Test(arguments: [false, true])
    func reassemblesALargeFragmentedMessage(compressed: Bool) async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let session = try Self.session(Recorder())
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(compressed ? server.deflatePort : server.plainPort,
                                                        "/fragments/60/16000"))
        task.resume()
        let letters = (0..<60).map { String(UnicodeScalar(UInt8(97 + $0 % 26))) }
        let expected = letters.map { String(repeating: $0, count: 16000) }.joined()
        #expect(Self.text(try await task.receive()) == expected)
    }

    @Test func pingsAreAnsweredBothWays() async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let session = try Self.session(Recorder())
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.plainPort, "/ping"))
        task.resume()
        try await task.sendPing()
        // The server pinged us first: only our automatic pong lets it send this.
        #expect(Self.text(try await task.receive()) == "pong received")
    }

    // MARK: Closing

    @Test func theServerCloses() async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.plainPort, "/close/1001/bye"))
        task.resume()
        #expect(Self.text(try await task.receive()) == "closing")
        await #expect(throws: URLError.self) { try await task.receive() }
        #expect(recorder.awaitCompletion() == [.opened(nil), .closed(.goingAway, "bye"), .completed(nil)])
        #expect(task.closeCode == .goingAway)
        #expect(task.closeReason == Data("bye".utf8))
        #expect(task.state == .completed)
    }

    @Test func theClientCloses() async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.plainPort, "/echo-in-order"))
        task.resume()
        try await task.send(.string("one"))
        #expect(Self.text(try await task.receive()) == "one")
        task.cancel(with: .normalClosure, reason: Data("done".utf8))
        // The server echoes our close: the handshake completes and the task with it, without an error.
        #expect(recorder.awaitCompletion() == [.opened(nil), .closed(.normalClosure, "done"), .completed(nil)])
        #expect(task.closeCode == .normalClosure)
        // The handshake is the task's one transaction.
        #expect(recorder.transactions.withLock { $0 } == [101])
        await #expect(throws: URLError.self) { try await task.send(.string("too late")) }
    }

    @Test func cancelEndsTheTaskWithCancelled() async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.plainPort, "/echo-in-order"))
        task.resume()
        try await task.send(.string("one"))
        #expect(Self.text(try await task.receive()) == "one")
        let pending = Task { try await task.receive() }
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await pending.value }
        #expect(error?.code == .cancelled)
        #expect(recorder.awaitCompletion() == [.opened(nil), .completed(.cancelled)])
    }

    @Test func anAbruptEndIsALostConnection() async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.plainPort, "/abrupt"))
        task.resume()
        #expect(Self.text(try await task.receive()) == "hello")
        let error = await #expect(throws: URLError.self) { try await task.receive() }
        #expect(error?.code == .networkConnectionLost)
        #expect(recorder.awaitCompletion().last == .completed(.networkConnectionLost))
        #expect(task.closeCode == .abnormalClosure)
    }

    @Test(arguments: [false, true])
    func anOversizedMessageClosesWith1009(compressed: Bool) async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(compressed ? server.deflatePort : server.plainPort,
                                                        "/big/5000"))
        task.maximumMessageSize = 1000
        task.resume()
        let error = await #expect(throws: URLError.self) { try await task.receive() }
        #expect(error?.code == .dataLengthExceedsMaximum)
        #expect(recorder.awaitCompletion().last == .completed(.dataLengthExceedsMaximum))
        #expect(task.closeCode == .messageTooBig)
    }

    // MARK: Handshake

    @Test func wssUsesTheSessionsTrust() async throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let session = try Self.session(Recorder())
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.tlsPort, "/echo", scheme: "wss"))
        task.resume()
        try await task.send(.string("secret"))
        #expect(Self.text(try await task.receive()) == "secret")
        task.cancel(with: .normalClosure, reason: nil)

        let recorder = Recorder()
        let untrusting = try Self.session(recorder, systemRoots: true)
        defer { untrusting.invalidateAndCancel() }
        let refused = untrusting.webSocketTask(with: Self.url(server.tlsPort, "/echo", scheme: "wss"))
        refused.resume()
        let error = await #expect(throws: URLError.self) { try await refused.receive() }
        #expect(error?.code == .serverCertificateHasUnknownRoot)
        #expect(recorder.awaitCompletion() == [.completed(.serverCertificateHasUnknownRoot)])
    }

    /// A loopback server that answers the handshake with `accept` (nil: the right value), then `frames` in the
    /// same write, then closes the connection.
    private static func scriptedPeer(accept: String? = nil, frames: [UInt8]) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            let key = request.header("Sec-WebSocket-Key") ?? ""
            let right = Base64.encode(Digest.sha1.hash(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
            let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(accept ?? right)\r\n\r\n"
            return LoopbackHTTPServer.Reply(bytes: Array(head.utf8) + frames, closeAfter: true)
        }
    }

    @Test func framesThatCameWithThe101AreDecodedFirst() async throws {
        // A text frame "hi" right behind the head, then the end of the connection without a close frame.
        let server = try Self.scriptedPeer(frames: [0x81, 0x02, 0x68, 0x69])
        defer { server.stop() }
        let session = try Self.session(Recorder())
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.port, "/"))
        task.resume()
        #expect(Self.text(try await task.receive()) == "hi")
        let error = await #expect(throws: URLError.self) { try await task.receive() }
        #expect(error?.code == .networkConnectionLost)
    }

    @Test(arguments: [
        ("a wrong accept value", "d3Jvbmc=", [UInt8]()),
        ("a masked frame from the server", nil, [0x81, 0x82, 1, 2, 3, 4, 0x69, 0x6B]),
        ("a reserved opcode", nil, [0x83, 0x00]),
    ] as [(String, String?, [UInt8])])
    func aPeerThatBreaksTheProtocolFailsTheTask(_ why: String, accept: String?, frames: [UInt8]) async throws {
        let server = try Self.scriptedPeer(accept: accept, frames: frames)
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.port, "/"))
        task.resume()
        let error = await #expect(throws: URLError.self) { try await task.receive() }
        #expect(error?.code == .badServerResponse, "\(why)")
        #expect(recorder.awaitCompletion().last == .completed(.badServerResponse))
        if accept == nil { #expect(task.closeCode == .protocolError) }
    }

    @Test func aServerThatDoesNotSwitchFailsTheTask() async throws {
        let server = try PythonHTTPServer(files: ["index.html": Array("plain HTTP".utf8)])
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: Self.url(server.port, "/index.html"))
        task.resume()
        let error = await #expect(throws: URLError.self) { try await task.receive() }
        #expect(error?.code == .badServerResponse)
        #expect(recorder.awaitCompletion() == [.completed(.badServerResponse)])
    }
}
