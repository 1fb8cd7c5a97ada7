import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// The FaultProxy itself (TestSupport), byte-exact: what each fault lets through, in which direction, and
// how it ends the connection, between a raw client socket and a scripted upstream.
@Suite struct FaultProxyTests {
    /// What the upstream does with its connection.
    enum Upstream: Sendable {
        /// Sends back what it reads, until the client's end.
        case echo
        /// Reads until the client's end, sending nothing.
        case swallow
        /// Sends "abcdef", then waits for the client's end.
        case talk
    }

    /// What the client saw.
    struct Seen: Equatable, CustomStringConvertible {
        var bytes = ""
        /// "open" (nothing more within the wait), "end" (FIN) or "reset".
        var ending = "open"
        var description: String { "\(bytes.debugDescription) then \(ending)" }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let fault: FaultProxy.Fault
        let upstream: Upstream
        /// What the client sends first.
        let send: String
        let seen: Seen
        /// What the upstream must have read (nil: not checked).
        var upstreamRead: String?
        /// The least time the client's bytes take to arrive.
        var atLeast = 0.0
        var testDescription: String { "\(fault)" }
    }

    static let rows: [Row] = [
        Row(fault: .none, upstream: .echo, send: "hello", seen: Seen(bytes: "hello"), upstreamRead: "hello"),
        Row(fault: .truncate(.upstream, atByte: 3), upstream: .swallow, send: "hello", seen: Seen(ending: "end"),
            upstreamRead: "hel"),
        Row(fault: .reset(.downstream, atByte: 2), upstream: .talk, send: "", seen: Seen(bytes: "ab", ending: "reset")),
        Row(fault: .blackhole(.upstream), upstream: .echo, send: "hello", seen: Seen(), upstreamRead: ""),
        Row(fault: .hold(.downstream, atByte: 2), upstream: .talk, send: "", seen: Seen(bytes: "ab")),
        Row(fault: .delay(.downstream, seconds: 0.4), upstream: .talk, send: "", seen: Seen(bytes: "abcdef"),
            atLeast: 0.35),
        Row(fault: .throttle(.downstream, bytesPerSecond: 20), upstream: .talk, send: "",
            seen: Seen(bytes: "abcdef"), atLeast: 0.2),
        Row(fault: .acceptAndHold, upstream: .talk, send: "hello", seen: Seen()),
        Row(fault: .closeWhenIdle(after: 0.2), upstream: .echo, send: "hi", seen: Seen(bytes: "hi", ending: "end")),
    ]

    @Test(arguments: rows)
    func theFaultShapesTheRelay(_ row: Row) throws {
        let read = LockedBox("")
        let server = try ScriptedServer { connection in
            if row.upstream == .talk {
                try connection.write("abcdef")
                _ = connection.waitForClose(timeout: 3)
                return
            }
            while let byte = try? connection.readBytes(count: 1) {
                read.withLock { $0 += String(decoding: byte, as: UTF8.self) }
                if row.upstream == .echo { try connection.write(byte) }
            }
        }
        defer { server.stop() }
        let proxy = try FaultProxy(upstreamPort: server.port, fault: row.fault)
        defer { proxy.stop() }
        let client = try RawClient(port: proxy.port)
        defer { client.close() }
        let start = ContinuousClock.now
        if !row.send.isEmpty { client.send(row.send) }
        let seen = client.receive(for: 1.0)
        #expect(seen == row.seen)
        #expect((ContinuousClock.now - start) >= .milliseconds(Int(row.atLeast * 1000)))
        if let expected = row.upstreamRead {
            _ = waitUntil(timeout: 2) { read.withLock { $0 } == expected }
            #expect(read.withLock { $0 } == expected)
        }
        if row.fault.description == FaultProxy.Fault.acceptAndHold.description { #expect(server.connectionCount == 0) }
        client.close()
        #expect(waitUntil(timeout: 10) { proxy.openConnectionCount == 0 })
        #expect(proxy.errors.isEmpty)
    }
}

// MARK: - RawClient

/// A blocking TCP client of 127.0.0.1 for the proxy tests.
private final class RawClient {
    private var descriptor: Int32

    init(port: Int) throws {
        // Close-on-exec: a server another test spawns meanwhile must not inherit the socket (closing it here
        // would then send no FIN).
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(INADDR_LOOPBACK).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw TestSupportError.systemCall("connect", errno: code)
        }
    }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { bytes in
            Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
    }

    /// Everything that arrives within `seconds`, and how the stream ended (if it did).
    func receive(for seconds: Double) -> FaultProxyTests.Seen {
        var seen = FaultProxyTests.Seen()
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 20) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                seen.bytes += String(decoding: buffer[..<count], as: UTF8.self)
            } else {
                seen.ending = count == 0 ? "end" : (errno == ECONNRESET ? "reset" : "error \(errno)")
                break
            }
        }
        return seen
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
