// Reading a field section (the header fields of a head, or the trailer fields after the last chunk) line
// by line into HTTPHeaders, with the header rules of CONFORMANCE.md: token names directly followed by a
// colon, OWS around values trimmed, NUL in values rejected, obs-fold joined with one SP, and caps on line
// length, section size and field count. A bare-LF line end and an obs-fold line are named deviations: recorded
// in `deviations`, or an error when `HTTPLimits.refusedDeviations` refuses them.

/// Reads field lines until the blank line that ends the section; consumes whole lines only.
struct FieldSectionReader {
    /// The fields read so far (all of them once `read` reported the section complete).
    private(set) var fields = HTTPHeaders()
    /// The named deviations the lines read so far needed.
    private(set) var deviations = HTTPDeviations()
    /// The deviations to refuse.
    private let refused: HTTPDeviations
    private var scanner = LineScanner()
    /// Bytes counted against `maxSize` so far.
    private var size: Int
    private let maxSize: Int
    private let maxLineLength: Int
    private let maxCount: Int
    /// The error for exceeding `maxSize`.
    private let tooLarge: HTTPParseError
    /// Room reserved when the first field arrives (a typical section fits, so building it does not regrow
    /// the arrays field by field; an empty section allocates nothing).
    private let expected: (fields: Int, bytes: Int)

    /// A reader for the header fields of a head whose status line took `statusLineLength` bytes (which
    /// the caller checked against `maxHeadSize`).
    static func head(limits: HTTPLimits, statusLineLength: Int) -> FieldSectionReader {
        FieldSectionReader(
            size: statusLineLength, maxSize: limits.maxHeadSize, maxLineLength: limits.maxLineLength,
            maxCount: limits.maxHeaderCount, tooLarge: .headTooLarge, expected: (16, 512),
            refused: limits.refusedDeviations)
    }

    /// A reader for the trailer section of a chunked body.
    static func trailers(limits: HTTPLimits) -> FieldSectionReader {
        FieldSectionReader(
            size: 0, maxSize: limits.maxTrailerSize, maxLineLength: limits.maxLineLength,
            maxCount: limits.maxHeaderCount, tooLarge: .trailersTooLarge, expected: (4, 128),
            refused: limits.refusedDeviations)
    }

    private init(
        size: Int, maxSize: Int, maxLineLength: Int, maxCount: Int, tooLarge: HTTPParseError,
        expected: (fields: Int, bytes: Int), refused: HTTPDeviations
    ) {
        self.refused = refused
        self.size = size
        self.maxSize = maxSize
        self.maxLineLength = maxLineLength
        self.maxCount = maxCount
        self.tooLarge = tooLarge
        self.expected = expected
    }

    /// Reads the complete lines at the start of `bytes` (which start at the first unread line). Returns
    /// how many bytes those lines took and whether the blank line ending the section was among them.
    mutating func read(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, complete: Bool) {
        var offset = 0
        while let line = try scanner.nextLine(in: bytes.suffix(from: offset), maxLength: maxLineLength) {
            let content = bytes.suffix(from: offset).prefix(upTo: line.contentLength)
            offset += line.length
            if line.length == line.contentLength + 1 {
                try deviations.record(.bareLF, refusing: refused)
            }
            if content.isEmpty {
                return (offset, true)
            }
            size += line.length
            guard size <= maxSize else { throw tooLarge }
            try parseFieldLine(content, mayHoldNUL: line.containsNUL)
        }
        return (offset, false)
    }

    /// Hands over the fields read and forgets them (the reader keeps no reference to a finished section's
    /// storage).
    mutating func takeFields() -> HTTPHeaders {
        var taken = HTTPHeaders()
        swap(&taken, &fields)
        return taken
    }

    // MARK: One field line

    /// `field-name ":" OWS field-value OWS`, or an obs-fold continuation of the previous field. Values are
    /// searched for NUL only when the line scanner saw one in the line.
    private mutating func parseFieldLine(_ line: UnsafeRawBufferPointer, mayHoldNUL: Bool) throws(HTTPParseError) {
        if ASCII.isWhitespace(line[0]) {
            guard !fields.isEmpty else { throw .invalidHeaderName }
            try deviations.record(.obsFold, refusing: refused)
            let continuation = line.trimmingWhitespace()
            if mayHoldNUL {
                try Self.validateValue(continuation)
            }
            fields.appendToLastValue(continuation)
            return
        }
        let token = ByteClass.token
        var colon = 0
        while colon < line.count, token.contains(line[colon]) {
            colon += 1
        }
        guard colon > 0, colon < line.count, line[colon] == ASCII.colon else { throw .invalidHeaderName }
        guard fields.count < maxCount else { throw .tooManyHeaders }
        // The value without the OWS around it (RFC 9110 §5.5).
        let value = line.whitespaceTrimmed(from: colon + 1)
        if mayHoldNUL {
            try Self.validateValue(UnsafeRawBufferPointer(rebasing: line[value]))
        }
        if fields.isEmpty {
            fields.reserveCapacity(fields: expected.fields, bytes: expected.bytes)
        }
        fields.appendFieldLine(UnsafeRawBufferPointer(rebasing: line[..<value.upperBound]), nameLength: colon,
                               valueStart: value.lowerBound)
    }

    /// Field values may hold any byte but NUL (CR and LF never reach here: they end lines or are errors).
    private static func validateValue(_ value: UnsafeRawBufferPointer) throws(HTTPParseError) {
        guard !value.contains(ASCII.nul) else { throw .invalidHeaderValue }
    }
}
