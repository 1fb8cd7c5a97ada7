// Close status codes (RFC 6455 §7.4) and the close frame they travel in (§5.5.1).

// MARK: - Close code

/// A close frame's status code (RFC 6455 §7.4). Any 16-bit value can be held; `isValidInCloseFrame`
/// says whether a peer may put it on the wire.
public struct WebSocketCloseCode: Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit value on the wire.
    public let rawValue: UInt16

    /// The code with this value (application codes are 4000-4999, registered ones 3000-3999).
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    // MARK: RFC 6455 §7.4.1

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (a server shutting down, a page navigated away from).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: the endpoint cannot accept this type of data (e.g. binary when it only reads text).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1004: reserved by RFC 6455; never valid in a close frame.
    public static let reserved = WebSocketCloseCode(rawValue: 1004)
    /// 1005: reported when a close frame carried no code; never valid in a close frame.
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: reported when the connection ended without a close frame; never valid in a close frame.
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data did not match its type (e.g. a text message that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: (sent by a client) the server did not negotiate an extension the client requires.
    public static let mandatoryExtensionMissing = WebSocketCloseCode(rawValue: 1010)
    /// 1011: (sent by a server) an unexpected condition prevented it from fulfilling the request.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)
    /// 1015: reported when the TLS handshake failed; never valid in a close frame.
    public static let tlsHandshakeFailure = WebSocketCloseCode(rawValue: 1015)

    // MARK: IANA WebSocket Close Code Number Registry, after RFC 6455

    /// 1012: the server is restarting.
    public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
    /// 1013: the server is overloaded; try again later.
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)
    /// 1014: a gateway received an invalid response from upstream.
    public static let badGateway = WebSocketCloseCode(rawValue: 1014)

    // MARK: Rules

    /// True when a close frame may carry this code (RFC 6455 §7.4.1-2): 1000-1003, 1007-1014 and
    /// 3000-4999. Every other value (0-999, 1004-1006, 1015, the unassigned 1016-2999, 5000 and up) in a
    /// received close frame is a protocol error (1002), and the encoder never sends one.
    public var isValidInCloseFrame: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The code's number.
    public var description: String {
        String(rawValue)
    }
}

// MARK: - Close frame

/// What a close frame says: a status code and a UTF-8 reason, or nothing (an empty payload).
public struct WebSocketCloseFrame: Sendable, Hashable {
    /// The status code, or nil for an empty payload (reported as 1005, `noStatusReceived`).
    public var code: WebSocketCloseCode?
    /// The reason; always empty without a code. The encoder truncates it to fit 123 bytes.
    public var reason: String

    /// A close frame with `code` and `reason` (a reason is dropped when there is no code).
    public init(code: WebSocketCloseCode?, reason: String = "") {
        self.code = code
        self.reason = code == nil ? "" : reason
    }
}
