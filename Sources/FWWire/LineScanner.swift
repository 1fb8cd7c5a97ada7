// Finding line ends in received bytes, resumably: bytes are searched once even when they arrive one at
// a time. A line ends at LF, optionally preceded by CR; a CR anywhere else is an error, never a line end.

/// A resumable search for the end of the line at the start of the unconsumed bytes.
struct LineScanner {
    /// Where a complete line ends, relative to the start of the bytes searched.
    struct Line {
        /// Bytes of the line without its terminator.
        var contentLength: Int
        /// Bytes of the line with its terminator (CRLF or LF).
        var length: Int
    }

    /// Bytes of the pending line already searched, so later calls resume there.
    private var searched = 0

    /// The first line of `bytes` (which must start where the previous call's bytes started, until a line
    /// was found), or nil when its end has not arrived yet.
    /// Throws `invalidLineEnding` for a CR not followed by LF and `headerLineTooLong` as soon as the line
    /// is known to exceed `maxLength` bytes without its terminator.
    mutating func nextLine(in bytes: UnsafeRawBufferPointer, maxLength: Int) throws(HTTPParseError) -> Line? {
        var index = searched
        while index < bytes.count {
            switch bytes[index] {
            case ASCII.lf:
                return try found(Line(contentLength: index, length: index + 1), maxLength: maxLength)
            case ASCII.cr:
                guard index + 1 < bytes.count else {
                    searched = index
                    return try pending(contentLength: index, maxLength: maxLength)
                }
                guard bytes[index + 1] == ASCII.lf else { throw .invalidLineEnding }
                return try found(Line(contentLength: index, length: index + 2), maxLength: maxLength)
            default:
                index += 1
            }
        }
        searched = index
        return try pending(contentLength: index, maxLength: maxLength)
    }

    private mutating func found(_ line: Line, maxLength: Int) throws(HTTPParseError) -> Line {
        guard line.contentLength <= maxLength else { throw .headerLineTooLong }
        searched = 0
        return line
    }

    private func pending(contentLength: Int, maxLength: Int) throws(HTTPParseError) -> Line? {
        guard contentLength <= maxLength else { throw .headerLineTooLong }
        return nil
    }
}
