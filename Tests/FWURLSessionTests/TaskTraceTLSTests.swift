// The event trace's TLS messages after the handshake (issue 27, item 5): a TLS 1.3 server sends its
// NewSessionTicket messages after the handshake, read with the first response bytes; a traced task's trace has
// each as a `tls_message` event after the `tls` event (whose messages end with our Finished), in wire order
// with the `recv` events. Against `openssl s_server -www`, which answers with a status page and closes.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct TaskTraceTLSTests {
    /// The trace events of one traced GET of s_server's status page (s_server started with `flag`).
    private static func tracedGet(_ flag: String) throws -> [URLSessionTaskTraceEvent] {
        let server = try OpenSSLServer.start(extra: [flag])
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root)
        let recorder = TraceRecorder()
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: try #require(URL(string: "https://127.0.0.1:\(server.port)/"))).resume()
        #expect(recorder.waitForCompletions(1))
        let log = recorder.log.withLock { $0 }
        #expect(log.error == nil, "\(String(describing: log.error))")
        #expect(String(decoding: log.data, as: UTF8.self).contains("s_server"))
        return log.events
    }

    @Test("TLS 1.3: the NewSessionTickets read after the handshake are tls_message events, in order with recv")
    func newSessionTicketAfterHandshake() throws {
        let events = try Self.tracedGet("-tls1_3")
        let names = events.map(\.name)
        let tls = try #require(names.firstIndex(of: "tls"), "\(names)")
        guard case .strings(let handshake)? = events[tls][field: "messages"] else {
            Issue.record("no handshake messages: \(events[tls].jsonLine)")
            return
        }
        #expect(handshake.last == "> Finished" && !handshake.contains("< NewSessionTicket"), "\(handshake)")

        let messages = events.indices.filter { names[$0] == "tls_message" }
        let tickets = messages.filter { events[$0][field: "name"]?.string == "NewSessionTicket" }
        #expect(!tickets.isEmpty, "\(names)")
        for index in tickets {
            #expect(events[index][field: "direction"]?.string == "received", "\(events[index].jsonLine)")
            #expect(events[index][field: "type"]?.integer == 4)
        }
        // After the handshake and the request; before the response's bytes (s_server sends the tickets at once,
        // the response only after reading the request), which come in the reads after the tickets' read.
        let connected = try #require(names.firstIndex(of: "connected"))
        let firstSend = try #require(names.firstIndex(of: "send"))
        let firstRecv = try #require(names.firstIndex(of: "recv"), "\(names)")
        #expect(messages.allSatisfy { $0 > tls && $0 > connected && $0 > firstSend && $0 < firstRecv }, "\(names)")
        let head = try #require(names.firstIndex(of: "response_head"))
        #expect(firstRecv < head && names.last == "end", "\(names)")
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        // Same task, hop, attempt and connection as the rest of the attempt.
        let connection = events[connected].connection
        #expect(messages.allSatisfy { events[$0].connection == connection && events[$0].attempt == 1 })
    }

    @Test("TLS 1.2: the NewSessionTicket is part of the handshake (in the tls event), no tls_message follows")
    func ticketInsideTheTLS12Handshake() throws {
        let events = try Self.tracedGet("-tls1_2")
        let tls = try #require(events.first { $0.name == "tls" })
        guard case .strings(let handshake)? = tls[field: "messages"] else {
            Issue.record("no handshake messages: \(tls.jsonLine)")
            return
        }
        #expect(handshake.contains("< NewSessionTicket") && handshake.last == "< Finished", "\(handshake)")
        #expect(!events.contains { $0.name == "tls_message" }, "\(events.map(\.name))")
    }
}
