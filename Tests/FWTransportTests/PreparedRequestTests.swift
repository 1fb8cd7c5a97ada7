@testable import FWTransport
import FWWire
import Testing

// PreparedRequest completes and encodes a request head: `Host` is always the first field (RFC 9110 §7.2),
// whether the transport adds it or the request brought its own.
@Suite struct PreparedRequestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var key: ConnectionKey
        var fields: [(String, String)]
        var expectedHead: String

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no fields", key: ConnectionKey(scheme: "http", host: "example.test", port: 80), fields: [],
             expectedHead: "GET / HTTP/1.1\r\nHost: example.test\r\n\r\n"),
        Case(name: "added before the request's own fields",
             key: ConnectionKey(scheme: "http", host: "example.test", port: 8080),
             fields: [("Accept", "*/*"), ("X-A", "1")],
             expectedHead: "GET / HTTP/1.1\r\nHost: example.test:8080\r\nAccept: */*\r\nX-A: 1\r\n\r\n"),
        Case(name: "the request's own Host moves to the front",
             key: ConnectionKey(scheme: "https", host: "example.test", port: 443),
             fields: [("Accept", "*/*"), ("host", "virtual.test")],
             expectedHead: "GET / HTTP/1.1\r\nhost: virtual.test\r\nAccept: */*\r\n\r\n"),
        Case(name: "IPv6 literal in brackets", key: ConnectionKey(scheme: "http", host: "::1", port: 8080),
             fields: [("X-A", "1")], expectedHead: "GET / HTTP/1.1\r\nHost: [::1]:8080\r\nX-A: 1\r\n\r\n"),
    ]

    @Test(arguments: cases)
    func hostIsTheFirstField(_ testCase: Case) throws {
        var headers = HTTPHeaders()
        for (name, value) in testCase.fields { headers.add(name: name, value: value) }
        let request = TransportRequest(key: testCase.key,
                                       head: HTTPRequestHead(method: "GET", target: "/", headers: headers))
        let prepared = try PreparedRequest(id: RequestID(1), request: request, delegate: StubRequests.Sink())
        #expect(String(decoding: prepared.encodedHead, as: UTF8.self) == testCase.expectedHead)
    }

    @Test func bodyFramingFollowsHost() throws {
        var headers = HTTPHeaders()
        headers.add(name: "X-A", value: "1")
        let request = TransportRequest(key: StubRequests.key,
                                       head: HTTPRequestHead(method: "POST", target: "/", headers: headers),
                                       body: .bytes(Array("data".utf8)))
        let prepared = try PreparedRequest(id: RequestID(1), request: request, delegate: StubRequests.Sink())
        #expect(String(decoding: prepared.encodedHead, as: UTF8.self)
                == "POST / HTTP/1.1\r\nHost: example.test\r\nX-A: 1\r\nContent-Length: 4\r\n\r\n")
    }
}
