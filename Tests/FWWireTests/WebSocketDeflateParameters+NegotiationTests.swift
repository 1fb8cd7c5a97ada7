// A client's reading of permessage-deflate's response parameters (RFC 7692 §7.1): one row per rule, each
// through the handshake's validation with the agreed parameters or the exact error.

import FWWire
import Testing

private func deflateAccepts(
    _ name: String, _ value: String, offer: WebSocketDeflateOffer = defaultOffer,
    _ parameters: WebSocketDeflateParameters
) -> HandshakeCase {
    accepts(name, extensions(value), deflate: offer, parameters: parameters)
}

private func deflateRejects(
    _ name: String, _ value: String, offer: WebSocketDeflateOffer = defaultOffer
) -> HandshakeCase {
    rejects(name, extensions(value), .invalidDeflateParameters, deflate: offer)
}

private let deflateCases: [HandshakeCase] = [
    deflateAccepts(
        "every parameter", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
            + "server_max_window_bits=10; client_max_window_bits=9",
        WebSocketDeflateParameters(
            serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10,
            clientMaxWindowBits: 9)),
    deflateAccepts(
        "whitespace and a quoted value", "permessage-deflate ;server_max_window_bits = \"8\"",
        WebSocketDeflateParameters(serverMaxWindowBits: 8)),
    deflateAccepts(
        "client_no_context_takeover announced by us", "permessage-deflate",
        offer: WebSocketDeflateOffer(clientNoContextTakeover: true),
        WebSocketDeflateParameters(clientNoContextTakeover: true)),
    deflateAccepts(
        "server_no_context_takeover requested and granted", "permessage-deflate; server_no_context_takeover",
        offer: WebSocketDeflateOffer(requestsServerNoContextTakeover: true),
        WebSocketDeflateParameters(serverNoContextTakeover: true)),
    deflateAccepts(
        "server_max_window_bits lowered below our request", "permessage-deflate; server_max_window_bits=9",
        offer: WebSocketDeflateOffer(serverMaxWindowBits: 10), WebSocketDeflateParameters(serverMaxWindowBits: 9)),
    deflateAccepts(
        "our client_max_window_bits kept when the server names none", "permessage-deflate",
        offer: WebSocketDeflateOffer(clientMaxWindowBits: 11), WebSocketDeflateParameters(clientMaxWindowBits: 11)),
    deflateAccepts(
        "client_max_window_bits lowered below our value", "permessage-deflate; client_max_window_bits=10",
        offer: WebSocketDeflateOffer(clientMaxWindowBits: 11), WebSocketDeflateParameters(clientMaxWindowBits: 10)),
    deflateRejects("client_max_window_bits without a value", "permessage-deflate; client_max_window_bits"),
    deflateRejects("server_max_window_bits without a value", "permessage-deflate; server_max_window_bits"),
    deflateRejects("server_max_window_bits=7", "permessage-deflate; server_max_window_bits=7"),
    deflateRejects("server_max_window_bits=16", "permessage-deflate; server_max_window_bits=16"),
    deflateRejects("a leading zero", "permessage-deflate; server_max_window_bits=09"),
    deflateRejects("a sign", "permessage-deflate; client_max_window_bits=+9"),
    deflateRejects("a value on server_no_context_takeover", "permessage-deflate; server_no_context_takeover=1"),
    deflateRejects("a value on client_no_context_takeover", "permessage-deflate; client_no_context_takeover=\"x\""),
    deflateRejects("an unknown parameter", "permessage-deflate; mux"),
    deflateRejects("a parameter twice", "permessage-deflate; server_no_context_takeover; server_no_context_takeover"),
    deflateRejects(
        "client_max_window_bits not offered", "permessage-deflate; client_max_window_bits=15",
        offer: WebSocketDeflateOffer(offersClientMaxWindowBits: false)),
    deflateRejects(
        "client_max_window_bits above our value", "permessage-deflate; client_max_window_bits=12",
        offer: WebSocketDeflateOffer(clientMaxWindowBits: 11)),
    deflateRejects(
        "server_no_context_takeover requested but not granted", "permessage-deflate",
        offer: WebSocketDeflateOffer(requestsServerNoContextTakeover: true)),
    deflateRejects(
        "server_max_window_bits requested but not granted", "permessage-deflate",
        offer: WebSocketDeflateOffer(serverMaxWindowBits: 10)),
    deflateRejects(
        "server_max_window_bits above our request", "permessage-deflate; server_max_window_bits=11",
        offer: WebSocketDeflateOffer(serverMaxWindowBits: 10)),
]

@Suite struct WebSocketDeflateNegotiationTests {
    @Test(arguments: deflateCases)
    func parameters(_ testCase: HandshakeCase) throws {
        try testCase.check()
    }
}
