// TestSupportSelfTests: checks the loopback servers of TestSupport with a raw blocking client socket, so
// that the servers are known good before they judge the client stack.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// MARK: - Raw client

/// A blocking TCP client on 127.0.0.1 with a 3 s timeout on every read and write.
private final class RawClient {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError.systemCall("socket", errno: errno) }
        var interval = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(INADDR_LOOPBACK).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw TestSupportError.systemCall("connect", errno: code)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends `text` in pieces of `pieceSize` bytes, one send call each.
    func send(_ text: String, pieceSize: Int = .max) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + min(pieceSize, bytes.count - offset))
            let sent = bytes[offset..<end].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw TestSupportError.systemCall("send", errno: errno) }
            offset += sent
        }
    }

    /// Receives until `count` bytes arrived, the peer closed, or an error; returns what arrived.
    func receive(count: Int = .max) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while result.count < count {
            let received = recv(descriptor, &buffer, min(buffer.count, count - result.count), 0)
            guard received > 0 else { break }
            result += buffer[..<received]
        }
        return result
    }

    /// Receives the response text of exactly `expected.utf8.count` bytes (fewer if the peer closes).
    func receiveText(like expected: String) -> String {
        String(decoding: receive(count: expected.utf8.count), as: UTF8.self)
    }

    /// One recv: its result and errno.
    func receiveOnce() -> (count: Int, error: Int32) {
        var byte: UInt8 = 0
        let received = recv(descriptor, &byte, 1, 0)
        return (received, received < 0 ? errno : 0)
    }

    /// Sends FIN; reads stay open.
    func shutdownWrite() {
        shutdown(descriptor, Int32(SHUT_WR))
    }
}

/// A script failure that the test reads back from `scriptErrors`.
private struct ScriptFailure: Error, CustomStringConvertible {
    let description: String
}

// MARK: - ScriptedServer

