// Local protocol errors: a request we were asked to write that would put invalid bytes on the wire.

/// A request the caller asked for that would put invalid bytes on the wire (local error).
///
/// Compare with the static members; the description is for people and not part of the contract.
public struct HTTPRequestError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case invalidMethod
        case invalidTarget
        case unsupportedVersion
        case invalidHeaderName
        case invalidHeaderValue
        case missingHost
        case conflictingFraming
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The method is empty or not a token.
    public static let invalidMethod = HTTPRequestError(.invalidMethod)
    /// The target is empty or contains SP, DEL or a CTL (CR, LF and NUL included).
    public static let invalidTarget = HTTPRequestError(.invalidTarget)
    /// A version other than HTTP/1.0 and HTTP/1.1.
    public static let unsupportedVersion = HTTPRequestError(.unsupportedVersion)
    /// A field name that is empty or not a token.
    public static let invalidHeaderName = HTTPRequestError(.invalidHeaderName)
    /// A field value containing CR, LF or NUL.
    public static let invalidHeaderValue = HTTPRequestError(.invalidHeaderValue)
    /// An HTTP/1.1 request without a Host field.
    public static let missingHost = HTTPRequestError(.missingHost)
    /// Both Content-Length and Transfer-Encoding (a request must be framed one way only).
    public static let conflictingFraming = HTTPRequestError(.conflictingFraming)

    /// A short English explanation.
    public var description: String {
        switch code {
        case .invalidMethod: "request method is not a token"
        case .invalidTarget: "request target is empty or contains whitespace or control characters"
        case .unsupportedVersion: "request version is not HTTP/1.0 or HTTP/1.1"
        case .invalidHeaderName: "request header field name is not a token"
        case .invalidHeaderValue: "request header field value contains CR, LF or NUL"
        case .missingHost: "HTTP/1.1 request without a Host field"
        case .conflictingFraming: "request has both Content-Length and Transfer-Encoding"
        }
    }
}
