// Every number the parser enforces, in one place (CONFORMANCE.md: "a rule with a number is also in one
// Limits type").

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

    /// The defaults above.
    public init() {
        maxLineLength = 64 * 1024
        maxHeadSize = 256 * 1024
        maxHeaderCount = 1000
        maxChunkSizeDigits = 16
        maxChunkExtensionLength = 4 * 1024
        maxTrailerSize = 64 * 1024
    }
}
