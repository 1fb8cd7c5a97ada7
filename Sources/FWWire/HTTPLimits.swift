// Every number the parser enforces, in one place (CONFORMANCE.md: "a rule with a number is also in one
// Limits type"), and the limits of response bodies the session layer collects in memory.

/// Limits; each exceeded limit is an error, never a truncation.
public struct HTTPLimits: Sendable, Hashable {
    /// Longest status, header, trailer or chunk-size line, line terminator excluded (64 KiB).
    public var maxLineLength: Int
    /// Largest head: status line plus field lines with their terminators, the blank line that ends the
    /// head excluded (256 KiB).
    public var maxHeadSize: Int
    /// Most fields in one head, and separately in one trailer section (1000).
    public var maxHeaderCount: Int
    /// Most hex digits in a chunk size, leading zeros included (16).
    public var maxChunkSizeDigits: Int
    /// Most bytes after the size digits on one chunk-size line, line terminator excluded (4 KiB).
    public var maxChunkExtensionLength: Int
    /// Largest trailer section: all trailer field lines with their terminators, the blank line that ends
    /// the section excluded (64 KiB).
    public var maxTrailerSize: Int
    /// Most interim (1xx) responses before the final one (16): a server that keeps sending them fails the
    /// request instead of holding it forever (Go's transport allows 5).
    public var maxInterimResponses: Int
    /// Largest response body a task collects in memory — a task with a completion handler, and the async
    /// `data(for:)` and `upload(for:)` family (512 MiB). A body announced larger, or growing larger, ends the
    /// task with `URLError.dataLengthExceedsMaximum`. Bodies streamed to a delegate, a file or `bytes(for:)`
    /// are not limited (backpressure bounds their memory).
    public var maxCollectedBodySize: Int64
    /// How many times its encoded size a decoded body may grow, beyond a first 8 MiB (100; 0: no limit): a
    /// small gzip or deflate body that inflates a thousandfold (a decompression bomb) ends the task with
    /// `URLError.dataLengthExceedsMaximum` — on every path: collected in memory (long before
    /// `maxCollectedBodySize`), streamed to a delegate or `bytes(for:)`, or written to a download's file.
    public var maxDecompressionRatio: Int
    /// The named deviations the parser refuses instead of tolerating (none by default; strict mode:
    /// `HTTPDeviations.all`). A refused one fails the response with `HTTPParseError.refused(_:)`.
    public var refusedDeviations: HTTPDeviations

    /// The defaults above.
    public init() {
        maxLineLength = 64 * 1024
        maxHeadSize = 256 * 1024
        maxHeaderCount = 1000
        maxChunkSizeDigits = 16
        maxChunkExtensionLength = 4 * 1024
        maxTrailerSize = 64 * 1024
        maxInterimResponses = 16
        maxCollectedBodySize = 512 << 20
        maxDecompressionRatio = 100
        refusedDeviations = []
    }

    /// What a decoded body may always reach, whatever its ratio (see `maxDecompressionRatio`).
    public static let decompressionAllowance: Int64 = 8 << 20
}
