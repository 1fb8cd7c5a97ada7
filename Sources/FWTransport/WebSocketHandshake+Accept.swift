import FWTLS
import FWWire

// The two cryptographic steps of the opening handshake (RFC 6455 §4.1) that FWWire leaves to its caller
// because they need OpenSSL: a random key, and the accept value the key calls for.

extension WebSocketHandshake {
    /// A handshake with a fresh key: 16 bytes from `generator` (the system CSPRNG outside tests), in
    /// base64 (RFC 6455 §4.1: "randomly selected ... for each connection").
    init<Generator: RandomNumberGenerator>(
        protocols: [String] = [], deflate: WebSocketDeflateOffer? = nil, using generator: inout Generator
    ) throws(WebSocketHandshakeError) {
        let nonce = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try self.init(nonce: nonce, protocols: protocols, deflate: deflate)
    }

    /// A handshake with a fresh key from the system CSPRNG. No generator is passed `inout` here: the system's
    /// is an empty value, whose `inout` address is one shared placeholder, and ThreadSanitizer reports two
    /// threads making upgrades at once as a race on it.
    init(protocols: [String] = [], deflate: WebSocketDeflateOffer? = nil) throws(WebSocketHandshakeError) {
        try self.init(nonce: (0..<16).map { _ in UInt8.random(in: .min ... .max) }, protocols: protocols,
                      deflate: deflate)
    }

    private init(nonce: [UInt8], protocols: [String], deflate: WebSocketDeflateOffer?) throws(WebSocketHandshakeError) {
        try self.init(key: Base64.encode(nonce), protocols: protocols, deflate: deflate)
    }

    /// base64(SHA-1(key + GUID)): the `Sec-WebSocket-Accept` value the server must send back.
    var expectedAccept: String {
        Base64.encode(Digest.sha1.hash(acceptSource))
    }
}
