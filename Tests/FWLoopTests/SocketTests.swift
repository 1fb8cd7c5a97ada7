// Socket: non-blocking connect, reads and writes, EOF, reset, addresses, close (now, or left to the loop).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop
import TestSupport

// MARK: - Helpers

/// A client Socket connected to a listener's accepted peer, without an event loop.
private func connectedPair(
    _ family: SocketAddress.Family
) throws -> (client: Socket, server: Int32, listener: TestListener) {
    let listener = try TestListener(family: family)
    let client = try Socket(family: family)
    if try !client.connect(to: listener.address) {
        #expect(pollReady(client.fd, Int16(POLLOUT)))
        try client.finishConnect()
    }
    let server = try listener.accept()
    return (client, server, listener)
}

/// Reads until data, EOF or error arrives (bounded).
private func readOnce(_ socket: Socket, capacity: Int = 256) throws -> IOResult<[UInt8]> {
    _ = pollReady(socket.fd, Int16(POLLIN))
    var buffer = [UInt8](repeating: 0, count: capacity)
    let result = try buffer.withUnsafeMutableBytes { try socket.read(into: $0) }
    switch result {
    case .processed(let count):
        return .processed(Array(buffer[..<count]))
    case .wouldBlock:
        return .wouldBlock
    }
}

/// Whether `family`'s loopback can be bound here; IPv6 may be missing.
func loopbackAvailable(_ family: SocketAddress.Family) -> Bool {
    (try? TestListener(family: family, listen: false)) != nil
}

/// Completes a connect through the loop: register for writable, then `finishConnect`.
private final class Connector: IOHandler {
    let socket: Socket
    let loop: EventLoop
    let outcome: LockedBox<Result<SocketAddress?, IOError>?>
    var registration: RegistrationID?

    init(socket: Socket, loop: EventLoop, outcome: LockedBox<Result<SocketAddress?, IOError>?>) {
        self.socket = socket
        self.loop = loop
        self.outcome = outcome
    }

    func handleIO(_ events: IOEvents) {
        if let registration {
            loop.deregister(registration)
        }
        let result = Result { () throws(IOError) -> SocketAddress? in
            try socket.finishConnect()
            return socket.remoteAddress()
        }
        outcome.withLock { $0 = result }
    }
}

// MARK: - Connecting

@Suite struct SocketConnectTests {
    @Test func nonBlockingConnectOverIPv4() throws {
        try connectThroughTheLoop(family: .ipv4)
    }

    @Test(.enabled(if: loopbackAvailable(.ipv6), "skipped: cannot bind the IPv6 loopback ::1 on this machine"))
    func nonBlockingConnectOverIPv6() throws {
        try connectThroughTheLoop(family: .ipv6)
    }

    /// Connects a Socket on the loop: at once, or in progress, then writable, then `finishConnect`.
    private func connectThroughTheLoop(family: SocketAddress.Family) throws {
        let listener = try TestListener(family: family)
        try withLoop { loop in
            let outcome = LockedBox<Result<SocketAddress?, IOError>?>(nil)
            let address = listener.address
            try onLoop(loop) {
                let socket = try Socket(family: family)
                let connector = Connector(socket: socket, loop: loop, outcome: outcome)
                if try socket.connect(to: address) {
                    outcome.withLock { $0 = .success(socket.remoteAddress()) }
                } else {
                    connector.registration = try loop.register(fd: socket.fd, interest: .writable, handler: connector)
                }
            }
            #expect(waitUntil { outcome.withLock { $0 != nil } })
            let remote = try #require(outcome.withLock { $0 }).get()
            #expect(remote == listener.address)
            close(try listener.accept())
        }
    }

