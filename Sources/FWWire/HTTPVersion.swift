// The protocol version of a message.

/// HTTP version.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    /// The major version (1 for HTTP/1.x).
    public var major: Int
    /// The minor version (0 or 1 for the versions FWWire speaks).
    public var minor: Int

    /// A version from its two numbers.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// The version as it appears on the wire, e.g. "HTTP/1.1".
    public var description: String {
        switch (major, minor) {
        case (1, 1): "HTTP/1.1" // every response but a few: no interpolation per response
        case (1, 0): "HTTP/1.0"
        default: "HTTP/\(major).\(minor)"
        }
    }
}
