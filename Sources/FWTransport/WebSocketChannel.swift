import FWLoop
import FWTLS
import FWWire

// MARK: - WebSocketChannel
//
// The executor of one WebSocket connection after its handshake, and the WebSocket driver of the
// `ChannelCore` (socket, TLS engine) that the HTTP/1.1 connection handed over: it drives FWWire's
// `WebSocketConnectionStateMachine` with what it reads; frames go out through `WebSocketFrameEncoder`, masked
// with a fresh key from the system CSPRNG for every frame, compressed when permessage-deflate was agreed.
//
//   created ──start──▶ open ──close(_:) sent, or the peer's close answered──▶ closing ──▶ finished
//                       │ the peer's close arrives after ours: finished (clean)
//                       │ protocol error: our close with its code, then finished (error)
//                       │ end of stream, reset, TLS failure: finished (error)
//                       └ abort: finished (error), no close frame
//
// A ping is answered with a pong at once; a pong goes to the oldest `sendPing` waiting. Messages go to the
// delegate one per `requestMessage()`: a message that arrives with no demand is parked, and reading and
// decoding go on (so that pings and pongs behind it are still answered) until the parked messages hold
// `parkLimit` bytes; then the socket is no longer read (nor are later frames decoded) until demand takes
// them — a slow receiver holds the peer back through TCP instead of filling memory. Once our close is out, the
// socket is read whatever the demand, so that the peer's close is seen: the messages the peer sent before it
// saw our close are still delivered or parked, and those past `parkLimit` that nobody asked for are dropped;
// the close handshake waits `closeTimeout` at most. The end reaches the delegate only after the messages
// parked before it were asked for — except after our close, when whoever closed may ask for nothing more: the
// parked messages then go to the delegate unasked, right before the end. After the handshake completes both
// ways the socket closes (the peer has nothing more to say).
//
// Sendable because every mutable stored property is touched on `loop`'s thread only: the public methods
// hop there with `loop.execute`.

/// A WebSocket message, text or binary.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (valid UTF-8).
    case text(String)
    /// A binary message.
    case binary([UInt8])
}

/// How a WebSocket channel ended.
public struct WebSocketClosure: Sendable {
    /// The peer's close frame, when one arrived.
    public var received: WebSocketCloseFrame?
    /// Why the channel ended without a complete close handshake (nil when the handshake completed).
    public var error: TransportError?
}

/// Hears what a started WebSocket channel receives, on the channel's loop thread (return quickly).
public protocol WebSocketChannelDelegate: AnyObject, Sendable {
    /// A message, one for each `requestMessage()` — except after our close, when the messages parked at the end
    /// come unasked, right before `didReceiveClose` / `didFinish`.
    func webSocketChannel(_ channel: WebSocketChannel, didReceive message: WebSocketMessage)
    /// The peer's close frame arrived (and was answered), reported after the messages before it; `didFinish`
    /// follows.
    func webSocketChannel(_ channel: WebSocketChannel, didReceiveClose frame: WebSocketCloseFrame)
    /// The channel ended; nothing follows. Sends and pings still waiting were failed before this.
    func webSocketChannel(_ channel: WebSocketChannel, didFinish closure: WebSocketClosure)
}

/// One WebSocket connection, handed out of the pool by `TransportEvent.upgraded`. Thread-safe: every method
/// hops onto the connection's loop.
public final class WebSocketChannel: ChannelDriver, @unchecked Sendable { // loop-thread-only state (see above)
    /// A completion of a send or a ping: nil on success.
    public typealias Completion = @Sendable (TransportError?) -> Void

    let loop: EventLoop
    /// The subprotocol the server chose, or nil.
    public let subprotocol: String?
    /// Whether permessage-deflate was agreed.
    public let isCompressed: Bool
    let closeTimeout: Duration

    // MARK: Loop-thread state

