// ScriptedConnection: one accepted connection of a loopback server, driven by blocking calls.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - ScriptedConnection

/// One accepted connection, for scripts. Blocking, with a timeout on every read.
///
/// Every read and write times out after 5 s (`TestSupportError.timedOut`).
/// Reads and writes are made by the one thread that runs the connection's script; `abort()` may come
/// from any thread (the server's `stop()`), and only shuts the socket down, so the descriptor stays
/// valid until the script's thread closes it.
public final class ScriptedConnection: @unchecked Sendable { // `input`: script thread; the socket: `socketState`
    // MARK: Stored state

    /// 0-based order of acceptance.
    public let connectionIndex: Int
    /// Called with every request read, in order.
    let onRequest: @Sendable (ReceivedRequest) -> Void
    /// Called once, when the descriptor is closed.
    private let onClose: @Sendable () -> Void
    /// The socket and whether the server shut it down.
    private let socketState: LockedBox<SocketState>
    /// Bytes received but not consumed yet. Script thread only.
    var input = InputBuffer()

    init(
        descriptor: Int32, index: Int,
        onRequest: @escaping @Sendable (ReceivedRequest) -> Void, onClose: @escaping @Sendable () -> Void
    ) {
        self.socketState = LockedBox(SocketState(descriptor: descriptor))
        self.connectionIndex = index
        self.onRequest = onRequest
        self.onClose = onClose
    }

    deinit {
        close()
    }

    // MARK: Writing and closing

    /// Writes all of `bytes`; throws on timeout or when the peer is gone.
    public func write(_ bytes: [UInt8]) throws {
        let socket = try openDescriptor()
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                send(socket, buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL))
            }
            if result >= 0 {
                written += result
            } else if errno != EINTR {
                throw PosixSocket.ioError("send", errno: errno)
            }
        }
    }

    /// Writes the UTF-8 bytes of `text` as they are (the script writes "\r\n" itself).
    public func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    /// Closes the connection with FIN. Idempotent.
    public func close() {
        closeDescriptor(abortive: false)
    }

    /// Closes the connection with RST (SO_LINGER 0, then close). Idempotent.
    public func reset() {
        closeDescriptor(abortive: true)
    }

    /// Closes the connection with FIN and returns once the peer's kernel has acknowledged the FIN (the
    /// socket left FIN_WAIT1): the peer's end of stream is then in its socket, whether or not the peer's
    /// process has looked. False when that took longer than `timeout`; the descriptor is closed either way.
    @discardableResult
    public func closeOnceAcknowledged(timeout: Double = 5) -> Bool {
        guard let socket = descriptor else { return false }
        shutdown(socket, Int32(SHUT_WR))
        let acknowledged = waitUntil(timeout: timeout) { !Self.awaitsAcknowledgementOfItsFIN(socket) }
        close()
        return acknowledged
    }

    /// Whether `socket` has sent a FIN that the peer has not acknowledged yet (FIN_WAIT1, or CLOSING when
    /// both sides closed at once).
    private static func awaitsAcknowledgementOfItsFIN(_ socket: Int32) -> Bool {
        var info = tcp_info()
        var size = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, &info, &size) == 0 else { return false }
        return Int(info.tcpi_state) == TCP_FIN_WAIT1 || Int(info.tcpi_state) == TCP_CLOSING
    }

    // MARK: Waiting for the peer

    /// Waits until the peer closes (read returns 0) or the timeout; true if it closed.
    ///
    /// Bytes that arrive meanwhile are kept for later reads. A reset by the peer counts as closed.
    public func waitForClose(timeout: Double) -> Bool {
        guard let socket = try? openDescriptor() else { return false }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(max(0, timeout)))
        while true {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let milliseconds = Int32(min(remaining / .milliseconds(1), 60_000).rounded(.up))
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0, errno != EINTR { return false }
            guard ready > 0 else { continue }
            do {
                if try !receive() { return true }
            } catch let error as TestSupportError where error == .connectionReset {
                return true
            } catch let error as TestSupportError where error == .timedOut {
                continue
            } catch {
                return false
            }
        }
    }

    // MARK: Server side

    /// Whether the server's `stop()` shut this connection down.
    var isAborted: Bool {
        socketState.withLock { $0.aborted }
    }

    /// Shuts the socket down in both directions so that blocked reads and writes return; the script's
    /// thread still closes the descriptor.
    func abort() {
        socketState.withLock { state in
            state.aborted = true
            if state.descriptor >= 0 {
                shutdown(state.descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// The open descriptor, for a relay that drives it itself (the connection still closes it); nil once
    /// closed.
    var descriptor: Int32? {
        socketState.withLock { $0.descriptor >= 0 ? $0.descriptor : nil }
    }

    /// Sleeps for `seconds` in small steps without reading or writing (what the peer sends piles up in the
    /// socket's buffers); false if the server stopped meanwhile.
    @discardableResult
    public func pause(_ seconds: Double) -> Bool {
        !waitUntil(timeout: seconds) { isAborted }
    }

    // MARK: Descriptor access

    /// Receives once into `input`; false on end of stream.
    func receive() throws -> Bool {
        let socket = try openDescriptor()
        while true {
            let result = withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 1) { buffer in
                let count = recv(socket, buffer.baseAddress, buffer.count, 0)
                if count > 0 {
                    input.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                }
                return count
            }
            if result >= 0 { return result > 0 }
            if errno != EINTR { throw PosixSocket.ioError("recv", errno: errno) }
        }
    }

    /// The descriptor, or `connectionClosed` once this side closed it.
    private func openDescriptor() throws -> Int32 {
        let socket = socketState.withLock { $0.descriptor }
        guard socket >= 0 else { throw TestSupportError.connectionClosed }
        return socket
    }

    /// Closes the descriptor once, with RST when `abortive`, and reports it to the server.
    private func closeDescriptor(abortive: Bool) {
        let closed: Bool = socketState.withLock { state in
            guard state.descriptor >= 0 else { return false }
            if abortive {
                try? PosixSocket.setAbortiveClose(state.descriptor)
            }
            Glibc.close(state.descriptor)
            state.descriptor = -1
            return true
        }
        if closed { onClose() }
    }
}

// MARK: - SocketState

extension ScriptedConnection {
    /// What `abort()` (any thread) and the script's thread share.
    private struct SocketState {
        /// The socket, or -1 once closed.
        var descriptor: Int32
        /// Whether the server shut the connection down.
        var aborted = false
    }
}
