import FWLoop
import FWTLS
import FWWire
import Testing
import TestSupport

@testable import FWTransport

// `HTTPTransport.Configuration.channelLoops` against real loopback peers: a transport whose pool runs on group
// A (one loop) and whose channels run on group B (one loop). A stream opened by `openStream`, a data request's
// connection detached into a stream after its response head, and a WebSocket after its 101 (plain, with frames
// that came in the same segment as the 101; and over TLS) all run on B: every delegate callback and completion
// is checked to run on B's thread, bytes and messages go both ways, and A's pool no longer counts a connection
// it handed over.

@Suite struct HTTPTransportChannelLoopsTests {
    /// A transport on A whose channels run on B.
    struct Fixture {
        let pool: EventLoopGroup
        let channels: EventLoopGroup
        let transport: HTTPTransport

        init(_ configuration: HTTPTransport.Configuration = HTTPTransport.Configuration()) throws {
            pool = try EventLoopGroup(loopCount: 1, namePrefix: "fw-pool")
            channels = try EventLoopGroup(loopCount: 1, namePrefix: "fw-channels")
            var configuration = configuration
            configuration.channelLoops = channels
            transport = HTTPTransport(configuration: configuration, group: pool)
        }

        var loopA: EventLoop { pool.loops[0] }
        var loopB: EventLoop { channels.loops[0] }

        func close() {
            transport.shutdown()
            pool.shutdown()
            channels.shutdown()
        }
    }

    /// Counts callbacks that ran on a thread other than `loop`'s.
    final class ThreadCheck: Sendable {
        let loop: EventLoop
        let offLoop = LockedBox<[String]>([])
        let calls = LockedBox<[String]>([])

        init(_ loop: EventLoop) {
            self.loop = loop
        }

        func note(_ what: String) {
            let onLoop = loop.inEventLoop
            calls.withLock { $0.append(what) }
            if !onLoop { offLoop.withLock { $0.append(what) } }
        }
    }

    // MARK: Streams

    /// Hears a stream channel's ends, checking the thread.
    final class StreamRecorder: StreamChannelDelegate {
        let check: ThreadCheck
        let finished = LockedBox<TransportError??>(nil)

        init(_ check: ThreadCheck) {
            self.check = check
        }

        func streamChannelReadClosed(_ channel: StreamChannel) { check.note("readClosed") }
        func streamChannelWriteClosed(_ channel: StreamChannel) { check.note("writeClosed") }
        func streamChannel(_ channel: StreamChannel, didFinishWith error: TransportError?) {
            check.note("finished")
            finished.withLock { $0 = .some(error) }
        }
    }