    /// Loop thread only: the socket, the TLS engine, the write queue. The peer's end ends the channel.
    var core: ChannelCore
    /// Loop thread only: the protocol rules.
    var machine: WebSocketConnectionStateMachine
    /// Loop thread only.
    var encoder = WebSocketFrameEncoder(role: .client)
    /// Loop thread only: compresses outgoing messages (nil: they go uncompressed).
    let deflater: WebSocketDeflate.Deflater?
    /// Loop thread only: set by `start`, dropped when the channel finishes.
    var delegate: (any WebSocketChannelDelegate)?
    /// Loop thread only: messages asked for and not delivered yet.
    var demand = 0
    /// Loop thread only: messages that arrived without demand, oldest first, and their size.
    var parked: [WebSocketMessage] = []
    var parkedBytes = 0
    /// How many bytes of parked messages stop reading (a message counts at least one byte).
    let parkLimit: Int
    /// The default `parkLimit`: 1 MiB.
    static let defaultParkLimit = 1024 * 1024
    /// Loop thread only: sends that complete once the core's `bytesWritten` reaches their end.
    var sendCompletions: [(end: Int, completion: Completion)] = []
    /// Loop thread only: pings waiting for their pong, oldest first.
    var pongWaiters: [Completion] = []
    /// Loop thread only: the close handshake's timeout, once our close is out.
    var closeTimer: TimerID?
    /// Loop thread only: our close went out before the peer's arrived (`close(_:)`).
    var closedFirst = false
    /// Loop thread only: the socket closes as soon as the write queue is empty.
    var closesWhenFlushed = false
    /// Loop thread only: the closure to report once the socket closed.
    var pendingClosure: WebSocketClosure?
    /// Loop thread only: the peer's close frame, once it arrived.
    var receivedClose: WebSocketCloseFrame?
    /// Loop thread only: how the channel ended, once it did.
    var outcome: WebSocketClosure?
    /// Loop thread only: the channel has finished.
    var finished: Bool { outcome != nil }
    /// Loop thread only: the buffer plaintext is read into (ciphertext is read into the engine).
    lazy var readBuffer = [UInt8](repeating: 0, count: ChannelCore.readSize)

    /// A channel over `core` (handed over after the handshake), whose first bytes are `received`.
    init(core: ChannelCore, received: [UInt8], upgrade: WebSocketUpgrade, agreement: WebSocketHandshake.Agreement,
         parkLimit: Int = defaultParkLimit) {
        self.parkLimit = parkLimit
        self.core = core
        self.loop = core.loop
        self.closeTimeout = upgrade.closeTimeout
        subprotocol = agreement.subprotocol
        isCompressed = agreement.deflate != nil
        let inflater = agreement.deflate.flatMap { WebSocketDeflate.Inflater(parameters: $0) }
        deflater = agreement.deflate.flatMap { WebSocketDeflate.Deflater(parameters: $0) }
        machine = WebSocketConnectionStateMachine(role: .client, limits: upgrade.limits, inflater: inflater)
        if !received.isEmpty { machine.feed(received) }
    }

    // MARK: Public API (any thread)

    /// Starts reading and delivering to `delegate` (once; frames that came with the handshake's response
    /// are decoded first).
    public func start(delegate: any WebSocketChannelDelegate) {
        loop.execute { [self] in begin(delegate) }
    }

    /// Asks for one more message: the delegate hears the next one as soon as it is there.
    public func requestMessage() {
        loop.execute { [self] in
            // After the end only messages parked before it are still handed out.
            guard !finished || !parked.isEmpty else { return }
            demand += 1
            deliverParked()
        }
    }

    /// Sends `message` (compressed when agreed); `completion` runs on the loop once the socket took all of it,
    /// or with the error that ended the channel first.
    public func send(_ message: WebSocketMessage, completion: @escaping Completion) {
        loop.execute { [self] in enqueue(message, completion: completion) }
    }

    /// Sends a ping; `completion` runs on the loop when its pong arrives, or with the error that ended the
    /// channel first.
    public func sendPing(completion: @escaping Completion) {
        loop.execute { [self] in ping(completion: completion) }
    }

    /// Starts the close handshake with `frame` (code and reason); the channel finishes when the peer answers
    /// or `closeTimeout` passes. Nothing happens once a close was sent or the channel finished.
    public func close(_ frame: WebSocketCloseFrame) {
        loop.execute { [self] in startClosing(frame) }
    }

    /// Drops the connection at once, without a close handshake, and the messages nobody asked for yet; the
    /// channel finishes with `error` (unless it finished already).
    public func abort(_ error: TransportError) {
        loop.execute { [self] in drop(error) }
    }
}
