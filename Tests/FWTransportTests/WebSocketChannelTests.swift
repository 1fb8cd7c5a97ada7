// WebSocketChannel on a real loopback socket, the peer played by hand with blocking POSIX calls: messages
// nobody asked for are parked and, at the limit, the socket is no longer read until they are asked for
// (backpressure), while a pong behind a parked message still answers its ping; pings are answered with masked
// pongs at once; our close completes the handshake when the peer echoes it, or times out.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

@testable import FWLoop
@testable import FWTransport
import FWWire

@Suite struct WebSocketChannelTests {
    /// What the delegate heard (loop thread in, test thread out).
    final class Recorder: WebSocketChannelDelegate {
        let messages = LockedBox<[WebSocketMessage]>([])
        let closure = LockedBox<WebSocketClosure?>(nil)

        func webSocketChannel(_ channel: WebSocketChannel, didReceive message: WebSocketMessage) {
            messages.withLock { $0.append(message) }
        }

        func webSocketChannel(_ channel: WebSocketChannel, didReceiveClose frame: WebSocketCloseFrame) {}

        func webSocketChannel(_ channel: WebSocketChannel, didFinish closure: WebSocketClosure) {
            self.closure.withLock { $0 = closure }
        }
    }

    /// A channel on its own loop, over a TCP connection whose other end (`peer`) the test reads and writes.
    struct Fixture {
        let group: EventLoopGroup
        let channel: WebSocketChannel
        let peer: Int32

        init(closeTimeout: Duration = .seconds(5), parkLimit: Int = WebSocketChannel.defaultParkLimit) throws {
            group = try EventLoopGroup(loopCount: 1, namePrefix: "fw-ws-test")
            let connection = try LoopbackConnection()
            peer = connection.peer
            var upgrade = try WebSocketUpgrade()
            upgrade.closeTimeout = closeTimeout
            let core = ChannelCore(socket: connection.client, loop: group.next(), hangUp: .endsChannel)
            channel = WebSocketChannel(core: core, received: [], upgrade: upgrade,
                                       agreement: .init(subprotocol: nil, deflate: nil), parkLimit: parkLimit)
        }

        /// Writes `bytes` to the channel (blocking).
        func send(_ bytes: [UInt8]) {
            LoopbackConnection.send(bytes, to: peer)
        }

        /// Reads exactly `count` bytes the channel wrote (bounded wait).
        func receive(_ count: Int) -> [UInt8] {
            LoopbackConnection.receive(count, from: peer)
        }

        /// The channel's oldest parked message and whether it watches its socket for reading, read on its loop.
        func readingState() -> (parked: WebSocketMessage?, reading: Bool) {
            let answer = LockedBox<(WebSocketMessage?, Bool)?>(nil)
            channel.loop.execute { [channel] in
                answer.withLock { $0 = (channel.parked.first, channel.core.interest.contains(.readable)) }
            }
            _ = waitUntil(timeout: 10) { answer.withLock { $0 != nil } }
            return answer.withLock { $0 } ?? (nil, true)
        }

        func stop() {
            close(peer)
            channel.abort(.cancelled)
            group.shutdown()
        }
    }

    /// The payload of a masked frame of `count` payload bytes (under 126) that starts `bytes`.
    private static func unmask(_ bytes: [UInt8]) -> [UInt8] {
        let key = Array(bytes[2..<6])
        return bytes[6...].enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    @Test func messagesNobodyAskedForStopReadingAtTheLimitUntilTheyAreAskedFor() throws {
        // A limit of one byte: the first message parked stops reading.
        let fixture = try Fixture(parkLimit: 1)
        defer { fixture.stop() }
        let recorder = Recorder()
        fixture.send([0x81, 0x01, 0x61, 0x81, 0x01, 0x62, 0x81, 0x01, 0x63])
        fixture.channel.start(delegate: recorder)
        _ = waitUntil(timeout: 10) { fixture.readingState().parked != nil }
        var state = fixture.readingState()
        #expect(state.parked == .text("a"))
        #expect(!state.reading)
        #expect(recorder.messages.withLock { $0 }.isEmpty)

        fixture.channel.requestMessage()
        _ = waitUntil(timeout: 10) { fixture.readingState().parked == .text("b") }
        #expect(recorder.messages.withLock { $0 } == [.text("a")])
        fixture.channel.requestMessage()
        fixture.channel.requestMessage()
        _ = waitUntil(timeout: 10) { recorder.messages.withLock { $0.count } == 3 }
        state = fixture.readingState()
        #expect(recorder.messages.withLock { $0 } == [.text("a"), .text("b"), .text("c")])
        #expect(state.parked == nil)
        #expect(state.reading)
    }

    @Test func pingsAreAnsweredWithMaskedPongsAndOurCloseCompletesWhenEchoed() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let recorder = Recorder()
        fixture.channel.start(delegate: recorder)
        fixture.send([0x89, 0x02, 0x68, 0x69])
        let pong = fixture.receive(8)
        #expect(pong.prefix(2) == [0x8A, 0x82])
        #expect(Self.unmask(pong) == [0x68, 0x69])

        fixture.channel.close(WebSocketCloseFrame(code: .normalClosure, reason: "ok"))
        let close = fixture.receive(10)
        #expect(close.prefix(2) == [0x88, 0x84])
        #expect(Self.unmask(close) == [0x03, 0xE8, 0x6F, 0x6B])
        fixture.send([0x88, 0x02, 0x03, 0xE8])
        _ = waitUntil(timeout: 10) { recorder.closure.withLock { $0 != nil } }
        let closure = recorder.closure.withLock { $0 }
        #expect(closure?.received == WebSocketCloseFrame(code: .normalClosure))
        #expect(closure?.error == nil)
    }

    @Test func aPeerThatNeverAnswersOurCloseTimesOut() throws {
        let fixture = try Fixture(closeTimeout: .milliseconds(50))
        defer { fixture.stop() }
        let recorder = Recorder()
        fixture.channel.start(delegate: recorder)
        let sent = LockedBox<TransportError??>(nil)
        fixture.channel.close(WebSocketCloseFrame(code: .goingAway))
        #expect(fixture.receive(8).prefix(2) == [0x88, 0x82])
        // A send after our close fails at once: no data frame may follow a close.
        fixture.channel.send(.text("late")) { error in sent.withLock { $0 = .some(error) } }
        _ = waitUntil(timeout: 10) { recorder.closure.withLock { $0 != nil } }
        #expect(recorder.closure.withLock { $0?.error?.isTimedOut } == true)
        #expect(sent.withLock { $0??.isConnectionLost } == true)
    }

    @Test func aPongBehindAParkedMessageStillAnswersItsPing() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let recorder = Recorder()
        fixture.channel.start(delegate: recorder)
        let ponged = LockedBox<TransportError??>(nil)
        fixture.channel.sendPing { error in ponged.withLock { $0 = .some(error) } }
        #expect(fixture.receive(6).prefix(2) == [0x89, 0x80])
        // A message nobody asked for, then the pong.
        fixture.send([0x81, 0x01, 0x61, 0x8A, 0x00])
        _ = waitUntil(timeout: 10) { ponged.withLock { $0 != nil } }
        #expect(ponged.withLock { $0.map { $0 == nil } } == true)
        #expect(fixture.readingState() == (.text("a"), true))
    }
}
