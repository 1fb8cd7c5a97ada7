// WebSocketExtensionList: the Sec-WebSocket-Extensions grammar of RFC 6455 §9.1, through the handshake's
// validation (quoted values, whitespace, empty elements, several fields) and directly.

@testable import FWWire
import Testing

private let grammarCases: [HandshakeCase] = [
    accepts("empty elements and whitespace", extensions(" , permessage-deflate ;  server_no_context_takeover , "),
            deflate: defaultOffer, parameters: WebSocketDeflateParameters(serverNoContextTakeover: true)),
    accepts("a quoted value with an escape", extensions("permessage-deflate; server_max_window_bits=\"1\\2\""),
            deflate: defaultOffer, parameters: WebSocketDeflateParameters(serverMaxWindowBits: 12)),
    rejects("an empty quoted value", extensions("permessage-deflate; server_max_window_bits=\"\""),
            .malformedExtensions, deflate: defaultOffer),
    rejects("a dangling semicolon", extensions("permessage-deflate;"), .malformedExtensions, deflate: defaultOffer),
    rejects("a parameter without a name", extensions("permessage-deflate; =10"), .malformedExtensions,
            deflate: defaultOffer),
    rejects("an unterminated quoted value", extensions("permessage-deflate; server_max_window_bits=\"10"),
            .malformedExtensions, deflate: defaultOffer),
    rejects("a quoted value that is no token", extensions("permessage-deflate; server_max_window_bits=\"1 0\""),
            .malformedExtensions, deflate: defaultOffer),
    rejects("junk after an element", extensions("permessage-deflate x"), .malformedExtensions, deflate: defaultOffer),
]

@Suite struct WebSocketExtensionListTests {
    @Test(arguments: grammarCases)
    func grammar(_ testCase: HandshakeCase) throws {
        try testCase.check()
    }

    @Test func elementsOfEveryFieldInOrder() throws {
        let headers: HTTPHeaders = [
            "Sec-WebSocket-Extensions": "a; x=1; y, b",
            "Other": "c",
            "sec-websocket-extensions": "c; z=\"q\"",
        ]
        let list = try WebSocketExtensionList(headers)
        #expect(list.elements.map(\.name) == ["a", "b", "c"])
        #expect(list.elements[0].parameters.map(\.name) == ["x", "y"])
        #expect(list.elements[0].parameters.map(\.value) == ["1", nil])
        #expect(list.elements[2].parameters.map(\.value) == ["q"])
    }
}
