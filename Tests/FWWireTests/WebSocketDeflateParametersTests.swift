// WebSocketDeflateOffer: the Sec-WebSocket-Extensions element each offer writes; RFC 7692's defaults.

import FWWire
import Testing

@Suite struct WebSocketDeflateParametersTests {
    @Test(arguments: [
        (WebSocketDeflateOffer(), "permessage-deflate; client_max_window_bits"),
        (WebSocketDeflateOffer(offersClientMaxWindowBits: false), "permessage-deflate"),
        (WebSocketDeflateOffer(
            requestsServerNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10,
            clientMaxWindowBits: 12),
         "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; "
            + "client_max_window_bits=12"),
    ])
    func deflateOffers(_ offer: WebSocketDeflateOffer, _ value: String) throws {
        let handshake = try WebSocketHandshake(key: rfcKey, deflate: offer)
        #expect(handshake.requestHeaders.first(name: "Sec-WebSocket-Extensions") == value)
    }

    @Test func defaultsAreRFC7692s() {
        let parameters = WebSocketDeflateParameters()
        #expect(!parameters.serverNoContextTakeover && !parameters.clientNoContextTakeover)
        #expect(parameters.serverMaxWindowBits == 15 && parameters.clientMaxWindowBits == 15)
        #expect(WebSocketDeflateOffer.windowBits == 8...15)
    }
}
