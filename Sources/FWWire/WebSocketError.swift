// Remote protocol errors of a WebSocket connection: what the peer's frames did wrong, each with the close
// code RFC 6455 §7.4.1 names for it.

/// A frame or message from the peer that breaks RFC 6455 or RFC 7692 (remote error).
///
/// Compare with the static members (`error == .invalidUTF8`); the description is for people and not part
/// of the contract. `closeCode` is the code to send in the close frame that fails the connection (RFC 6455
/// §7.1.7), except after a premature end, where there is no one left to send it to.
public struct WebSocketError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case reservedBitsSet
        case reservedOpcode
        case fragmentedControlFrame
        case controlFrameTooLong
        case unexpectedMask
        case missingMask
        case nonMinimalLength
        case invalidLength
        case frameTooLarge
        case messageTooBig
        case unexpectedContinuation
        case expectedContinuation
        case invalidUTF8
        case invalidCompressedData
        case invalidClosePayload
        case invalidCloseCode
        case invalidCloseReason
        case unexpectedEndOfStream
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    // MARK: Framing (1002, 1009)

    /// RSV2 or RSV3 set, or RSV1 without permessage-deflate or on a frame other than a message's first.
    public static let reservedBitsSet = WebSocketError(.reservedBitsSet)
    /// An opcode RFC 6455 reserves (3-7, 0xB-0xF).
    public static let reservedOpcode = WebSocketError(.reservedOpcode)
    /// A close, ping or pong without FIN.
    public static let fragmentedControlFrame = WebSocketError(.fragmentedControlFrame)
    /// A close, ping or pong with more than 125 payload bytes.
    public static let controlFrameTooLong = WebSocketError(.controlFrameTooLong)
    /// A masked frame received by a client (servers never mask).
    public static let unexpectedMask = WebSocketError(.unexpectedMask)
    /// An unmasked frame received by a server (clients always mask).
    public static let missingMask = WebSocketError(.missingMask)
    /// A payload length in more bytes than needed (16 bits for < 126, 64 bits for < 65536).
    public static let nonMinimalLength = WebSocketError(.nonMinimalLength)
    /// A 64-bit payload length with its most significant bit set.
    public static let invalidLength = WebSocketError(.invalidLength)
    /// A frame payload longer than `WebSocketLimits.maxFramePayload` (1009).
    public static let frameTooLarge = WebSocketError(.frameTooLarge)

    // MARK: Messages (1002, 1007, 1009)

    /// A message larger than `WebSocketLimits.maxMessageSize`, once decompressed (1009).
    public static let messageTooBig = WebSocketError(.messageTooBig)
    /// A continuation frame with no message in progress.
    public static let unexpectedContinuation = WebSocketError(.unexpectedContinuation)
    /// A text or binary frame while a fragmented message is still in progress.
    public static let expectedContinuation = WebSocketError(.expectedContinuation)
    /// A text message that is not UTF-8 (1007), reported at the first byte that proves it.
    public static let invalidUTF8 = WebSocketError(.invalidUTF8)
    /// A compressed message that does not inflate (1007).
    public static let invalidCompressedData = WebSocketError(.invalidCompressedData)

    // MARK: Close frames (1002, 1007)

    /// A close payload of exactly one byte.
    public static let invalidClosePayload = WebSocketError(.invalidClosePayload)
    /// A close code that may not appear in a close frame (`WebSocketCloseCode.isValidInCloseFrame`).
    public static let invalidCloseCode = WebSocketError(.invalidCloseCode)
    /// A close reason that is not UTF-8 (1007).
    public static let invalidCloseReason = WebSocketError(.invalidCloseReason)

    // MARK: Premature close (1006)

    /// The peer closed the connection without completing the close handshake.
    public static let unexpectedEndOfStream = WebSocketError(.unexpectedEndOfStream)

    // MARK: Predicates

    /// The close code RFC 6455 §7.4.1 names for this error: 1009 for sizes, 1007 for data that does
    /// not match its type, 1006 (never sent) for a premature end, 1002 for everything else.
    public var closeCode: WebSocketCloseCode {
        switch code {
        case .frameTooLarge, .messageTooBig: .messageTooBig
        case .invalidUTF8, .invalidCompressedData, .invalidCloseReason: .invalidFramePayloadData
        case .unexpectedEndOfStream: .abnormalClosure
        default: .protocolError
        }
    }

    /// True when the connection ended before the close handshake (maps to a lost connection); every
    /// other error is a protocol violation to answer with a close frame carrying `closeCode`.
    public var isPrematureEnd: Bool {
        code == .unexpectedEndOfStream
    }

    /// A short English explanation.
    public var description: String {
        switch code {
        case .reservedBitsSet: "reserved bits set in a frame header"
        case .reservedOpcode: "reserved opcode"
        case .fragmentedControlFrame: "fragmented control frame"
        case .controlFrameTooLong: "control frame payload longer than 125 bytes"
        case .unexpectedMask: "masked frame from a server"
        case .missingMask: "unmasked frame from a client"
        case .nonMinimalLength: "payload length not in its shortest form"
        case .invalidLength: "64-bit payload length with the high bit set"
        case .frameTooLarge: "frame payload too large"
        case .messageTooBig: "message too big"
        case .unexpectedContinuation: "continuation frame without a message in progress"
        case .expectedContinuation: "new message while a fragmented message is in progress"
        case .invalidUTF8: "text message is not UTF-8"
        case .invalidCompressedData: "compressed message does not inflate"
        case .invalidClosePayload: "close payload of one byte"
        case .invalidCloseCode: "close code not allowed in a close frame"
        case .invalidCloseReason: "close reason is not UTF-8"
        case .unexpectedEndOfStream: "connection closed without a close handshake"
        }
    }
}
