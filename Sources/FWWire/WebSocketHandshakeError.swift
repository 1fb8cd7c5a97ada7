// Why an opening handshake (RFC 6455 §4.1, RFC 7692 §5 and §7) could not be made or was refused.

/// A handshake we were asked to make that is invalid (local), or a server response that does not
/// complete the handshake (remote; RFC 6455 §4.1 says the client must then fail the connection).
///
/// Compare with the static members; the description is for people and not part of the contract.
public struct WebSocketHandshakeError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case invalidKey
        case invalidProtocol
        case invalidDeflateOffer
        case unexpectedStatus
        case missingUpgrade
        case missingConnectionUpgrade
        case invalidAccept
        case unexpectedProtocol
        case malformedExtensions
        case unexpectedExtension
        case invalidDeflateParameters
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    // MARK: Local: the request

    /// A key that is not the base64 form of 16 bytes.
    public static let invalidKey = WebSocketHandshakeError(.invalidKey)
    /// A requested subprotocol that is empty, not a token, or requested twice.
    public static let invalidProtocol = WebSocketHandshakeError(.invalidProtocol)
    /// A permessage-deflate offer with window bits outside 8-15.
    public static let invalidDeflateOffer = WebSocketHandshakeError(.invalidDeflateOffer)

    // MARK: Remote: the response

    /// A status other than 101 (the response is then an ordinary HTTP response).
    public static let unexpectedStatus = WebSocketHandshakeError(.unexpectedStatus)
    /// No `Upgrade: websocket`.
    public static let missingUpgrade = WebSocketHandshakeError(.missingUpgrade)
    /// No `upgrade` token in `Connection`.
    public static let missingConnectionUpgrade = WebSocketHandshakeError(.missingConnectionUpgrade)
    /// `Sec-WebSocket-Accept` missing, repeated, or not the value the key calls for.
    public static let invalidAccept = WebSocketHandshakeError(.invalidAccept)
    /// A subprotocol that was not requested, or more than one.
    public static let unexpectedProtocol = WebSocketHandshakeError(.unexpectedProtocol)
    /// `Sec-WebSocket-Extensions` that does not follow RFC 6455 §9.1's grammar.
    public static let malformedExtensions = WebSocketHandshakeError(.malformedExtensions)
    /// An extension that was not offered, or one named twice.
    public static let unexpectedExtension = WebSocketHandshakeError(.unexpectedExtension)
    /// permessage-deflate parameters RFC 7692 §7.1 forbids in a response to our offer.
    public static let invalidDeflateParameters = WebSocketHandshakeError(.invalidDeflateParameters)

    // MARK: Predicates

    /// True for errors in the request we were asked to make (nothing was sent); false when the server's
    /// response failed the handshake.
    public var isLocal: Bool {
        code == .invalidKey || code == .invalidProtocol || code == .invalidDeflateOffer
    }

    /// A short English explanation.
    public var description: String {
        switch code {
        case .invalidKey: "Sec-WebSocket-Key is not the base64 form of 16 bytes"
        case .invalidProtocol: "requested subprotocol is empty, not a token, or repeated"
        case .invalidDeflateOffer: "permessage-deflate window bits outside 8-15"
        case .unexpectedStatus: "handshake response status is not 101"
        case .missingUpgrade: "handshake response without Upgrade: websocket"
        case .missingConnectionUpgrade: "handshake response without Connection: upgrade"
        case .invalidAccept: "Sec-WebSocket-Accept missing or wrong"
        case .unexpectedProtocol: "server chose a subprotocol that was not requested"
        case .malformedExtensions: "malformed Sec-WebSocket-Extensions"
        case .unexpectedExtension: "server chose an extension that was not offered"
        case .invalidDeflateParameters: "invalid permessage-deflate parameters in the response"
        }
    }
}
