// WebSocketHandshake: the request's header fields byte for byte; the checks of the response, one row per
// rule of RFC 6455 §4.1 and RFC 7692 §7, each with the agreement or the exact error; RFC 6455's key and
// accept example.

import FWWire
import Testing

/// RFC 6455 §1.3's example key and the accept value it calls for.
let rfcKey = "dGhlIHNhbXBsZSBub25jZQ=="
let rfcAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

// MARK: - Response rows

/// One response the handshake made with `protocols` and `deflate` must accept (with `agreement`) or
/// reject (with `error`).
struct HandshakeCase: Sendable, CustomTestStringConvertible {
    var name: String
    var protocols: [String] = []
    var deflate: WebSocketDeflateOffer?
    var response: HTTPResponseHead
    var agreement: WebSocketHandshake.Agreement?
    var error: WebSocketHandshakeError?

    var testDescription: String {
        name
    }

    /// Validates the response with RFC 6455's example key and compares the agreement or the error.
    func check(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let handshake = try WebSocketHandshake(key: rfcKey, protocols: protocols, deflate: deflate)
        let result = Result { () throws(WebSocketHandshakeError) in
            try handshake.validate(response, expectedAccept: rfcAccept)
        }
        switch (result, error) {
        case (.success(let agreement), nil):
            #expect(agreement == self.agreement, sourceLocation: sourceLocation)
        case (.failure(let error), let expected?):
            #expect(error == expected, sourceLocation: sourceLocation)
        default:
            Issue.record("got \(result), expected \(String(describing: error))", sourceLocation: sourceLocation)
        }
    }
}

/// A 101 response with the usual fields (each nil leaves the field out) and `extra` after them.
func response(
    status: Int = 101, upgrade: String? = "websocket", connection: String? = "Upgrade", accept: String? = rfcAccept,
    _ extra: [(String, String)] = []
) -> HTTPResponseHead {
    var fields: [(name: String, value: String)] = []
    upgrade.map { fields.append(("Upgrade", $0)) }
    connection.map { fields.append(("Connection", $0)) }
    accept.map { fields.append(("Sec-WebSocket-Accept", $0)) }
    fields += extra.map { (name: $0.0, value: $0.1) }
    return HTTPResponseHead(
        version: .http1_1, status: status, reason: "Switching Protocols", headers: HTTPHeaders(fields))
}

func accepts(
    _ name: String, _ response: HTTPResponseHead, protocols: [String] = [], deflate: WebSocketDeflateOffer? = nil,
    subprotocol: String? = nil, parameters: WebSocketDeflateParameters? = nil
) -> HandshakeCase {
    HandshakeCase(
        name: name, protocols: protocols, deflate: deflate, response: response,
        agreement: WebSocketHandshake.Agreement(subprotocol: subprotocol, deflate: parameters))
}

func rejects(
    _ name: String, _ response: HTTPResponseHead, _ error: WebSocketHandshakeError, protocols: [String] = [],
    deflate: WebSocketDeflateOffer? = nil
) -> HandshakeCase {
    HandshakeCase(name: name, protocols: protocols, deflate: deflate, response: response, error: error)
}

private let chat = ["chat", "superchat"]
let defaultOffer = WebSocketDeflateOffer()

func extensions(_ value: String) -> HTTPResponseHead {
    response([("Sec-WebSocket-Extensions", value)])
}

