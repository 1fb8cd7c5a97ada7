import FWTLS
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - LoopbackSocket

/// A blocking TCP socket to 127.0.0.1 whose reads wait at most `timeout` (poll).
final class LoopbackSocket {
    private let fd: Int32
    private let timeoutMilliseconds: Int32

    init(port: Int, timeoutMilliseconds: Int32 = 5_000) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.timeoutMilliseconds = timeoutMilliseconds
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw HarnessError("connect to port \(port): \(errno)")
        }
    }

    deinit {
        Glibc.close(fd)
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw HarnessError("send: \(errno)") }
            offset += count
        }
    }

    /// The next bytes, or nil at end of file (a reset counts as end of file). Throws on timeout.
    func read() throws -> [UInt8]? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        guard ready > 0 else { throw HarnessError("no data from the server within \(timeoutMilliseconds) ms") }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0, errno == ECONNRESET { return nil }
        guard count >= 0 else { throw HarnessError("recv: \(errno)") }
        return count == 0 ? nil : Array(buffer[0..<count])
    }

    /// Every byte until end of file.
    func readToEOF() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try read() { bytes += chunk }
        return bytes
    }
}

// MARK: - LoopbackTLSClient

/// Pumps bytes between a `LoopbackSocket` and a `TLSEngine`: the blocking harness the tests drive.
final class LoopbackTLSClient {
    let engine: TLSEngine
    let socket: LoopbackSocket

    /// Connects to 127.0.0.1:`port` with an engine for `serverName` (SNI and trust host).
    init(context: TLSContext, serverName: String = "localhost", port: Int) throws {
        socket = try LoopbackSocket(port: port)
        engine = try TLSEngine(context: context, serverName: serverName, port: port)
    }

    /// Writes whatever the engine queued for the socket.
    func flush() throws {
        let bytes = engine.pendingCiphertext()
        if !bytes.isEmpty { try socket.write(bytes) }
    }

    /// Runs the handshake to completion. `answer` supplies the identity when the server asks for one
    /// and the configuration has none; it records that it was asked.
    func handshake(answer: () -> TLSIdentity? = { nil }) throws {
        while true {
            let state = try engine.handshake()
            try flush()
            switch state {
            case .complete:
                return
            case .clientIdentityRequested:
                engine.provideClientIdentity(answer())
            case .inProgress:
                guard let bytes = try socket.read() else {
                    try flush()
                    try engine.socketEOF()
                    return
                }
                engine.receive(ciphertext: bytes)
            }
        }
    }

    /// Handshake, then the trust for evaluation.
    func connect() throws -> ServerTrust {
        try handshake()
        return engine.makeServerTrust()
    }

    /// Sends a GET for s_server's -www page and reads the reply until the server's close_notify (answered
    /// with ours, as s_server waits for it) or end of file, which is reported to the engine (it throws
    /// when close_notify is missing).
    func get() throws -> String {
        try engine.send(plaintext: Array("GET / HTTP/1.0\r\n\r\n".utf8))
        try flush()
        var reply: [UInt8] = []
        while !engine.receivedCloseNotify {
            guard let bytes = try socket.read() else {
                try engine.socketEOF()
                break
            }
            engine.receive(ciphertext: bytes)
            if let plaintext = try engine.readPlaintext() { reply += plaintext }
            try flush()
        }
        engine.close()
        try flush()
        return String(decoding: reply, as: UTF8.self)
    }
}

/// 127.0.0.1:`port` as a sockaddr_in.
func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
}

/// A failure of the test harness itself (not of the code under test).
struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
