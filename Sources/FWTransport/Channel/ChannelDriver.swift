import FWLoop
import FWTLS

// MARK: - ChannelDriver
//
// The protocol on a `ChannelCore`: `HTTP1Connection`, `WebSocketChannel` and `StreamChannel`. The core's
// readiness handling, read loop, interest rule, peer's end and trust question are written here once, over the
// driver's hooks; generic over the concrete driver (no existential, no closure per I/O event). Loop thread only.
//
// One readiness report: writable flushes (the driver's `flush`); readable reads, at most `readsPerWakeUp`
// times, while the driver wants bytes; a hang-up or error is read at once even while the driver holds reading
// back (the read fails, or finds the end), except once the peer ended: then the socket is no longer watched.
// Each read goes into the engine on TLS (the driver then decrypts or handshakes in `channelReceived`), else
// straight into the driver's buffer (`receivePlaintext`). The end of stream is recorded by the core (see its
// `HangUpRule`) and reported once (`channelPeerEnded`); a failed read, write or interest change goes to
// `channelFailed`.

/// Where an I/O failure happened.
enum ChannelOperation: Equatable {
    case reading
    case writing
    case watching
}

/// A protocol spoken over a `ChannelCore`.
protocol ChannelDriver: AnyObject, IOHandler {
    /// The I/O core. Loop thread only.
    var core: ChannelCore { get set }
    /// Whether the protocol takes bytes now; false holds the socket back (backpressure, output waiting).
    var wantsBytes: Bool { get }
    /// Reads plaintext into the protocol's buffer: `read` fills `room` (the driver's, at most `maxLength` bytes)
    /// and returns how many bytes it put there.
    func receivePlaintext(upTo maxLength: Int,
                          using read: (UnsafeMutableRawBufferPointer) throws(IOError) -> Int) throws(IOError)
    /// Bytes arrived: ciphertext waiting in the engine while TLS is on, else plaintext `receivePlaintext` took.
    func channelReceived()
    /// The read loop stopped (the socket would block, the driver holds back, or the reads per wake-up are used).
    func channelReadingStopped()
    /// The peer ended its side (end of stream, or a close_notify the driver reported); once.
    func channelPeerEnded()
    /// Reading, writing or watching the socket failed.
    func channelFailed(_ error: IOError, in operation: ChannelOperation)
    /// Writes what waits (the driver's own bookkeeping around `core.flush`).
    func flush()
}

extension ChannelDriver {
    /// How many reads one readiness report gets at most, so that one busy channel cannot starve the others.
    static var readsPerWakeUp: Int { 4 }

    /// Handles one readiness report of the socket (the driver's `IOHandler.handleIO`).
    func handleChannelIO(_ events: IOEvents) {
        guard core.isOpen else { return }
        if events.contains(.writable) { flush() }
        let broken = events.contains(.hangup) || events.contains(.error)
        if broken, core.peerEnded {
            // Nothing more can be read and the kernel keeps reporting it: stop watching (a write fails at once).
            core.stopWatching()
            return
        }
        if events.contains(.readable) || broken { readAvailable(evenWhileHeld: broken) }
    }

    /// Reads what the socket holds now (a few reads at most) while the driver wants bytes, or at once when
    /// `evenWhileHeld`.
    func readAvailable(evenWhileHeld: Bool = false) {
        defer { channelReadingStopped() }
        for _ in 0..<Self.readsPerWakeUp {
            guard let socket = core.socket, core.isOpen, !core.peerEnded, evenWhileHeld || wantsBytes else { return }
            let result: IOResult<Int>
            do throws(IOError) {
                result = try read(from: socket)
            } catch {
                channelFailed(error, in: .reading)
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                notePeerEnded()
                return
            case .processed(let count):
                channelReceived()
                if count < ChannelCore.readSize { return }
            }
        }
    }

    /// One read: ciphertext straight into the engine, or plaintext straight into the driver's buffer.
    private func read(from socket: Socket) throws(IOError) -> IOResult<Int> {
        var result = IOResult<Int>.wouldBlock
        if let tls = core.tls {
            try tls.receiveCiphertext(upTo: ChannelCore.readSize) { (room) throws(IOError) -> Int in
                result = try socket.read(into: room)
                guard case .processed(let count) = result else { return 0 }
                return count
            }
        } else {
            try receivePlaintext(upTo: ChannelCore.readSize) { (room) throws(IOError) -> Int in
                result = try socket.read(into: room)
                guard case .processed(let count) = result else { return 0 }
                return count
            }
        }
        return result
    }

    /// The peer ended its side (end of stream; or its close_notify, which the driver reports here): recorded
    /// by the core, reported to the driver once.
    func notePeerEnded() {
        if core.markPeerEnded() { channelPeerEnded() }
    }

    /// Writes what the socket takes of the queue; false when the core is closed, or the write failed (then
    /// reported to `channelFailed`).
    func writeQueued() -> Bool {
        guard core.isOpen else { return false }
        do throws(IOError) {
            _ = try core.flush()
            return true
        } catch {
            channelFailed(error, in: .writing)
            return false
        }
    }

    /// Updates the interest: readable while the driver wants bytes, writable while bytes wait; a failure goes
    /// to `channelFailed`.
    func refreshInterest() {
        do throws(IOError) {
            try core.setInterest(readable: wantsBytes)
        } catch {
            channelFailed(error, in: .watching)
        }
    }

    /// Starts watching the socket (readable when the driver wants bytes): false when the core is closed, or
    /// watching failed (then reported to `channelFailed`).
    func startWatching() -> Bool {
        guard core.isOpen else { return false }
        do throws(IOError) {
            try core.watch(for: self, readable: wantsBytes)
            return true
        } catch {
            channelFailed(error, in: .watching)
            return false
        }
    }

    // MARK: TLS

    /// The one way a driver asks about the server its handshake reached: `ask` gets the server's trust and a
    /// `decide` to call once, on any thread; the answer comes back on the loop to `decided`, with the trust it
    /// is about (a refusal carries it), unless the core closed (or was handed over) meanwhile.
    func askServerTrust<Answer: Sendable>(
        _ ask: (ServerTrust, _ decide: @escaping @Sendable (Answer) -> Void) -> Void,
        decided: @escaping @Sendable (Self, Answer, ServerTrust) -> Void
    ) where Self: Sendable {
        guard let tls = core.tls else { return }
        let driver = self
        let loop = core.loop
        let trust = tls.makeServerTrust()
        ask(trust) { answer in
            loop.execute {
                guard driver.core.isOpen else { return }
                decided(driver, answer, trust)
            }
        }
    }
}
