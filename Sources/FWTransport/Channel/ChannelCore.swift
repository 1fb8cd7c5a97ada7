import FWLoop
import FWTLS

// MARK: - ChannelCore
//
// The I/O core of one socket, whatever protocol speaks on it (HTTP/1.1, WebSocket, a raw stream): the socket,
// its registration and interest, the TLS engine, the queue of wire bytes waiting for the socket (plaintext is
// encrypted as it is queued), the byte counters, the peer's end and the close rules. The protocol on top is
// its driver (`ChannelDriver`), which runs the read loop and readiness handling written once in
// ChannelDriver.swift. Loop thread only, like its driver.
//
//   unconnected ──adopt(socket)──▶ open ──the peer's end (EOF, close_notify)──▶ open, peer ended
//                                   │ close                                       │ close
//                                   ▼                                             ▼
//                                 closed ◀────────────────────────────────────────┘
//   open, or open with the peer ended ──handOver──▶ handed over
//
// - unconnected: no socket yet (an HTTP/1.1 connection resolving and connecting); closing it closes nothing.
// - open: read while the driver wants bytes, written while bytes wait. What the peer's end means is the
//   driver's `HangUpRule`: the end of the channel's use (HTTP/1.1, WebSocket: the socket is no longer
//   watched), or only of its read half (a raw stream writes on, so the socket stays watched until the
//   kernel reports the hang-up).
// - closed: gracefully (close_notify on TLS when asked, then FIN), or with RST when bytes were left unwritten;
//   the engine and the queue are dropped. Closing twice is a no-op.
// - handed over: the socket, the engine, the queue and the counters moved into a new core for the next
//   driver (a WebSocket or a stream after HTTP/1.1); this one owns nothing, so closing it closes nothing.
//   The new core may belong to another loop: the socket is deregistered here (on this core's loop) and the
//   new core touches nothing of its loop until its driver starts watching there.

/// What the peer's end of stream means to the protocol on a channel.
enum HangUpRule: Equatable {
    /// Nothing more is read or watched: the protocol on the channel ends (or finishes what it buffered).
    case endsChannel
    /// Only the read half ends: writes go on, so the socket stays watched (for writability) until the
    /// kernel reports the hang-up.
    case closesReadHalf
}

/// Whether a handshake answers a server's certificate request itself or asks its driver.
enum ClientIdentityRule: Equatable {
    /// Report `.clientIdentityRequested` (the driver asks its delegate, then `provideClientIdentity`).
    case ask
    /// Send no certificate and go on (stream tasks present no client identity).
    case sendNone
}

/// The I/O core of one socket (see above).
struct ChannelCore {
    /// Where the core stands.
    enum Phase: Equatable {
        case unconnected
        case open
        case closed
        case handedOver
    }

    /// How much one read takes at most.
    static let readSize = 64 * 1024

    let loop: EventLoop
    /// What the peer's end of stream means to the driver.
    let hangUp: HangUpRule
    private(set) var phase = Phase.unconnected
    /// The socket, while open.
    private(set) var socket: Socket?
    /// The TLS engine while TLS is on (or being started or stopped).
    private(set) var tls: TLSEngine?
    /// The socket's registration with the loop, while watched.
    private(set) var registration: RegistrationID?
    /// A registration the socket came with (its connect attempt's), until `watch` takes it over.
    private var inheritedRegistration: RegistrationID?
    /// What the loop watches the socket for.
    private(set) var interest: IOInterest = []
    /// Wire bytes waiting for the socket.
    private var writes = PendingWrites()
    /// The peer ended its side (end of stream, or close_notify): nothing more is read.
    private(set) var peerEnded = false

    /// A core that owns `socket` (connected, not watched yet), plaintext until `startTLS`.
    init(socket: Socket, loop: EventLoop, hangUp: HangUpRule) {
        self.init(loop: loop, hangUp: hangUp)
        adopt(socket)
    }

    /// A core without a socket yet (`adopt` gives it one).
    init(loop: EventLoop, hangUp: HangUpRule) {
        self.loop = loop
        self.hangUp = hangUp
    }

    /// Takes `socket` (connected, not watched yet); `registration`, the one it may still have on this loop, is
    /// taken over by the next `watch`, which must come before the loop runs on (it still reports to the old
    /// handler).
    mutating func adopt(_ socket: Socket, registeredAs registration: RegistrationID? = nil) {
        precondition(phase == .unconnected, "adopt(_:) in phase \(phase)")
        self.socket = socket
        inheritedRegistration = registration
        phase = .open
    }

    // MARK: Questions

    /// Whether the core owns an open socket.
    var isOpen: Bool { phase == .open }

    /// Whether the loop watches the socket.
    var isWatched: Bool { registration != nil }

    /// Whether wire bytes wait for the socket.
    var hasQueuedWrites: Bool { !writes.isEmpty }

    /// Wire bytes queued so far, and taken by the socket so far.
    var bytesQueued: Int { writes.queuedBytes }
    var bytesWritten: Int { writes.writtenBytes }

    // MARK: Watching

    /// Starts watching the socket for `handler` (once open; readable when `readable`).
    mutating func watch(for handler: any IOHandler, readable: Bool) throws(IOError) {
        guard let socket, registration == nil else { return }
        let wanted: IOInterest = readable ? .readable : []
        if let inherited = inheritedRegistration {
            inheritedRegistration = nil
            registration = try loop.transfer(inherited, to: handler, interest: wanted)
        } else {
            registration = try loop.register(fd: socket.fd, interest: wanted, handler: handler)
        }
        interest = wanted
    }

