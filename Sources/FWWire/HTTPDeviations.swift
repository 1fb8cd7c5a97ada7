// The named deviations: each leniency of the response parser that lets a robust client accept a response a
// strict reading of RFC 9112 would refuse (CONFORMANCE.md, "Named deviations"). A response records the ones
// it needed as bits of one word, so recording costs no allocation; names are built only when asked for.
// The names are a contract (fwcurl's `--json` `violations`, the transaction metrics, strict mode's error):
// never rename one, only add. The table with each rule lives in the DocC article `Conformance`.

/// A set of named deviations from RFC 9112 that the parser tolerated (or, when refused, rejects).
public struct HTTPDeviations: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// One bit per deviation.
    public let rawValue: UInt16

    /// A set from its bits.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// `bare-lf`: a status, field, chunk-size or trailer line, or the end of chunk data, ended by LF without CR.
    public static let bareLF = HTTPDeviations(rawValue: 1 << 0)
    /// `obs-fold`: a field line continued on the next line (starting with SP or HTAB); joined with one SP.
    public static let obsFold = HTTPDeviations(rawValue: 1 << 1)
    /// `missing-reason-phrase`: a status line that ends right after the status code, without the SP.
    public static let missingReasonPhrase = HTTPDeviations(rawValue: 1 << 2)
    /// `empty-chunk-extension`: a `;` on a chunk-size line with no extension name after it.
    public static let emptyChunkExtension = HTTPDeviations(rawValue: 1 << 3)
    /// `whitespace-before-chunk-crlf`: SP or HTAB right before the line end of a chunk-size line.
    public static let whitespaceBeforeChunkCRLF = HTTPDeviations(rawValue: 1 << 4)
    /// `duplicate-identical-content-length`: several Content-Length values (fields or a list), all equal.
    public static let duplicateIdenticalContentLength = HTTPDeviations(rawValue: 1 << 5)
    /// `transfer-encoding-with-content-length`: both framing fields; Transfer-Encoding wins, no reuse.
    public static let transferEncodingWithContentLength = HTTPDeviations(rawValue: 1 << 6)
    /// `transfer-encoding-in-http10`: `Transfer-Encoding: chunked` in an HTTP/1.0 response; read until close.
    public static let transferEncodingInHTTP10 = HTTPDeviations(rawValue: 1 << 7)

    /// Every named deviation (strict mode refuses these).
    public static let all: HTTPDeviations = [
        .bareLF, .obsFold, .missingReasonPhrase, .emptyChunkExtension, .whitespaceBeforeChunkCRLF,
        .duplicateIdenticalContentLength, .transferEncodingWithContentLength, .transferEncodingInHTTP10,
    ]

    /// Each deviation with its stable kebab-case name, in bit order.
    private static let named: [(HTTPDeviations, String)] = [
        (.bareLF, "bare-lf"),
        (.obsFold, "obs-fold"),
        (.missingReasonPhrase, "missing-reason-phrase"),
        (.emptyChunkExtension, "empty-chunk-extension"),
        (.whitespaceBeforeChunkCRLF, "whitespace-before-chunk-crlf"),
        (.duplicateIdenticalContentLength, "duplicate-identical-content-length"),
        (.transferEncodingWithContentLength, "transfer-encoding-with-content-length"),
        (.transferEncodingInHTTP10, "transfer-encoding-in-http10"),
    ]

    /// The names of the deviations in the set, in bit order (empty for none).
    public var names: [String] {
        Self.named.compactMap { contains($0.0) ? $0.1 : nil }
    }

    /// The deviation with this name; nil for an unknown name.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.1 == name }) else { return nil }
        self = match.0
    }

    /// The names joined with ", ".
    public var description: String {
        names.joined(separator: ", ")
    }
}

// MARK: - Recording

extension HTTPDeviations {
    /// Adds `deviation`, or throws `HTTPParseError.refused(deviation)` when `refused` holds it.
    @inline(__always)
    mutating func record(_ deviation: HTTPDeviations, refusing refused: HTTPDeviations) throws(HTTPParseError) {
        guard refused.isDisjoint(with: deviation) else { throw .refused(deviation) }
        formUnion(deviation)
    }
}
