// A TCP connection over loopback for tests that drive a channel on one end (`client`, a non-blocking `Socket`)
// and play the peer by hand on the other (`peer`, a blocking descriptor) with POSIX calls.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

@testable import FWLoop

struct LoopbackConnection {
    /// The channel's end, connected.
    let client: Socket
    /// The peer's end (blocking); the test closes it.
    let peer: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(INADDR_LOOPBACK).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(listener, raw, length) == 0, listen(listener, 1) == 0,
                      getsockname(listener, raw, &length) == 0 else {
                    throw TestSupportError.systemCall("listen", errno: errno)
                }
            }
        }
        client = try Socket(family: .ipv4)
        guard let target = SocketAddress(numericHost: "127.0.0.1", port: Int(UInt16(bigEndian: address.sin_port)))
        else { throw TestSupportError.systemCall("address", errno: 0) }
        let connected = try client.connect(to: target)
        peer = accept(listener, nil, nil)
        if !connected {
            var entry = pollfd(fd: client.fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&entry, 1, 5000)
            try client.finishConnect()
        }
    }

    /// Writes `bytes` from the peer (blocking).
    static func send(_ bytes: [UInt8], to peer: Int32) {
        #expect(write(peer, bytes, bytes.count) == bytes.count)
    }

    /// Reads exactly `count` bytes at the peer (bounded wait; fewer at the end of the stream).
    static func receive(_ count: Int, from peer: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while received.count < count {
            var entry = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 10_000) > 0 else { break }
            let got = read(peer, &buffer, count - received.count)
            guard got > 0 else { break }
            received += buffer[..<got]
        }
        return received
    }
}