    @Test func connectToAClosedPortIsRefused() throws {
        let bound = try TestListener(family: .ipv4, listen: false)
        let socket = try Socket(family: .ipv4)
        let error = #expect(throws: IOError.self) {
            if try !socket.connect(to: bound.address) {
                #expect(pollReady(socket.fd, Int16(POLLOUT)))
                // Refused is no success: the caller waits for writability, and `finishConnect` says why.
                #expect(!socket.connectSucceeded())
                try socket.finishConnect()
            }
        }
        #expect(error?.errno == ECONNREFUSED)
        #expect(error?.isConnectionRefused == true)
        #expect(error?.call == "connect")
    }

    /// A loopback connect runs its handshake within `connect`: its success is known without the loop (bounded,
    /// since a loaded machine may finish it a moment later).
    @Test func aLoopbackConnectSucceedsWithoutTheLoop() throws {
        let listener = try TestListener(family: .ipv4)
        let socket = try Socket(family: .ipv4)
        if try !socket.connect(to: listener.address) {
            #expect(waitUntil { socket.connectSucceeded() })
        }
        #expect(socket.remoteAddress() == listener.address)
        close(try listener.accept())
    }

    @Test func aClosedSocketHasNoConnectSuccess() throws {
        let listener = try TestListener(family: .ipv4)
        let socket = try Socket(family: .ipv4)
        _ = try socket.connect(to: listener.address)
        socket.close()
        #expect(!socket.connectSucceeded())
    }

    @Test func addressesMatchBothEnds() throws {
        let (client, server, listener) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        #expect(client.remoteAddress() == listener.address)
        let local = try #require(client.localAddress())
        #expect(local.host == "127.0.0.1")
        #expect(local.port != 0)
        #expect(local.port != listener.address.port)
    }
}

// MARK: - Reading and writing

@Suite struct SocketIOTests {
    @Test func bytesRoundTrip() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        let sent = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        let written = try sent.withUnsafeBytes { try client.write($0) }
        #expect(written == .processed(sent.count))
        var received = [UInt8](repeating: 0, count: 64)
        #expect(pollReady(server, Int16(POLLIN)))
        let count = received.withUnsafeMutableBytes { Glibc.read(server, $0.baseAddress, $0.count) }
        #expect(Array(received[..<count]) == sent)

        try writeAll(server, "HTTP/1.1 200 OK\r\n")
        #expect(try readOnce(client) == .processed(Array("HTTP/1.1 200 OK\r\n".utf8)))
    }

    @Test func emptySocketWouldBlock() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try client.read(into: $0) } == .wouldBlock)
    }

    @Test func fullSendBufferWouldBlock() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        var blocked = false
        for _ in 0..<1024 where !blocked {
            blocked = try chunk.withUnsafeBytes { try client.write($0) } == .wouldBlock
        }
        #expect(blocked)
    }

    @Test func endOfStreamReadsZero() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        try writeAll(server, "bye")
        close(server)
        #expect(try readOnce(client) == .processed(Array("bye".utf8)))
        #expect(try readOnce(client) == .processed([]))
    }

    @Test func peerResetThrowsConnectionReset() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        closeWithReset(server)
        let error = #expect(throws: IOError.self) {
            _ = try readOnce(client)
        }
        #expect(error?.errno == ECONNRESET)
        #expect(error?.isConnectionReset == true)
    }

    @Test func writingAfterResetThrowsAndRaisesNoSignal() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        closeWithReset(server)
        _ = pollReady(client.fd, Int16(POLLIN))
        let error = #expect(throws: IOError.self) {
            let bytes = [UInt8](repeating: 0, count: 1024)
            for _ in 0..<64 {
                _ = try bytes.withUnsafeBytes { try client.write($0) }
            }
        }
        #expect(error?.isConnectionReset == true)
    }

    @Test func shutdownWriteSendsEndOfStream() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        client.shutdownWrite()
        client.shutdownWrite()
        #expect(pollReady(server, Int16(POLLIN)))
        var byte: UInt8 = 0
        #expect(Glibc.read(server, &byte, 1) == 0)
        try writeAll(server, "still open")
        #expect(try readOnce(client) == .processed(Array("still open".utf8)))
    }
}

