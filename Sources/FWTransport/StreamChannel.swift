import FWLoop
import FWTLS

// MARK: - StreamChannel
//
// The executor of one raw byte stream: a TCP connection opened for a stream task
// (`HTTPTransport.openStream`), or an HTTP connection taken out of the pool after its response head
// (`HTTPTransport.detachStream`). It is the stream driver of that `ChannelCore` (the socket, the TLS engine
// while TLS is on), and runs `StreamChannelStateMachine`'s actions (`StreamChannel+IO.swift`). The peer's end
// closes only the read half: writes go on.
//
// Reads are served in order from one buffer of received plaintext; the socket is read only while a read
// waits for bytes (backpressure: a stream nobody reads holds the peer back through TCP). Writes are queued
// and complete once the socket took their last byte. Each read and write may have a timeout that ends it
// with `timedOut` (a write that timed out may still go out: its bytes stay queued, in order).
//
// Sendable because every mutable stored property is touched on `loop`'s thread only: the public methods hop
// there with `loop.execute`.

/// What one read returned: the bytes (at most the maximum asked for) and whether the stream ended after them.
public struct StreamReadResult: Sendable, Equatable {
    /// The bytes read (empty at the end of the stream).
    public var bytes: [UInt8]
    /// True when the peer ended its side and nothing more will come after `bytes`.
    public var atEOF: Bool

    /// A result of `bytes`, at the end of the stream when `atEOF`.
    public init(bytes: [UInt8], atEOF: Bool) {
        self.bytes = bytes
        self.atEOF = atEOF
    }
}

/// Hears how a started stream channel's halves close, on the channel's loop thread (return quickly).
public protocol StreamChannelDelegate: AnyObject, Sendable {
    /// The peer ended its side (end of stream, or its close_notify on TLS).
    func streamChannelReadClosed(_ channel: StreamChannel)
    /// The write side was shut down (`closeWrite()` after the queue drained).
    func streamChannelWriteClosed(_ channel: StreamChannel)
    /// The channel ended: both halves closed (nil), or a failure or abort (the error); nothing follows.
    /// Reads and writes still waiting were failed before this.
    func streamChannel(_ channel: StreamChannel, didFinishWith error: TransportError?)
}

/// Decides whether to trust the server a stream's TLS handshake reached: call `decide` once, on any thread,
/// with nil to trust, or with the error that ends the stream.
public typealias StreamTrustHandler = @Sendable (
    ServerTrust, _ decide: @escaping @Sendable (TransportError?) -> Void
) -> Void

/// One raw byte stream over a socket. Thread-safe: every method hops onto the channel's loop.
public final class StreamChannel: ChannelDriver, @unchecked Sendable { // loop-thread-only state (see above)
    /// A completed read: the bytes, or why the read failed.
    public typealias ReadCompletion = @Sendable (Result<StreamReadResult, TransportError>) -> Void
    /// A completed write: nil once the socket took every byte, else why it failed.
    public typealias WriteCompletion = @Sendable (TransportError?) -> Void

    let loop: EventLoop
    let transport: HTTPTransport
    /// The host the stream was opened to (the TLS server name).
    public let host: String
    /// The port the stream was opened to.
    public let port: Int

    /// A read waiting for bytes.
    struct PendingRead {
        var id: UInt64
        var minLength: Int
        var maxLength: Int
        var completion: ReadCompletion
        var timer: TimerID?
    }

    /// A write waiting for the socket to take its last byte (`end`, in bytes queued so far; nil while held).
    struct PendingWrite {
        var id: UInt64
        var bytes: [UInt8]
        var end: Int?
        var completion: WriteCompletion
        var timer: TimerID?
    }

    // MARK: Loop-thread state

    /// Loop thread only: the rules.
    var machine = StreamChannelStateMachine()
    /// Loop thread only: the socket, the engine while TLS is on (or being started or stopped), wire bytes
    /// waiting for the socket.
    var core: ChannelCore
    /// Loop thread only: decides the trust of the TLS handshake under way.
    var trustHandler: StreamTrustHandler?
    /// Loop thread only: plaintext received and not read yet.
    var received: [UInt8]
    /// Loop thread only: reads waiting, oldest first.
    var reads: [PendingRead] = []
    /// Loop thread only: writes queued (with an end) or held while the security layer changes, in order.
    var pendingWrites: [PendingWrite] = []
    /// Loop thread only: numbers reads and writes (for their timers).
    var nextID: UInt64 = 1
    /// Loop thread only: set by `start`, dropped when the channel finishes.
    var delegate: (any StreamChannelDelegate)?
    /// Loop thread only: the outcome once finished (nil inside: a clean end).
    var outcome: TransportError??
    /// Loop thread only: the buffer plaintext is read into (ciphertext is read into the engine).
    lazy var readBuffer = [UInt8](repeating: 0, count: ChannelCore.readSize)

    /// A channel over `core` (new, or handed over by an HTTP connection), whose first bytes are `received`.
    init(core: ChannelCore, received: [UInt8], transport: HTTPTransport, host: String, port: Int) {
        self.core = core
        self.loop = core.loop
        self.transport = transport
        self.host = host
        self.port = port
        self.received = received
        machine = StreamChannelStateMachine(secure: core.tls != nil)
    }

    // MARK: Public API (any thread)

    /// Starts watching the socket and reporting to `delegate` (once); `prefix` are bytes that came before
    /// the channel existed, read ahead of everything else.
    public func start(delegate: any StreamChannelDelegate, prefix: [UInt8] = []) {
        loop.execute { [self] in begin(delegate, prefix: prefix) }
    }

    /// Reads at least `minLength` and at most `maxLength` bytes; fewer than `minLength` only at the end of
    /// the stream. `completion` runs on the loop; `timeout` (nil: none) ends the read with `timedOut`.
    public func read(minLength: Int, maxLength: Int, timeout: Duration?, completion: @escaping ReadCompletion) {
        loop.execute { [self] in enqueueRead(minLength: minLength, maxLength: maxLength, timeout: timeout,
                                             completion: completion) }
    }

    /// Writes `bytes` after what was written before; `completion` runs on the loop once the socket took
    /// them, or with the error that ended the channel first (or `timedOut` after `timeout`).
    public func write(_ bytes: [UInt8], timeout: Duration?, completion: @escaping WriteCompletion) {
        loop.execute { [self] in enqueueWrite(bytes, timeout: timeout, completion: completion) }
    }

    /// Stops reading: reads still waiting complete with what the buffer holds, at the end of the stream.
    public func closeRead() {
        loop.execute { [self] in shutReading() }
    }

    /// Shuts the write side down once what was queued is written (after close_notify on TLS).
    public func closeWrite() {
        loop.execute { [self] in shutWriting() }
    }

    /// Starts TLS on the socket once what was queued is written; `trust` decides whether to trust the server.
    public func startTLS(trust: @escaping StreamTrustHandler) {
        loop.execute { [self] in beginTLS(trust: trust) }
    }

    /// Ends TLS once what was queued is written (both close_notify), and goes on in plaintext.
    public func stopTLS() {
        loop.execute { [self] in endTLS() }
    }

    /// Drops the connection at once; reads and writes waiting fail with `error`.
    public func abort(_ error: TransportError) {
        loop.execute { [self] in run(machine.fail(error)) }
    }
}
