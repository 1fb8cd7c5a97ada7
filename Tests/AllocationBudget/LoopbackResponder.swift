import CAllocationCounter
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - LoopbackResponder

/// A keep-alive HTTP/1.1 responder on 127.0.0.1 that answers every request head with the same 64-byte
/// response, with the header fields nginx sends for a static file (so the client parses what it parses in
/// the benchmark). One thread per connection; every one of its threads leaves itself out of the allocation
/// count, so only the client's allocations are counted.
final class LoopbackResponder: @unchecked Sendable {
    // Immutable after init.
    private let listener: Int32
    /// The port on 127.0.0.1.
    let port: Int

    /// The exact response bytes: nginx's fields for a 64-byte file.
    static let response: [UInt8] = {
        let body = String(repeating: "x", count: 63) + "\n"
        let head = "HTTP/1.1 200 OK\r\n" +
            "Server: nginx/1.24.0\r\n" +
            "Date: Sat, 28 Nov 2026 05:00:00 GMT\r\n" +
            "Content-Type: application/octet-stream\r\n" +
            "Content-Length: \(body.utf8.count)\r\n" +
            "Last-Modified: Sat, 28 Nov 2026 04:00:00 GMT\r\n" +
            "Connection: keep-alive\r\n" +
            "ETag: \"6a1b2c3d-40\"\r\n" +
            "Accept-Ranges: bytes\r\n\r\n"
        return Array((head + body).utf8)
    }()

    /// The body length of `response`.
    static let bodyLength = 64

    /// Listens on an ephemeral loopback port and starts accepting.
    init() throws(ResponderError) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw ResponderError(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && listen(socket, 16) == 0
                    && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw ResponderError(call: "bind/listen")
        }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    // MARK: Serving

    private func acceptLoop() {
        ac_ignore_this_thread()
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            var noDelay: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            Thread { Self.serve(connection) }.start()
        }
    }

    /// Answers each request head (`\r\n\r\n`) read on `connection` until the client closes it.
    private static func serve(_ connection: Int32) {
        ac_ignore_this_thread()
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        // How many bytes of "\r\n\r\n" the bytes read so far end with.
        var matched = 0
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            var heads = 0
            for index in 0..<count {
                let byte = buffer[index]
                if byte == terminator[matched] {
                    matched += 1
                } else {
                    matched = byte == 13 ? 1 : 0
                }
                if matched == 4 {
                    heads += 1
                    matched = 0
                }
            }
            for _ in 0..<heads where !writeAll(connection, response) { return }
        }
    }

    private static func writeAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + offset, $0.count - offset, 0) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}

/// A socket call that failed while setting up the responder.
struct ResponderError: Error, CustomStringConvertible {
    let call: String
    let code = errno
    var description: String { "\(call) failed: errno \(code)" }
}