    /// Reads until `count` bytes (or the end) arrived; every completion is checked.
    static func read(_ count: Int, from channel: StreamChannel, check: ThreadCheck) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<100 where bytes.count < count {
            let result = LockedBox<Result<StreamReadResult, TransportError>?>(nil)
            channel.read(minLength: 1, maxLength: count - bytes.count, timeout: .seconds(10)) { answer in
                check.note("read")
                result.withLock { $0 = answer }
            }
            _ = waitUntil(timeout: 15) { result.withLock { $0 != nil } }
            guard case .success(let read)? = result.withLock({ $0 }) else { break }
            bytes += read.bytes
            if read.atEOF { break }
        }
        return bytes
    }

    /// Writes `text`, reads its echo, then ends the stream both ways: the write side, then the read side at
    /// the echo peer's end.
    static func echoThenEnd(_ text: String, on channel: StreamChannel, recorder: StreamRecorder) -> [UInt8] {
        let written = LockedBox<TransportError??>(nil)
        channel.write(Array(text.utf8), timeout: .seconds(10)) { error in
            recorder.check.note("write")
            written.withLock { $0 = .some(error) }
        }
        let echoed = read(text.utf8.count, from: channel, check: recorder.check)
        #expect(written.withLock { $0 }.map { $0 == nil } == true, "the write completed")
        channel.closeWrite()
        #expect(read(1, from: channel, check: recorder.check).isEmpty, "the peer ended after our end")
        _ = waitUntil(timeout: 15) { recorder.finished.withLock { $0 != nil } }
        return echoed
    }

    @Test func openStreamConnectsAndRunsTheChannelOnTheChannelLoops() throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let fixture = try Fixture()
        defer { fixture.close() }
        let check = ThreadCheck(fixture.loopB)
        let opened = LockedBox<Result<StreamChannel, TransportError>?>(nil)
        fixture.transport.openStream(host: "127.0.0.1", port: peer.echoPort, connectTimeout: .seconds(10)) { result in
            check.note("opened")
            opened.withLock { $0 = result }
        }
        _ = waitUntil(timeout: 15) { opened.withLock { $0 != nil } }
        let channel = try #require(try opened.withLock { $0 }?.get())
        #expect(channel.loop === fixture.loopB)

        let recorder = StreamRecorder(check)
        channel.start(delegate: recorder)
        #expect(Self.echoThenEnd("ping over B", on: channel, recorder: recorder) == Array("ping over B".utf8))
        #expect(recorder.finished.withLock { $0 }.map { $0 == nil } == true, "a clean end")
        #expect(check.calls.withLock { $0 }.contains("finished"))
        #expect(check.offLoop.withLock { $0 }.isEmpty, "every callback ran on B")
    }

    /// Detaches its request's connection into a stream as soon as the response head arrives; records the
    /// body bytes that came before (the stream's first bytes, as a stream task's prefix).
    final class DetachingDelegate: TransportTaskDelegate {
        let transport: HTTPTransport
        let loopA: EventLoop
        let body = LockedBox<[UInt8]>([])
        let events = LockedBox<[String]>([])
        /// The channel, and whether the detach completion ran on A (the connection's loop).
        let detached = LockedBox<(channel: StreamChannel?, onA: Bool)?>(nil)

        init(transport: HTTPTransport, loopA: EventLoop) {
            self.transport = transport
            self.loopA = loopA
        }

        func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
            switch event {
            case .head:
                events.withLock { $0.append("head") }
                transport.detachStream(id) { [loopA, detached] channel in
                    detached.withLock { $0 = (channel, loopA.inEventLoop) }
                }
            case .body(let bytes): body.withLock { $0 += bytes }
            case .end: events.withLock { $0.append("end") }
            case .failed: events.withLock { $0.append("failed") }
            default: break
            }
        }
    }

    @Test func aDetachedConnectionMovesToTheChannelLoopsWithItsBytesAndLeavesThePool() throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let fixture = try Fixture()
        defer { fixture.close() }
        let delegate = DetachingDelegate(transport: fixture.transport, loopA: fixture.loopA)
        let request = getRequest(port: peer.httpPort, idleTimeout: .seconds(10))
        _ = fixture.transport.execute(request, delegate: delegate)
        _ = waitUntil(timeout: 15) { delegate.detached.withLock { $0 != nil } }
        let detached = try #require(delegate.detached.withLock { $0 })
        let channel = try #require(detached.channel)
        #expect(detached.onA, "the detach completion runs on the connection's loop")
        #expect(channel.loop === fixture.loopB)
        #expect(delegate.events.withLock { $0 } == ["head"], "the request ends without a further event")
        _ = waitUntil(timeout: 15) { fixture.transport.counters(for: request.key).open == 0 }
        #expect(fixture.transport.counters(for: request.key) == ConnectionPoolCounters(), "gone from A's pool")

        let check = ThreadCheck(fixture.loopB)
        let recorder = StreamRecorder(check)
        // The body bytes delivered before the detach come first (a stream task's prefix), then what the
        // parser held unread (the channel's first bytes), then the peer's echo.
        let prefix = delegate.body.withLock { $0 }
        channel.start(delegate: recorder, prefix: prefix)
        let hello = Self.read(6, from: channel, check: check)
        #expect(hello == Array("hello\n".utf8))
        #expect(Self.echoThenEnd("echo on B", on: channel, recorder: recorder) == Array("echo on B".utf8))
        #expect(recorder.finished.withLock { $0 }.map { $0 == nil } == true, "a clean end")
        #expect(check.offLoop.withLock { $0 }.isEmpty, "every callback ran on B")
    }

    // MARK: WebSockets

    /// Hears a WebSocket channel, checking the thread.
    final class WebSocketRecorder: WebSocketChannelDelegate {
        let check: ThreadCheck
        let messages = LockedBox<[WebSocketMessage]>([])
        let closure = LockedBox<WebSocketClosure?>(nil)

        init(_ check: ThreadCheck) {
            self.check = check
        }

        func webSocketChannel(_ channel: WebSocketChannel, didReceive message: WebSocketMessage) {
            check.note("message")
            messages.withLock { $0.append(message) }
        }

        func webSocketChannel(_ channel: WebSocketChannel, didReceiveClose frame: WebSocketCloseFrame) {
            check.note("closeReceived")
        }

        func webSocketChannel(_ channel: WebSocketChannel, didFinish closure: WebSocketClosure) {
            check.note("finished")
            self.closure.withLock { $0 = closure }
        }
    }

    static func upgradeRequest(scheme: String, port: Int, path: String,
                               upgrade: WebSocketUpgrade) -> TransportRequest {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1:\(port)")
        var request = TransportRequest(key: ConnectionKey(scheme: scheme, host: "127.0.0.1", port: port),
                                       head: HTTPRequestHead(method: "GET", target: path, headers: headers),
                                       idleTimeout: .seconds(10))
        request.webSocket = upgrade
        return request
    }

    /// Upgrades `request`, checks the channel is on B and out of A's pool, sends `send`, asks for `count`
    /// messages, closes, and returns what arrived.
    static func exchange(_ fixture: Fixture, _ request: TransportRequest, send: String?,
                         messages count: Int) throws -> (WebSocketRecorder, [WebSocketMessage]) {
        let delegate = RecordingDelegate()
        _ = fixture.transport.execute(request, delegate: delegate)
        let outcome = delegate.outcome(timeout: 15)
        #expect(outcome.error == nil)
        let channel = try #require(outcome.channel)
        #expect(channel.loop === fixture.loopB)
        _ = waitUntil(timeout: 15) { fixture.transport.counters(for: request.key).open == 0 }
        #expect(fixture.transport.counters(for: request.key) == ConnectionPoolCounters(), "gone from A's pool")

        let recorder = WebSocketRecorder(ThreadCheck(fixture.loopB))
        channel.start(delegate: recorder)
        if let send {
            let sent = LockedBox<TransportError??>(nil)
            channel.send(.text(send)) { error in
                recorder.check.note("sent")
                sent.withLock { $0 = .some(error) }
            }
            _ = waitUntil(timeout: 15) { sent.withLock { $0 != nil } }
            #expect(sent.withLock { $0 }.map { $0 == nil } == true, "the send completed")
        }
        for _ in 0..<count { channel.requestMessage() }
        _ = waitUntil(timeout: 15) { recorder.messages.withLock { $0.count } >= count }
        channel.close(WebSocketCloseFrame(code: .normalClosure))
        _ = waitUntil(timeout: 15) { recorder.closure.withLock { $0 != nil } }
        #expect(recorder.closure.withLock { $0 }?.error == nil, "the close handshake completed")
        return (recorder, recorder.messages.withLock { $0 })
    }

    @Test func aWebSocketRunsOnTheChannelLoopsAndFramesThatCameWithThe101ComeFirst() throws {
        let upgrade = try WebSocketUpgrade(offersCompression: false)
        let accept = upgrade.handshake.expectedAccept
        // The 101 and a first frame in one write: the frame waits in the parser's buffer, and goes with the
        // socket to B. Then one frame echoed, and our close answered.
        let server = try ScriptedServer { connection in
            _ = try connection.readRequestHead()
            try connection.write(Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n").utf8)
                + [0x81, 0x05] + Array("first".utf8))
            for opcode: UInt8 in [0x81, 0x88] {
                let head = try connection.readBytes(count: 2)
                let key = try connection.readBytes(count: 4)
                let payload = try connection.readBytes(count: Int(head[1] & 0x7F))
                let unmasked = payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
                guard head[0] == opcode else { throw TestSupportError.malformedRequest("frame \(head)") }
                try connection.write([opcode, UInt8(unmasked.count)] + unmasked)
            }
        }
        defer { server.stop() }
        let fixture = try Fixture()
        defer { fixture.close() }
        let request = Self.upgradeRequest(scheme: "ws", port: server.port, path: "/", upgrade: upgrade)
        let (recorder, messages) = try Self.exchange(fixture, request, send: "echo on B", messages: 2)
        #expect(messages == [.text("first"), .text("echo on B")])
        #expect(server.scriptErrors.isEmpty)
        #expect(recorder.check.calls.withLock { $0 }.contains("finished"))
        #expect(recorder.check.offLoop.withLock { $0 }.isEmpty, "every callback ran on B")
    }

    @Test func aWebSocketOverTLSRunsOnTheChannelLoops() throws {
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        let fixture = try Fixture(HTTPTransport.Configuration(tls: TLSConfiguration(trustRoots: .certificates(root))))
        defer { fixture.close() }
        let request = Self.upgradeRequest(scheme: "wss", port: server.tlsPort, path: "/echo",
                                          upgrade: try WebSocketUpgrade())
        let (recorder, messages) = try Self.exchange(fixture, request, send: "secret on B", messages: 1)
        #expect(messages == [.text("secret on B")])
        #expect(recorder.check.calls.withLock { $0 }.contains("finished"))
        #expect(recorder.check.offLoop.withLock { $0 }.isEmpty, "every callback ran on B")
    }
}
