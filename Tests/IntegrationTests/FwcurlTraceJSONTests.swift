// `fwcurl --trace-json FILE|-` (issue 27, item 5): one JSON object per line for every event of every task, each
// with the envelope of the schema (t, task, hop, attempt, connection, event); the bytes it reports as sent are
// the bytes the server read.

import Foundation
import Testing
import TestSupport

@Suite struct FwcurlTraceJSONTests {
    /// The lines of a JSON trace, each parsed.
    static func events(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test("--trace-json FILE writes every event with the schema's envelope; sent bytes are what the server read")
    func traceFile() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = directory.file("trace.jsonl")
        let run = try Fwcurl.run(["-s", "--trace-json", trace, server.baseURL + "/deviation/obs-fold"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "hi")
        let events = try Self.events(try String(contentsOfFile: trace, encoding: .utf8))
        for event in events {
            #expect(event["t"] is Int && event["task"] is Int && event["hop"] as? Int == 0, "\(event)")
            #expect(event["attempt"] as? Int == 1 && event["event"] is String, "\(event)")
        }
        let names = events.compactMap { $0["event"] as? String }
        let expected = ["request", "pool", "connected", "send", "recv", "response_head", "deviations", "end"]
        #expect(expected.allSatisfy(names.contains), "\(names)")
        #expect(expected.compactMap(names.firstIndex(of:)) == expected.compactMap(names.firstIndex(of:)).sorted())
        #expect(events.first { $0["event"] as? String == "deviations" }?["names"] as? [String] == ["obs-fold"])
        let times = events.compactMap { $0["t"] as? Int }
        #expect(times == times.sorted())

        let sent = events.filter { $0["event"] as? String == "send" }
            .compactMap { ($0["data"] as? String).flatMap { Data(base64Encoded: $0) } }
            .reduce(Data(), +)
        let recorded = try Fwcurl.run([server.baseURL + "/recorded"])
        #expect(!sent.isEmpty)
        #expect(sent == recorded.stdout)
    }

    @Test("over https the trace has the connection's TLS handshake: its messages in order, version and cipher")
    func tlsHandshakeEvent() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let run = try Fwcurl.run(["-s", "--trace-json", "-", "-o", "/dev/null", "--cacert",
                                  TLSFixtures.path("root-ca.pem"), server.tlsBaseURL + "/x"])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try Self.events(run.text)
        let names = events.compactMap { $0["event"] as? String }
        let connect = try #require(names.firstIndex(of: "connect"), "\(names)")
        let tlsIndex = try #require(names.firstIndex(of: "tls"), "\(names)")
        let connected = try #require(names.firstIndex(of: "connected"), "\(names)")
        #expect(connect < tlsIndex && tlsIndex < connected)
        let tls = events[tlsIndex]
        #expect((tls["version"] as? String)?.hasPrefix("TLSv1.") == true, "\(tls)")
        #expect((tls["cipher"] as? String)?.isEmpty == false, "\(tls)")
        let messages = try #require(tls["messages"] as? [String], "\(tls)")
        #expect(messages.first == "> ClientHello", "\(messages)")
        #expect(messages.dropFirst().first == "< ServerHello", "\(messages)")
        #expect(messages.contains("< Certificate") && messages.last == "> Finished", "\(messages)")
        let start = try #require(tls["start_ns"] as? Int), end = try #require(tls["end_ns"] as? Int)
        #expect(start <= end)
    }

    @Test("--trace-json over TLS 1.3 shows the NewSessionTickets read after the handshake, before the response")
    func newSessionTicketEvent() throws {
        let server = try OpenSSLServer.start(extra: ["-tls1_3"])
        defer { server.stop() }
        let run = try Fwcurl.run(["-s", "--trace-json", "-", "-o", "/dev/null", "--cacert",
                                  TLSFixtures.path("root-ca.pem"), "https://127.0.0.1:\(server.port)/"])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try Self.events(run.text)
        let names = events.compactMap { $0["event"] as? String }
        let tls = try #require(names.firstIndex(of: "tls"), "\(names)")
        #expect((events[tls]["messages"] as? [String])?.last == "> Finished", "\(events[tls])")
        let tickets = names.indices.filter {
            names[$0] == "tls_message" && events[$0]["name"] as? String == "NewSessionTicket"
        }
        #expect(!tickets.isEmpty, "\(names)")
        #expect(tickets.allSatisfy {
            events[$0]["direction"] as? String == "received" && events[$0]["type"] as? Int == 4
        })
        let firstRecv = try #require(names.firstIndex(of: "recv"), "\(names)")
        #expect(tickets.allSatisfy { tls < $0 && $0 < firstRecv }, "\(names)")
    }

    @Test("--trace-json shows each chunk of a chunked body: its size and extensions, before its data")
    func chunkEvents() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let run = try Fwcurl.run(["-s", "--trace-json", "-", "-o", "/dev/null", server.baseURL + "/chunks"])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try Self.events(run.text)
        let chunks = events.filter { $0["event"] as? String == "chunk" }
        #expect(chunks.compactMap { $0["size"] as? Int } == [5, 26, 3, 0], "\(chunks)")
        #expect(chunks.map { $0["extensions"] as? String } == [nil, ";name=value;q=\"a b\"", nil, ";last"])
        let names = events.compactMap { $0["event"] as? String }
        // The first chunk's data follows it; the last-chunk comes after all the data, before the trailers.
        let first = try #require(names.firstIndex(of: "chunk"))
        #expect(names[first + 1] == "body", "\(names)")
        let last = try #require(names.lastIndex(of: "chunk"))
        let trailers = try #require(names.firstIndex(of: "trailers"), "\(names)")
        #expect(!names[last...].contains("body") && last < trailers, "\(names)")
    }

    @Test("--trace-json - writes the trace to stdout (the body going to -o)")
    func traceToStandardOutput() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try Fwcurl.run(["-s", "--trace-json", "-", "-o", directory.file("body"), server.baseURL + "/x"])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try Self.events(run.text)
        #expect(events.first?["event"] as? String == "request")
        #expect(events.last?["event"] as? String == "end")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("body"))) == Data("ok".utf8))
    }
}
