import FWWire

// MARK: - WebSocketUpgrade
//
// What a request needs to become a WebSocket (RFC 6455 §4.1): the handshake it carries (a fresh key, the
// subprotocols, the permessage-deflate offer) and the rules of the connection it turns into. The transport
// adds the handshake's fields to the request, accepts a 101 as its final response, checks it, and hands
// the connection out of the pool to a `WebSocketChannel` (`TransportEvent.upgraded`).

/// Asks the transport to turn a GET request's connection into a WebSocket.
public struct WebSocketUpgrade: Sendable {
    /// The opening handshake: key, subprotocols requested, compression offered.
    public let handshake: WebSocketHandshake
    /// The limits on what the peer sends (`maxMessageSize` is URLSessionWebSocketTask's `maximumMessageSize`).
    public var limits: WebSocketLimits
    /// How long a close we sent waits for the peer's before the connection is dropped.
    public var closeTimeout: Duration

    /// An upgrade with a fresh key from the system CSPRNG, asking for `protocols` (in order of preference)
    /// and, when `offersCompression`, offering permessage-deflate as browsers do. Throws `invalidProtocol`
    /// for an empty, repeated or non-token subprotocol.
    public init(protocols: [String] = [], offersCompression: Bool = true, limits: WebSocketLimits = WebSocketLimits(),
                closeTimeout: Duration = .seconds(5)) throws(WebSocketHandshakeError) {
        handshake = try WebSocketHandshake(protocols: protocols, deflate: offersCompression ? WebSocketDeflateOffer() : nil)
        self.limits = limits
        self.closeTimeout = closeTimeout
    }
}
