// The client's side of the opening handshake (RFC 6455 §4.1), without I/O: the header fields the GET
// request adds, and the checks of the server's response, in the order §4.1 lists them:
//
//   status 101                                       else unexpectedStatus
//   Upgrade holds the token "websocket"              else missingUpgrade
//   Connection holds the token "upgrade"             else missingConnectionUpgrade
//   exactly one Sec-WebSocket-Accept, equal to base64(SHA-1(key + GUID))   else invalidAccept
//   Sec-WebSocket-Extensions: only what was offered (RFC 7692 §7 for permessage-deflate's parameters)
//   Sec-WebSocket-Protocol: absent, or exactly one of those requested      else unexpectedProtocol
//
// FWWire has neither SHA-1 nor base64 (both come from OpenSSL in FWTLS): the caller makes the key from
// 16 random bytes and passes the accept value `acceptSource` calls for.

/// One opening handshake: the key and what the client asks for, then what the server agreed to.
public struct WebSocketHandshake: Sendable, Hashable {
    /// The GUID RFC 6455 §1.3 appends to the key before hashing.
    public static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Key`: the base64 form of 16 random bytes, fresh for each handshake.
    public let key: String
    /// The subprotocols requested, in order of preference.
    public let protocols: [String]
    /// The permessage-deflate offer, or nil to offer no extension.
    public let deflate: WebSocketDeflateOffer?

    /// What the server agreed to.
    public struct Agreement: Sendable, Hashable {
        /// The subprotocol the server chose, or nil for none.
        public var subprotocol: String?
        /// The permessage-deflate parameters, or nil when the server did not accept the offer (or none
        /// was made).
        public var deflate: WebSocketDeflateParameters?

        /// An agreement from its parts.
        public init(subprotocol: String?, deflate: WebSocketDeflateParameters?) {
            self.subprotocol = subprotocol
            self.deflate = deflate
        }
    }

    /// A handshake with `key` (base64 of 16 random bytes), requesting `protocols` and offering `deflate`.
    /// Throws `invalidKey`, `invalidProtocol` (empty, not a token, or repeated) or `invalidDeflateOffer`.
    public init(
        key: String, protocols: [String] = [], deflate: WebSocketDeflateOffer? = nil
    ) throws(WebSocketHandshakeError) {
        guard Self.isValidKey(key) else { throw .invalidKey }
        guard protocols.allSatisfy({ !$0.isEmpty && ByteClass.token.containsAll($0.utf8) }),
            Set(protocols).count == protocols.count
        else { throw .invalidProtocol }
        guard deflate?.isValid ?? true else { throw .invalidDeflateOffer }
        self.key = key
        self.protocols = protocols
        self.deflate = deflate
    }

    // MARK: Request

    /// The text whose SHA-1, in base64, the server must send back as `Sec-WebSocket-Accept`.
    public var acceptSource: String {
        key + Self.acceptGUID
    }

    /// The header fields the handshake request carries besides Host (and Origin, for browsers).
    public var requestHeaders: HTTPHeaders {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": "13",
        ]
        if !protocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: protocols.joined(separator: ", "))
        }
        if let deflate {
            headers.add(name: "Sec-WebSocket-Extensions", value: deflate.headerValue)
        }
        return headers
    }

    // MARK: Response

    /// Checks the server's response against this handshake; `expectedAccept` is
    /// base64(SHA-1(`acceptSource`)). Returns what the server agreed to.
    public func validate(
        _ response: HTTPResponseHead, expectedAccept: String
    ) throws(WebSocketHandshakeError) -> Agreement {
        let headers = response.headers
        guard response.status == 101 else { throw .unexpectedStatus }
        guard headers.containsToken("websocket", inField: "Upgrade") else { throw .missingUpgrade }
        guard headers.containsToken("upgrade", inField: "Connection") else { throw .missingConnectionUpgrade }
        let accepts = headers.values(name: "Sec-WebSocket-Accept")
        guard accepts.count == 1, accepts[0] == expectedAccept else { throw .invalidAccept }
        let deflate = try WebSocketExtensionList(headers).agreeOnDeflate(offer: deflate)
        return Agreement(subprotocol: try chosenProtocol(headers), deflate: deflate)
    }

    /// The subprotocol the response names: none, or one field holding one of those requested.
    private func chosenProtocol(_ headers: HTTPHeaders) throws(WebSocketHandshakeError) -> String? {
        let chosen = headers.values(name: "Sec-WebSocket-Protocol")
        guard let first = chosen.first else { return nil }
        guard chosen.count == 1, protocols.contains(first) else { throw .unexpectedProtocol }
        return first
    }

    /// 22 base64 characters and "==", the last character holding only two bits (16 bytes, canonical).
    private static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        guard bytes[..<22].allSatisfy(isBase64Character) else { return false }
        return "AQgw".utf8.contains(bytes[21])
    }

    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }
}
