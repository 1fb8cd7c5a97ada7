// The golden fixtures (Fixtures/http1, STYLE.md principle 15) through the real transport on loopback: a
// scripted server reads the request, writes the fixture's reply bytes exactly (one write), then closes,
// resets or keeps the connection open as the fixture says. The transport must report the fixture's
// events (badServerResponse ↔ isBadResponse, networkConnectionLost ↔ isConnectionLost). A second
// request then shows whether the connection was reused: exactly when the response allows keep-alive,
// left no unread bytes, the request did not say `Connection: close` and the server kept it open.

import FWTransport
import FWWire
import Testing
import TestSupport

// MARK: - Every fixture on loopback

/// The reply to every request after the fixture's one.
private let secondReply = Array("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond".utf8)

@Test("golden fixtures through the transport on loopback", arguments: try HTTPFixture.loadAll())
func fixtureEndToEnd(_ fixture: HTTPFixture) throws {
    let server = try ScriptedServer { connection in try serve(fixture, on: connection) }
    defer { server.stop() }
    let client = try TransportFixture(HTTPTransport.Configuration(limits: try fixture.httpLimits()))
    defer { client.close() }

    var headers = HTTPHeaders()
    for field in fixture.requestHeaders {
        headers.add(name: String(decoding: field.name, as: UTF8.self),
                    value: String(decoding: field.value, as: UTF8.self))
    }
    let delegate = RecordingDelegate()
    client.transport.execute(
        getRequest(port: server.port, method: fixture.requestMethod, headers: headers, idleTimeout: .seconds(3)),
        delegate: delegate)
    let outcome = delegate.outcome(timeout: 5)
    #expect(outcome.terminalCount == 1, "exactly one end or failure")
    let observed = TransportObservation(delegate.recorded)
    let expected = TransportObservation(expecting: fixture)
    if fixture.afterReply == .reset {
        // A reset may discard bytes the client had not read yet: what did arrive must be a prefix.
        #expect(observed.failure == expected.failure)
        #expect(observed.isPrefix(of: expected), "\(observed)\nis not a prefix of \(expected)")
    } else {
        #expect(observed == expected)
    }
    #expect(server.requests.first?.method == fixture.requestMethod)

    let reusable = fixture.leavesConnectionReusable
    let second = client.run(getRequest(port: server.port, path: "/second", idleTimeout: .seconds(3)))
    #expect(second.error == nil)
    #expect(second.bodyText == "second", "the second request gets its own response, never left-over bytes")
    #expect(second.connection?.isReused == reusable)
    #expect(server.connectionCount == (reusable ? 1 : 2), reusable ? "connection reused" : "new connection")
}

/// The server side: the fixture's reply on the first connection, `secondReply` to any later request.
private func serve(_ fixture: HTTPFixture, on connection: ScriptedConnection) throws {
    guard try connection.readRequest() != nil else { return }
    guard connection.connectionIndex == 0 else {
        try connection.write(secondReply)
        _ = connection.waitForClose(timeout: 5)
        return
    }
    try connection.write(fixture.reply)
    if fixture.afterReply == .close {
        connection.close()
    } else if fixture.afterReply == .reset {
        connection.reset()
    } else if try connection.readRequest() != nil {
        try connection.write(secondReply)
        _ = connection.waitForClose(timeout: 5)
    }
}

// MARK: - Observations

/// What the transport reported, in a form a fixture can state exactly.
private struct TransportObservation: Equatable, CustomStringConvertible {
    enum Event: Equatable, CustomStringConvertible {
        case interim(HTTPFixture.Head)
        case head(HTTPFixture.Head)
        case body([UInt8])
        case end(trailers: [HTTPFixture.Field])

        var description: String {
            switch self {
            case .interim(let head): "interim \(head)"
            case .head(let head): "head \(head)"
            case .body(let bytes): "body \"\(HTTPFixture.escaped(bytes))\""
            case .end(let trailers): "end trailers \(trailers)"
            }
        }
    }

    enum Failure: Equatable {
        case badServerResponse
        case networkConnectionLost
        case other(String)
    }

    var events: [Event] = []
    var failure: Failure?

    var description: String {
        "events \(events), failure \(failure.map { "\($0)" } ?? "none")"
    }

    /// The response events of `recorded` (bodies joined) and its failure.
    init(_ recorded: [TransportEvent]) {
        for event in recorded {
            switch event {
            case .informational(let head): events.append(.interim(HTTPFixture.Head(head)))
            case .head(let head): events.append(.head(HTTPFixture.Head(head)))
            case .body(let bytes):
                if case .body(let earlier) = events.last {
                    events[events.count - 1] = .body(earlier + bytes)
                } else {
                    events.append(.body(bytes))
                }
            case .end(let trailers): events.append(.end(trailers: HTTPFixture.fields(trailers)))
            case .failed(let error):
                failure = error.isBadResponse ? .badServerResponse
                    : error.isConnectionLost ? .networkConnectionLost : .other("\(error)")
            default:
                // Connection facts, tracing and metrics are not part of the response.
                break
            }
        }
    }

    /// What `fixture` says the transport must report.
    init(expecting fixture: HTTPFixture) {
        let expectation = fixture.expectation
        events = expectation.interim.map(Event.interim)
        if let head = expectation.head { events.append(.head(head)) }
        // The transport undoes the transfer codings besides chunked; the parser reports the bytes as framed.
        let body = expectation.decodedBody ?? expectation.body
        if !body.isEmpty { events.append(.body(body)) }
        switch expectation.error {
        case .none: events.append(.end(trailers: expectation.trailers))
        case .some(let error): failure = error.isBadServerResponse ? .badServerResponse : .networkConnectionLost
        }
    }

    /// True when these events start `expected`'s (the last body may be shorter).
    func isPrefix(of expected: TransportObservation) -> Bool {
        guard events.count <= expected.events.count else { return false }
        return events.indices.allSatisfy { index in
            if events[index] == expected.events[index] { return true }
            guard index == events.count - 1, case .body(let got) = events[index],
                  case .body(let wanted) = expected.events[index] else { return false }
            return wanted.starts(with: got)
        }
    }
}
