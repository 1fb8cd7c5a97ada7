// Finding line ends in received bytes, resumably: bytes are searched once even when they arrive one at
// a time. A line ends at LF, optionally preceded by CR; a CR anywhere else is an error, never a line end.
//
// The search skips eight bytes at a time while none of them is below 0x0E (the range holding NUL, LF and
// CR), and notes on the way whether the line holds a NUL, so field values need no second pass for it.

/// A resumable search for the end of the line at the start of the unconsumed bytes.
struct LineScanner {
    /// Where a complete line ends, relative to the start of the bytes searched.
    struct Line {
        /// Bytes of the line without its terminator.
        var contentLength: Int
        /// Bytes of the line with its terminator (CRLF or LF).
        var length: Int
        /// True when the line's content holds a NUL byte.
        var containsNUL: Bool
    }

    /// Bytes of the pending line already searched, so later calls resume there.
    private var searched = 0
    /// True when the bytes already searched hold a NUL.
    private var sawNUL = false

    /// The first line of `bytes` (which must start where the previous call's bytes started, until a line
    /// was found), or nil when its end has not arrived yet.
    /// Throws `invalidLineEnding` for a CR not followed by LF and `headerLineTooLong` as soon as the line
    /// is known to exceed `maxLength` bytes without its terminator.
    mutating func nextLine(in bytes: UnsafeRawBufferPointer, maxLength: Int) throws(HTTPParseError) -> Line? {
        var index = searched
        let count = bytes.count
        while index < count {
            if index + 8 <= count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                // High bit set in each byte below 0x0E; exact for the lowest such byte (borrows only run up).
                let low = (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080
                guard low != 0 else {
                    index += 8
                    continue
                }
                index += low.trailingZeroBitCount / 8
            }
            switch bytes[index] {
            case ASCII.lf:
                return try found(contentLength: index, length: index + 1, maxLength: maxLength)
            case ASCII.cr:
                guard index + 1 < count else {
                    searched = index
                    return try pending(contentLength: index, maxLength: maxLength)
                }
                guard bytes[index + 1] == ASCII.lf else { throw .invalidLineEnding }
                return try found(contentLength: index, length: index + 2, maxLength: maxLength)
            case ASCII.nul:
                sawNUL = true
                index += 1
            default:
                index += 1
            }
        }
        searched = index
        return try pending(contentLength: index, maxLength: maxLength)
    }

    private mutating func found(contentLength: Int, length: Int, maxLength: Int) throws(HTTPParseError) -> Line {
        guard contentLength <= maxLength else { throw .headerLineTooLong }
        let line = Line(contentLength: contentLength, length: length, containsNUL: sawNUL)
        searched = 0
        sawNUL = false
        return line
    }

    private func pending(contentLength: Int, maxLength: Int) throws(HTTPParseError) -> Line? {
        guard contentLength <= maxLength else { throw .headerLineTooLong }
        return nil
    }
}
