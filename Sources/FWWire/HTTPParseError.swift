// Remote protocol errors: what a response did wrong.

/// A response that breaks the protocol (remote error).
///
/// Compare with the static members (`error == .invalidStatusLine`); the description is for people and
/// not part of the contract.
public struct HTTPParseError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case invalidStatusLine
        case unsupportedVersion
        case invalidStatusCode
        case invalidHeaderName
        case invalidHeaderValue
        case invalidLineEnding
        case headerLineTooLong
        case headTooLarge
        case tooManyHeaders
        case invalidContentLength
        case conflictingContentLength
        case invalidTransferEncoding
        case unsupportedTransferCoding
        case invalidChunkSize
        case chunkSizeTooLarge
        case invalidChunkExtension
        case chunkExtensionTooLong
        case invalidChunkTerminator
        case trailersTooLarge
        case unsolicitedSwitchingProtocols
        case tooManyInterimResponses
        case unexpectedEndOfStream
        case refusedDeviation(UInt16)
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    // MARK: Status line

    /// The status line is not `HTTP-version SP 3DIGIT [SP reason]` (includes leading whitespace and an
    /// empty line before it, and CTLs in the reason phrase).
    public static let invalidStatusLine = HTTPParseError(.invalidStatusLine)
    /// A well-formed version other than HTTP/1.0 and HTTP/1.1.
    public static let unsupportedVersion = HTTPParseError(.unsupportedVersion)
    /// The status code is not exactly three digits, or is below 100.
    public static let invalidStatusCode = HTTPParseError(.invalidStatusCode)

    // MARK: Header and trailer fields

    /// An empty name, a byte outside `tchar` in a name, whitespace before the colon, a missing colon,
    /// or an obs-fold line with no field before it.
    public static let invalidHeaderName = HTTPParseError(.invalidHeaderName)
    /// NUL in a field value.
    public static let invalidHeaderValue = HTTPParseError(.invalidHeaderValue)
    /// A CR not followed by LF.
    public static let invalidLineEnding = HTTPParseError(.invalidLineEnding)
    /// A line longer than `HTTPLimits.maxLineLength`.
    public static let headerLineTooLong = HTTPParseError(.headerLineTooLong)
    /// A head larger than `HTTPLimits.maxHeadSize`.
    public static let headTooLarge = HTTPParseError(.headTooLarge)
    /// More fields than `HTTPLimits.maxHeaderCount` in a head or a trailer section.
    public static let tooManyHeaders = HTTPParseError(.tooManyHeaders)

    // MARK: Framing

    /// A Content-Length element that is not 1*DIGIT, or that overflows Int64.
    public static let invalidContentLength = HTTPParseError(.invalidContentLength)
    /// Content-Length elements with different values.
    public static let conflictingContentLength = HTTPParseError(.conflictingContentLength)
    /// Transfer-Encoding that names `chunked` more than once.
    public static let invalidTransferEncoding = HTTPParseError(.invalidTransferEncoding)
    /// Transfer-Encoding that names a coding we cannot undo (anything but `chunked`, `gzip`, `x-gzip` and
    /// `deflate`), `chunked` before another coding, or any coding but `chunked` in an HTTP/1.0 response: the
    /// body would be handed over still encoded.
    public static let unsupportedTransferCoding = HTTPParseError(.unsupportedTransferCoding)
    /// A chunk-size line that does not start with a hex digit or has junk after the digits.
    public static let invalidChunkSize = HTTPParseError(.invalidChunkSize)
    /// A chunk size with more than `HTTPLimits.maxChunkSizeDigits` digits or beyond Int64.
    public static let chunkSizeTooLarge = HTTPParseError(.chunkSizeTooLarge)
    /// A byte that cannot appear in a chunk extension (e.g. a CTL, or LF inside a quoted string).
    public static let invalidChunkExtension = HTTPParseError(.invalidChunkExtension)
    /// Chunk extensions longer than `HTTPLimits.maxChunkExtensionLength`.
    public static let chunkExtensionTooLong = HTTPParseError(.chunkExtensionTooLong)
    /// Chunk data not followed by CRLF (or LF).
    public static let invalidChunkTerminator = HTTPParseError(.invalidChunkTerminator)
    /// A trailer section larger than `HTTPLimits.maxTrailerSize`.
    public static let trailersTooLarge = HTTPParseError(.trailersTooLarge)
    /// A 101 response (we never ask to switch protocols).
    public static let unsolicitedSwitchingProtocols = HTTPParseError(.unsolicitedSwitchingProtocols)
    /// More interim (1xx) responses than `HTTPLimits.maxInterimResponses` before the final one.
    public static let tooManyInterimResponses = HTTPParseError(.tooManyInterimResponses)

    // MARK: Strict mode

    /// A named deviation that `HTTPLimits.refusedDeviations` refuses (strict mode): the description names it.
    public static func refused(_ deviation: HTTPDeviations) -> HTTPParseError {
        HTTPParseError(.refusedDeviation(deviation.rawValue))
    }

    /// The refused deviation, when strict mode refused one; nil for every other error.
    public var refusedDeviation: HTTPDeviations? {
        guard case .refusedDeviation(let bits) = code else { return nil }
        return HTTPDeviations(rawValue: bits)
    }

    // MARK: Premature close

    /// The peer closed before the message was complete.
    public static let unexpectedEndOfStream = HTTPParseError(.unexpectedEndOfStream)

    /// True when the message was cut short by the peer closing (maps to
    /// `URLError.networkConnectionLost`); every other error is malformed input
    /// (`URLError.badServerResponse`, or `cannotParseResponse`, see `isUnrecognizedResponse`).
    public var isPrematureEnd: Bool {
        code == .unexpectedEndOfStream
    }

    /// True when the bytes are not recognisably an HTTP/1.x response at all (status line, version,
    /// status code): URLSession reports that as `URLError.cannotParseResponse`.
    public var isUnrecognizedResponse: Bool {
        code == .invalidStatusLine || code == .unsupportedVersion || code == .invalidStatusCode
    }

    /// A short English explanation.
    public var description: String {
        switch code {
        case .invalidStatusLine: "invalid status line"
        case .unsupportedVersion: "unsupported HTTP version"
        case .invalidStatusCode: "invalid status code"
        case .invalidHeaderName: "invalid header field name"
        case .invalidHeaderValue: "invalid header field value"
        case .invalidLineEnding: "CR not followed by LF"
        case .headerLineTooLong: "line too long"
        case .headTooLarge: "response head too large"
        case .tooManyHeaders: "too many header fields"
        case .invalidContentLength: "invalid Content-Length"
        case .conflictingContentLength: "conflicting Content-Length values"
        case .invalidTransferEncoding: "chunked applied more than once"
        case .unsupportedTransferCoding: "a transfer coding that cannot be decoded"
        case .invalidChunkSize: "invalid chunk size"
        case .chunkSizeTooLarge: "chunk size too large"
        case .invalidChunkExtension: "invalid chunk extension"
        case .chunkExtensionTooLong: "chunk extension too long"
        case .invalidChunkTerminator: "chunk data not followed by CRLF"
        case .trailersTooLarge: "trailer section too large"
        case .unsolicitedSwitchingProtocols: "unsolicited 101 Switching Protocols"
        case .tooManyInterimResponses: "too many interim (1xx) responses"
        case .unexpectedEndOfStream: "connection closed before the response was complete"
        case .refusedDeviation(let bits): "strict mode refused the deviation \(HTTPDeviations(rawValue: bits))"
        }
    }
}