@Suite("TestSupport self-tests")
struct TestSupportSelfTests {
    @Test("ScriptedServer reads an exact request sent in pieces and replies", arguments: [1, 7, 4096])
    func scriptedServerReadsExactRequest(pieceSize: Int) throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            if try connection.readRequest() != nil { throw ScriptFailure(description: "second request") }
        }
        defer { server.stop() }
        let head = "POST /upload?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Dup: a\r\nx-dup:  b \r\n"
            + "Content-Length: 5\r\n\r\n"
        let client = try RawClient(port: server.port)
        try client.send(head + "hello", pieceSize: pieceSize)
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        #expect(client.receiveText(like: response) == response)
        client.shutdownWrite()
        #expect(client.receive().isEmpty)

        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.target == "/upload?x=1")
        #expect(request.version == "HTTP/1.1")
        #expect(request.headers.map(\.name) == ["Host", "X-Dup", "x-dup", "Content-Length"])
        #expect(request.header("X-DUP") == "a")
        #expect(request.headers[2].value == "b")
        #expect(request.header("Missing") == nil)
        #expect(request.rawHead == Array(head.utf8))
        #expect(request.body == Array("hello".utf8))
        #expect(server.connectionCount == 1)
        #expect(server.scriptErrors.isEmpty)
    }

    @Test("ScriptedServer de-chunks a body with trailers and keeps a pipelined request")
    func scriptedServerReadsPipelinedChunkedRequests() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            _ = try connection.readRequest()
            try connection.write("done")
        }
        defer { server.stop() }
        let chunkedBody = "5;ext=\"q\"\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: abc\r\n\r\n"
        let first = "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody
        let second = "GET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        let client = try RawClient(port: server.port)
        try client.send(first + second)
        #expect(client.receiveText(like: "done") == "done")

        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].body == Array("hello world".utf8))
        #expect(requests[0].rawBody == Array(chunkedBody.utf8))
        #expect(requests[0].trailers.map(\.name) == ["X-Checksum"])
        #expect(requests[0].trailers.map(\.value) == ["abc"])
        #expect(requests[1].method == "GET")
        #expect(requests[1].target == "/b")
        #expect(requests[1].body.isEmpty)
        #expect(server.scriptErrors.isEmpty)
    }

    @Test("ScriptedServer reports malformed requests as script errors", arguments: [
        "GET /\r\n\r\n",
        "GET / HTTP/1.1\nHost: h\r\n\r\n",
        "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY",
    ])
    func scriptedServerRejectsMalformedRequests(input: String) throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send(input)
        _ = client.receive()
        #expect(waitUntil(timeout: 2) { !server.scriptErrors.isEmpty })
        #expect(server.scriptErrors.first?.contains("malformed request") == true)
        #expect(server.requests.isEmpty)
    }

    @Test("readRequest throws connectionClosed when the client closes inside a body")
    func scriptedServerReportsTruncatedBody() throws {
        let server = try ScriptedServer { connection in
            do {
                _ = try connection.readRequest()
            } catch let error as TestSupportError where error == .connectionClosed {
                throw ScriptFailure(description: "truncated")
            }
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
        client.shutdownWrite()
        #expect(waitUntil(timeout: 2) { server.scriptErrors.count == 1 })
        #expect(server.scriptErrors.first?.hasSuffix("truncated") == true)
    }

    @Test("waitForClose sees the client's FIN, and reset() sends RST")
    func scriptedServerWaitsForCloseAndResets() throws {
        let server = try ScriptedServer { connection in
            if connection.connectionIndex == 0 {
                let greeting = try connection.readBytes(count: 2)
                guard greeting == Array("hi".utf8), connection.waitForClose(timeout: 2) else {
                    throw ScriptFailure(description: "no close seen")
                }
            } else {
                _ = try connection.readBytes(count: 1)
                connection.reset()
            }
        }
        defer { server.stop() }
        let closing = try RawClient(port: server.port)
        try closing.send("hi")
        closing.shutdownWrite()
        #expect(closing.receive().isEmpty)

        let resetting = try RawClient(port: server.port)
        try resetting.send("x")
        let result = resetting.receiveOnce()
        #expect(result.count == -1)
        #expect(result.error == ECONNRESET)
        #expect(server.connectionCount == 2)
        #expect(server.scriptErrors.isEmpty)
    }

    @Test("stop() closes open connections and joins their threads promptly")
    func scriptedServerStopClosesConnections() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
        }
        let client = try RawClient(port: server.port)
        #expect(waitUntil(timeout: 2) { server.connectionCount == 1 })
        let clock = ContinuousClock()
        let elapsed = clock.measure { server.stop() }
        #expect(elapsed < .seconds(2))
        #expect(client.receive().isEmpty)
        server.stop()
        #expect(server.scriptErrors.isEmpty)
    }

    // MARK: - LoopbackHTTPServer

    @Test("LoopbackHTTPServer serves two requests on one connection, the second chunked")
    func loopbackServesKeepAliveRequests() throws {
        let server = try LoopbackHTTPServer { request in
            request.target == "/a" ? .ok("alpha") : .chunked(["hel", "lo, world"], trailers: [("X-T", "1")])
        }
        defer { server.stop() }
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        let client = try RawClient(port: server.port)
        try client.send("GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let first = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nalpha"
        #expect(client.receiveText(like: first) == first)
        try client.send("GET /b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let second = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3\r\nhel\r\n9\r\nlo, world\r\n0\r\nX-T: 1\r\n\r\n"
        #expect(client.receiveText(like: second) == second)
        client.shutdownWrite()
        #expect(client.receive().isEmpty)

        #expect(server.connectionCount == 1)
        #expect(server.requestCount == 2)
        #expect(server.requests.map(\.target) == ["/a", "/b"])
        #expect(server.peakConcurrentConnections == 1)
    }

    @Test("LoopbackHTTPServer answers Expect: 100-continue, then reads the body")
    func loopbackAnswersExpectContinue() throws {
        let server = try LoopbackHTTPServer { request in
            .ok(String(decoding: request.body, as: UTF8.self), headers: [("Connection", "close")])
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        let interim = "HTTP/1.1 100 Continue\r\n\r\n"
        #expect(client.receiveText(like: interim) == interim)
        try client.send("abc")
        let final = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n"
            + "Content-Length: 3\r\n\r\nabc"
        #expect(String(decoding: client.receive(), as: UTF8.self) == final)
    }

    @Test("LoopbackHTTPServer reads 1 MiB bodies, by length and in 1 KiB chunks, pipelined")
    func loopbackReadsLargeBodies() throws {
        let server = try LoopbackHTTPServer { request in
            .ok("\(request.body.count) \(request.body.allSatisfy { $0 == UInt8(ascii: "z") })")
        }
        defer { server.stop() }
        let kibibyte = String(repeating: "z", count: 1024)
        let chunked = String(repeating: "400\r\n" + kibibyte + "\r\n", count: 1024) + "0\r\n\r\n"
        let client = try RawClient(port: server.port)
        try client.send(
            "POST /l HTTP/1.1\r\nHost: h\r\nContent-Length: 1048576\r\n\r\n"
                + String(repeating: kibibyte, count: 1024)
                + "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked
        )
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\n1048576 true"
        #expect(String(decoding: client.receive(), as: UTF8.self) == answer + answer)
        #expect(server.requests.map(\.rawBody.count) == [1_048_576, chunked.utf8.count])
    }

    @Test("LoopbackHTTPServer delays a reply, and stop() cuts a long delay short")
    func loopbackDelaysReplies() throws {
        let server = try LoopbackHTTPServer { request in
            LoopbackHTTPServer.Reply(bytes: Array("HTTP/1.1 204 No Content\r\n\r\n".utf8),
                                     delay: request.target == "/short" ? 0.1 : 30)
        }
        let clock = ContinuousClock()
        let client = try RawClient(port: server.port)
        let start = clock.now
        try client.send("GET /short HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(client.receive(count: 27).count == 27)
        #expect(clock.now - start >= .milliseconds(100))
        try client.send("GET /long HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(waitUntil(timeout: 2) { server.requestCount == 2 })
        #expect(clock.measure { server.stop() } < .seconds(1))
        #expect(client.receive().isEmpty)
    }

    @Test("LoopbackHTTPServer counts connections open at the same time")
    func loopbackCountsConcurrentConnections() throws {
        let server = try LoopbackHTTPServer { _ in .status(204) }
        defer { server.stop() }
        let response = "HTTP/1.1 204 No Content\r\n\r\n"
        let clients = try (0..<2).map { _ in try RawClient(port: server.port) }
        for client in clients {
            try client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.receiveText(like: response) == response)
        }
        #expect(server.connectionCount == 2)
        #expect(server.peakConcurrentConnections == 2)
        #expect(server.requestCount == 2)
    }

    @Test("Reply builders produce exact bytes", arguments: [
        (LoopbackHTTPServer.Reply.ok("hi"),
         "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi", false),
        (LoopbackHTTPServer.Reply.ok("{}", contentType: "application/json", status: 201, headers: [("X-A", "1")]),
         "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-A: 1\r\nContent-Length: 2\r\n\r\n{}", false),
        (LoopbackHTTPServer.Reply.status(404, body: Array("no".utf8), headers: [("Connection", "close")]),
         "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno", true),
        (LoopbackHTTPServer.Reply.status(204), "HTTP/1.1 204 No Content\r\n\r\n", false),
        (LoopbackHTTPServer.Reply.status(200, headers: [("Content-Length", "10")]),
         "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", false),
        (LoopbackHTTPServer.Reply.chunked(["abcdefghijklmnop", "", "x"]),
         "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabcdefghijklmnop\r\n1\r\nx\r\n0\r\n\r\n", false),
        (LoopbackHTTPServer.Reply.raw("HTTP/1.1 200 OK\nbroken"), "HTTP/1.1 200 OK\nbroken", true),
    ])
    func replyBuilders(reply: LoopbackHTTPServer.Reply, expected: String, closeAfter: Bool) {
        #expect(String(decoding: reply.bytes, as: UTF8.self) == expected)
        #expect(reply.closeAfter == closeAfter)
        #expect(reply.delay == 0)
    }

    // MARK: - PythonHTTPServer and waitUntil

    @Test("PythonHTTPServer serves a file from its temporary directory")
    func pythonServesFile() throws {
        let payload: [UInt8] = Array(0...255) + Array("end".utf8)
        let server = try PythonHTTPServer(files: ["hello.txt": Array("hello".utf8), "sub/data.bin": payload])
        let directory = server.directory
        #expect(FileManager.default.fileExists(atPath: directory + "/sub/data.bin"))
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        let client = try RawClient(port: server.port)
        try client.send("GET /sub/data.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let response = client.receive()
        #expect(String(decoding: response.prefix(12), as: UTF8.self).hasSuffix(" 200"))
        #expect(response.suffix(payload.count).elementsEqual(payload))
        server.stop()
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("waitUntil returns as soon as the condition holds, and false after the timeout")
    func waitUntilPolls() {
        let clock = ContinuousClock()
        let start = clock.now
        #expect(waitUntil(timeout: 5) { clock.now - start > .milliseconds(20) })
        #expect(clock.now - start < .seconds(1))
        #expect(!waitUntil(timeout: 0.05) { false })
        #expect(clock.now - start >= .milliseconds(70))
    }
}
