// The transfer codings other than chunked that a response may name in Transfer-Encoding (RFC 9112 §7) and
// that a client can undo: the compression codings of RFC 9112 §7.2 that share their algorithm with a content
// coding. FWWire only names them; FWTransport decodes them (FWWire does no compression).

/// A transfer coding other than `chunked` that FWNetworking decodes: `gzip` (and its alias `x-gzip`) and
/// `deflate`. Any other coding in a response's Transfer-Encoding is refused
/// (`HTTPParseError.unsupportedTransferCoding`), so that a body is never handed over still encoded.
public struct TransferCoding: Hashable, Sendable, CustomStringConvertible {
    private enum Name: Hashable {
        case gzip
        case deflate
    }

    private let name: Name

    private init(_ name: Name) {
        self.name = name
    }

    /// The gzip format (RFC 1952); `x-gzip` is the same coding (RFC 9112 §7.2).
    public static let gzip = TransferCoding(.gzip)
    /// The zlib format (RFC 1950) around deflate data (RFC 1951).
    public static let deflate = TransferCoding(.deflate)

    /// The coding a Transfer-Encoding element names (any case), or nil when it is not one we decode
    /// (`chunked` included: it is framing, not a coding to undo afterwards).
    init?(element: ArraySlice<UInt8>) {
        let name: Name? = element.withUnsafeBufferPointer { bytes in
            if ASCII.equalIgnoringCase(bytes, "gzip") || ASCII.equalIgnoringCase(bytes, "x-gzip") { return .gzip }
            return ASCII.equalIgnoringCase(bytes, "deflate") ? .deflate : nil
        }
        guard let name else { return nil }
        self.init(name)
    }

    /// The coding's name as Transfer-Encoding spells it.
    public var description: String {
        switch name {
        case .gzip: "gzip"
        case .deflate: "deflate"
        }
    }
}
