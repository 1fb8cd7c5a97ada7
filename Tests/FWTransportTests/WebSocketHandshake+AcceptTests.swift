// The handshake's key and accept value, computed with FWTLS: RFC 6455 §1.3's example, and fresh keys
// that are valid and differ.

import FWWire
import TestSupport
import Testing

@testable import FWTransport

@Suite struct WebSocketHandshakeAcceptTests {
    @Test func theExampleOfRFC6455() throws {
        let handshake = try WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(handshake.expectedAccept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func freshKeysAreSixteenRandomBytes() throws {
        var random = SplitMix64(seed: 6455)
        let first = try WebSocketHandshake(protocols: ["chat"], using: &random)
        let second = try WebSocketHandshake(using: &random)
        #expect(first.key.count == 24 && first.key.hasSuffix("=="))
        #expect(first.key != second.key)
        #expect(first.protocols == ["chat"])
        var system = SystemRandomNumberGenerator()
        #expect(try WebSocketHandshake(using: &system).key != WebSocketHandshake(using: &system).key)
    }

    @Test func aResponseWithTheComputedAcceptIsValid() throws {
        var random = SplitMix64(seed: 1)
        let handshake = try WebSocketHandshake(using: &random)
        let response = HTTPResponseHead(
            version: .http1_1, status: 101, reason: "Switching Protocols",
            headers: [
                "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": handshake.expectedAccept,
            ])
        #expect(try handshake.validate(response, expectedAccept: handshake.expectedAccept)
            == WebSocketHandshake.Agreement(subprotocol: nil, deflate: nil))
    }
}
