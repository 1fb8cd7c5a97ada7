// Raw requests and separate field lines through the session API (issue 27, item 3): `URLRequest.fwRawRequest`
// goes out byte for byte on a connection of its own, a redirect from it is an ordinary request, and
// `fwAppendHeaderFieldLine` keeps a repeated name on lines of its own.

import Foundation
@testable import FWTransport
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct RawRequestTests {
    /// A server that records every byte each connection sent, answers `/moved` with a 302 to `/target`,
    /// anything else with 200 "ok", and keeps connections open.
    private static func recordingServer(_ received: LockedBox<[Int: [UInt8]]>) throws -> ScriptedServer {
        try ScriptedServer { connection in
            while let request = try connection.readRequest() {
                received.withLock { $0[connection.connectionIndex, default: []] += request.rawHead + request.rawBody }
                if request.target == "/moved" {
                    try connection.write("HTTP/1.1 302 Found\r\nLocation: /target\r\nContent-Length: 0\r\n\r\n")
                } else {
                    try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                }
            }
        }
    }

    /// Runs `body` with a recording server (into `received`) and an ephemeral session, both stopped after it.
    private static func withRecordingSession(_ received: LockedBox<[Int: [UInt8]]> = LockedBox([:]),
                                             _ body: (ScriptedServer, URLSession) throws -> Void) throws {
        let server = try recordingServer(received)
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        try body(server, session)
    }

    @Test("fwRawRequest's bytes arrive unchanged, on a new connection, and its redirect is an ordinary request")
    func rawBytesThroughTheSession() throws {
        let received = LockedBox<[Int: [UInt8]]>([:])
        try Self.withRecordingSession(received) { server, session in
            let base = try #require(URL(string: "http://127.0.0.1:\(server.port)/ignored"))
            // A first ordinary request leaves an idle connection the raw one must not use.
            #expect(load(session, URLRequest(url: base)).response?.statusCode == 200)

            // (The scripted server reads CRLF heads: the fwcurl tests send a bare LF to a raw server.)
            let raw = Array("GET /moved HTTP/1.1\r\nhOsT: 127.0.0.1\r\nX-Odd:  spaced \r\n\r\n".utf8)
            var request = URLRequest(url: base)
            request.fwRawRequest = Data(raw)
            request.setValue("not sent", forHTTPHeaderField: "X-Field")
            let result = load(session, request, timeout: 10)
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.response?.statusCode == 200)
            #expect(result.response?.url?.path == "/target")
            let connections = received.withLock { $0 }
            #expect(connections[1] == raw, "\(String(decoding: connections[1] ?? [], as: UTF8.self))")
            let followed = String(decoding: connections[2] ?? connections[0] ?? [], as: UTF8.self)
            #expect(followed.contains("GET /target HTTP/1.1\r\n"), "\(connections)")
            #expect(!followed.contains("X-Odd"))
        }
    }

    @Test("raw requests leave no entry in the session's pool once their connections closed")
    func rawRequestsLeaveNoPoolEntry() throws {
        try Self.withRecordingSession { server, session in
            let transport = try #require(session.transport)
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/raw"))
            var request = URLRequest(url: url)
            request.fwRawRequest = Data("GET /raw HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            for _ in 0..<5 {
                #expect(load(session, request, timeout: 10).response?.statusCode == 200)
        }
        #expect(server.connectionCount == 5)
        // Each raw request had a partition of its own; none of them is left once its connection closed.
        #expect(waitUntil(timeout: 10) { transport.state.withLock { $0.pool.keys.isEmpty } },
                "\(transport.state.withLock { $0.pool.keys })")
        }
    }

    @Test("fwAppendHeaderFieldLine keeps each line, in order and case; allHTTPHeaderFields joins them")
    func separateFieldLines() {
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        request.fwAppendHeaderFieldLine("1", forHTTPHeaderField: "X-Rep")
        request.addValue("a", forHTTPHeaderField: "Other")
        request.fwAppendHeaderFieldLine("2", forHTTPHeaderField: "x-REP")
        #expect(request.orderedHeaderFields.map { "\($0.name): \($0.value)" } == ["X-Rep: 1", "Other: a", "x-REP: 2"])
        #expect(request.value(forHTTPHeaderField: "x-rep") == "1")
        #expect(request.allHTTPHeaderFields == ["X-Rep": "1,2", "Other": "a"])
    }
}