// MARK: - Closing

@Suite struct SocketCloseTests {
    @Test func closeIsIdempotentAndLaterCallsThrowBadDescriptor() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        client.close()
        client.close(reset: true)
        #expect(client.fd == -1)
        #expect(client.localAddress() == nil)
        #expect(client.remoteAddress() == nil)
        client.shutdownWrite()
        var buffer = [UInt8](repeating: 0, count: 8)
        let readError = #expect(throws: IOError.self) {
            _ = try buffer.withUnsafeMutableBytes { try client.read(into: $0) }
        }
        #expect(readError?.errno == EBADF)
        let writeError = #expect(throws: IOError.self) {
            _ = try buffer.withUnsafeBytes { try client.write($0) }
        }
        #expect(writeError?.errno == EBADF)
        #expect(throws: IOError.self) {
            try client.finishConnect()
        }
        #expect(pollReady(server, Int16(POLLIN)))
        var byte: UInt8 = 0
        #expect(Glibc.read(server, &byte, 1) == 0)
    }

    @Test func closeWithResetSendsReset() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        client.close(reset: true)
        #expect(pollReady(server, Int16(POLLIN)))
        var byte: UInt8 = 0
        #expect(Glibc.read(server, &byte, 1) == -1)
        #expect(errno == ECONNRESET)
    }

    @Test func aCloseLeftToTheLoopHappensAfterTheIterationsEndOfIterationWork() throws {
        try withLoop { loop in
            let openAtEndOfIteration = LockedBox<Bool?>(nil)
            let server = try onLoop(loop) { () throws -> Int32 in
                let (client, server, _) = try connectedPair(.ipv4)
                client.close(after: loop)
                #expect(client.fd == -1)
                loop.atEndOfIteration {
                    var entry = pollfd(fd: server, events: Int16(POLLIN), revents: 0)
                    openAtEndOfIteration.withLock { $0 = poll(&entry, 1, 0) == 0 }
                }
                return server
            }
            defer {
                close(server)
            }
            #expect(pollReady(server, Int16(POLLIN)))
            var byte: UInt8 = 0
            #expect(Glibc.read(server, &byte, 1) == 0)
            #expect(openAtEndOfIteration.withLock { $0 } == true)
        }
    }

    @Test func aResetLeftToTheLoopSendsReset() throws {
        try withLoop { loop in
            let server = try onLoop(loop) { () throws -> Int32 in
                let (client, server, _) = try connectedPair(.ipv4)
                client.close(reset: true, after: loop)
                return server
            }
            defer {
                close(server)
            }
            #expect(pollReady(server, Int16(POLLIN)))
            var byte: UInt8 = 0
            #expect(Glibc.read(server, &byte, 1) == -1)
            #expect(errno == ECONNRESET)
        }
    }

    @Test func aStoppingLoopClosesWhatItWasLeftToClose() throws {
        let (client, server, _) = try connectedPair(.ipv4)
        defer {
            close(server)
        }
        let loop = try EventLoop(name: "fw-test")
        nonisolated(unsafe) let handed = client
        loop.execute {
            handed.close(after: loop)
        }
        loop.shutdown()
        #expect(client.fd == -1)
        #expect(pollReady(server, Int16(POLLIN)))
        var byte: UInt8 = 0
        #expect(Glibc.read(server, &byte, 1) == 0)
    }

    @Test func newSocketsAreNonBlockingCloseOnExecWithNoDelay() throws {
        for family in [SocketAddress.Family.ipv4, .ipv6] where loopbackAvailable(family) {
            let socket = try Socket(family: family)
            #expect(fcntl(socket.fd, F_GETFL) & O_NONBLOCK != 0)
            #expect(fcntl(socket.fd, F_GETFD) & FD_CLOEXEC != 0)
            #expect(try Syscall.getIntOption(socket.fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY) != 0)
            #expect(socket.family == family)
        }
    }
}