private let handshakeCases: [HandshakeCase] = [
    // MARK: Status, Upgrade, Connection, Accept
    accepts("RFC 6455 §1.3's example", response()),
    rejects("200 instead of 101", response(status: 200), .unexpectedStatus),
    rejects("426 Upgrade Required", response(status: 426), .unexpectedStatus),
    accepts("Upgrade in another case", response(upgrade: "WebSocket")),
    accepts("Upgrade as one token of a list", response(upgrade: "h2c, websocket")),
    rejects("no Upgrade", response(upgrade: nil), .missingUpgrade),
    rejects("Upgrade: websockets", response(upgrade: "websockets"), .missingUpgrade),
    accepts("Connection as one token of a list", response(connection: "keep-alive, UPGRADE")),
    rejects("no Connection", response(connection: nil), .missingConnectionUpgrade),
    rejects("Connection: upgraded", response(connection: "upgraded"), .missingConnectionUpgrade),
    rejects("no Sec-WebSocket-Accept", response(accept: nil), .invalidAccept),
    rejects("a wrong Sec-WebSocket-Accept", response(accept: "dGhlIHNhbXBsZSBub25jZQ=="), .invalidAccept),
    rejects("Sec-WebSocket-Accept in another case", response(accept: rfcAccept.lowercased()), .invalidAccept),
    rejects("two Sec-WebSocket-Accept fields", response([("Sec-WebSocket-Accept", rfcAccept)]), .invalidAccept),

    // MARK: Subprotocols
    accepts("a requested subprotocol", response([("Sec-WebSocket-Protocol", "superchat")]), protocols: chat,
            subprotocol: "superchat"),
    accepts("no subprotocol chosen", response(), protocols: chat),
    rejects("a subprotocol not requested", response([("Sec-WebSocket-Protocol", "other")]), .unexpectedProtocol,
            protocols: chat),
    rejects("a subprotocol in another case", response([("Sec-WebSocket-Protocol", "Chat")]), .unexpectedProtocol,
            protocols: chat),
    rejects("two subprotocols in one field", response([("Sec-WebSocket-Protocol", "chat, superchat")]),
            .unexpectedProtocol, protocols: chat),
    rejects("two subprotocol fields",
            response([("Sec-WebSocket-Protocol", "chat"), ("Sec-WebSocket-Protocol", "chat")]), .unexpectedProtocol,
            protocols: chat),
    rejects("a subprotocol when none was requested", response([("Sec-WebSocket-Protocol", "chat")]),
            .unexpectedProtocol),

    // MARK: Extensions
    rejects("an extension when none was offered", extensions("permessage-deflate"), .unexpectedExtension),
    accepts("permessage-deflate declined", response(), deflate: defaultOffer),
    accepts("permessage-deflate with no parameters", extensions("permessage-deflate"), deflate: defaultOffer,
            parameters: WebSocketDeflateParameters()),
    accepts("permessage-deflate in another case, among empty elements", extensions(", PerMessage-Deflate ,"),
            deflate: defaultOffer, parameters: WebSocketDeflateParameters()),
    rejects("an extension not offered", extensions("x-webkit-deflate-frame"), .unexpectedExtension,
            deflate: defaultOffer),
    rejects("permessage-deflate twice", extensions("permessage-deflate, permessage-deflate"), .unexpectedExtension,
            deflate: defaultOffer),
    rejects("permessage-deflate in two fields",
            response([
                ("Sec-WebSocket-Extensions", "permessage-deflate"), ("Sec-WebSocket-Extensions", "permessage-deflate"),
            ]),
            .unexpectedExtension, deflate: defaultOffer),
]

@Suite struct WebSocketHandshakeTests {
    @Test(arguments: handshakeCases)
    func responses(_ testCase: HandshakeCase) throws {
        try testCase.check()
    }

    @Test func theAcceptSourceOfRFC6455sExample() throws {
        let handshake = try WebSocketHandshake(key: rfcKey)
        #expect(handshake.acceptSource == "dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
    }

    // MARK: Request

    @Test func requestFields() throws {
        let plain = try WebSocketHandshake(key: rfcKey)
        #expect(plain.requestHeaders == [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": rfcKey,
            "Sec-WebSocket-Version": "13",
        ])
        let full = try WebSocketHandshake(key: rfcKey, protocols: chat, deflate: defaultOffer)
        #expect(full.requestHeaders == [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": rfcKey,
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Protocol": "chat, superchat",
            "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits",
        ])
    }

    @Test(arguments: [
        "", "dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZQ===", "dGhlIHNhbXBsZSBub25jZR==",
        "dGhlIHNhbXBsZSBub25j-Q==", "dGhlIHNhbXBsZSBub25jZQAA", "dGhlIHNhbXBsZSBub25jZQ= ",
    ])
    func invalidKeys(_ key: String) {
        #expect(throws: WebSocketHandshakeError.invalidKey) { try WebSocketHandshake(key: key) }
    }

    @Test(arguments: [[""], ["a b"], ["a,b"], ["chat", "chat"], ["é"], ["a\"b"]])
    func invalidProtocols(_ protocols: [String]) {
        #expect(throws: WebSocketHandshakeError.invalidProtocol) {
            try WebSocketHandshake(key: rfcKey, protocols: protocols)
        }
    }

    @Test(arguments: [
        WebSocketDeflateOffer(serverMaxWindowBits: 7), WebSocketDeflateOffer(serverMaxWindowBits: 16),
        WebSocketDeflateOffer(clientMaxWindowBits: 7), WebSocketDeflateOffer(clientMaxWindowBits: 16),
    ])
    func invalidOffers(_ offer: WebSocketDeflateOffer) {
        #expect(throws: WebSocketHandshakeError.invalidDeflateOffer) {
            try WebSocketHandshake(key: rfcKey, deflate: offer)
        }
    }
}