    /// Readable when `readable` and the peer has not ended; writable while bytes wait. No-op unwatched.
    mutating func setInterest(readable: Bool) throws(IOError) {
        guard let registration else { return }
        var wanted: IOInterest = readable && !peerEnded ? .readable : []
        if !writes.isEmpty { wanted.insert(.writable) }
        guard wanted != interest else { return }
        try loop.setInterest(wanted, for: registration)
        interest = wanted
    }

    /// Stops watching the socket: it stays open, or with `closing` the caller closes it at once (then the
    /// kernel drops the epoll entry with the descriptor: `EventLoop.deregister(_:closingDescriptor:)`).
    mutating func stopWatching(closing: Bool = false) {
        if let registration { loop.deregister(registration, closingDescriptor: closing) }
        if let inheritedRegistration { loop.deregister(inheritedRegistration, closingDescriptor: closing) }
        registration = nil
        inheritedRegistration = nil
        interest = []
    }

    /// Records the peer's end: true the first time. Under `.endsChannel` the socket is no longer watched
    /// (its end would be reported again and again).
    mutating func markPeerEnded() -> Bool {
        guard !peerEnded else { return false }
        peerEnded = true
        if hangUp == .endsChannel { stopWatching() }
        return true
    }

    // MARK: Writing

    /// Queues wire bytes as they are (bytes to a proxy; ciphertext), `payload` of them request-body bytes.
    mutating func queue(wire bytes: [UInt8], payload: Int = 0) {
        writes.append(bytes, payload: payload)
    }

    /// Queues plaintext, encrypted first while TLS is on; `payload` of the bytes are request-body bytes.
    mutating func queue(_ bytes: [UInt8], payload: Int = 0) throws(TLSError) {
        guard !bytes.isEmpty else { return }
        guard let tls else { return writes.append(bytes, payload: payload) }
        try tls.send(plaintext: bytes)
        writes.append(tls.pendingCiphertext(), payload: payload)
    }

    /// Queues whatever the engine produced (handshake records, alerts, close_notify).
    mutating func queueCiphertext() {
        guard let tls, tls.hasPendingCiphertext else { return }
        writes.append(tls.pendingCiphertext())
    }

    /// Writes what the socket takes; `wrote` is shown the bytes each time some left.
    mutating func flush(wrote: (ArraySlice<UInt8>) -> Void = { _ in })
        throws(IOError) -> PendingWrites.FlushResult {
        guard let socket, !writes.isEmpty else { return .flushed }
        return try writes.flush(to: socket, wrote: wrote)
    }

    /// The request-body bytes written whole since the last call.
    mutating func takeSentPayload() -> Int {
        writes.takeSentPayload()
    }

    /// Shuts the socket's write side down (FIN; the read side stays open).
    func shutdownWrite() {
        socket?.shutdownWrite()
    }

    // MARK: TLS

    /// Puts a TLS engine (client, `host`:`port`) on the socket; the handshake starts with `handshake`.
    mutating func startTLS(context: TLSContext, host: String, port: Int) throws(TLSError) {
        tls = try TLSEngine(context: context, serverName: host, port: port)
    }

    /// Runs the handshake as far as the records received allow and queues what it produced (an alert too,
    /// when it failed). A certificate request is answered with none under `.sendNone`.
    mutating func handshake(_ identity: ClientIdentityRule) throws(TLSError) -> TLSEngine.HandshakeState {
        guard let tls else { return .inProgress }
        defer { queueCiphertext() }
        let progress = try tls.handshake()
        guard progress == .clientIdentityRequested, identity == .sendNone else { return progress }
        tls.provideClientIdentity(nil)
        return try tls.handshake()
    }

    /// Takes TLS off the socket (both close_notify went): the bytes the peer sent after its close_notify,
    /// which are plaintext.
    mutating func removeTLS() -> [UInt8] {
        defer { tls = nil }
        return tls?.takeBytesAfterCloseNotify() ?? []
    }

    // MARK: Ending

    /// Closes the socket (once): gracefully, announcing the end of a TLS stream when `announcingEnd`; or,
    /// while bytes still wait to be written, with RST (see `Socket.close(announcingEndOf:abandoningWrites:on:)`).
    mutating func close(announcingEnd: Bool = true) {
        guard phase == .open || phase == .unconnected else { return }
        phase = .closed
        stopWatching(closing: socket != nil)
        socket?.close(announcingEndOf: announcingEnd ? tls : nil, abandoningWrites: !writes.isEmpty, on: loop)
        socket = nil
        tls = nil
        writes.removeAll()
    }

    /// Moves the socket, the engine and what is queued into a new core on `target` (this core's loop, or
    /// another) for the next driver, which watches the socket itself once it starts, on `target`'s thread
    /// (`hangUp` is that driver's rule); this core keeps nothing. On this core's loop thread; the socket is
    /// no longer watched here, and from now on only `target`'s thread may use the new core.
    mutating func handOver(hangUp: HangUpRule, to target: EventLoop) -> ChannelCore {
        guard phase == .open, let socket else { preconditionFailure("handOver() in phase \(phase)") }
        loop.preconditionInEventLoop()
        stopWatching()
        var next = ChannelCore(socket: socket, loop: target, hangUp: hangUp)
        next.tls = tls
        next.writes = writes
        next.peerEnded = peerEnded
        phase = .handedOver
        self.socket = nil
        tls = nil
        writes = PendingWrites()
        return next
    }
}
