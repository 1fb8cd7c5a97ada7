// ChunkedDecoder: the chunked transfer coding (RFC 9112 §7.1) as a resumable state machine, one state per
// place a byte can be in:
//
//   chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF;  last-chunk = 1*"0" [ chunk-ext ] CRLF;
//   then trailer-section CRLF.
//
//   sizeStart ──hex──▶ sizeDigits ──hex──▶ sizeDigits
//   sizeDigits ──SP/HTAB──▶ sizeWhitespace;  ──";"──▶ chunkExtension;  ──CR──▶ sizeLF;  ──LF──▶ end of line
//   sizeWhitespace ──SP/HTAB──▶ sizeWhitespace;  ──";"──▶ chunkExtension;  ──CR──▶ sizeLF;  ──LF──▶ end of line
//   chunkExtension ──"\""──▶ extensionQuoted;  ──CR──▶ sizeLF;  ──LF──▶ end of line;  ──tchar/BWS/;/=──▶ same
//   extensionQuoted ──"\""──▶ chunkExtension;  ──"\\"──▶ extensionEscape;  ──text──▶ same
//   extensionEscape ──text──▶ extensionQuoted
//   sizeLF ──LF──▶ end of line
//   end of line: size > 0 ──▶ data(size);  size == 0 ──▶ trailers
//   data ──all bytes──▶ dataCR ──CR──▶ dataLF ──LF──▶ sizeStart;  dataCR ──LF──▶ sizeStart
//   trailers ──blank line──▶ done
//
// Every other byte is an error value. Size digits use checked arithmetic and are capped at
// `maxChunkSizeDigits`; the bytes after the digits are capped at `maxChunkExtensionLength`, the whole line
// at `maxLineLength`; the trailer section follows the header rules with `maxTrailerSize`. Extensions are
// checked and ignored. End of stream is the owner's business: anywhere before `done` it is premature.
//
// The trailer section's reader is a stored property beside the state rather than a payload of `trailers`,
// so that `State` stays a few plain words that every framing byte can overwrite cheaply.

/// Decodes a chunked body from the bytes given to it, reporting data ranges and the final trailers.
struct ChunkedDecoder {
    /// What one call to `decode` found.
    enum Output {
        /// All bytes up to `consumed` were framing; more input is needed.
        case needMoreInput(consumed: Int)
        /// These bytes are chunk data (never empty); everything up to the range's end is consumed.
        case data(Range<Int>)
        /// The body ended after `consumed` bytes with these trailer fields.
        case end(trailers: HTTPHeaders, consumed: Int)
    }

    /// The chunk-size line read so far.
    private struct SizeLine {
        /// The chunk size from the digits read so far.
        var size: Int64
        /// Hex digits read so far, leading zeros included.
        var digits: Int
        /// Bytes after the digits read so far (whitespace and extensions).
        var extensionLength = 0
    }

    private enum State {
        case sizeStart
        case sizeDigits(SizeLine)
        case sizeWhitespace(SizeLine)
        case chunkExtension(SizeLine)
        case extensionQuoted(SizeLine)
        case extensionEscape(SizeLine)
        case sizeLF(SizeLine)
        case data(remaining: Int64)
        case dataCR
        case dataLF
        case trailers
        case done
    }

    private var state = State.sizeStart
    /// Reads the trailer section in state `trailers`; untouched before.
    private var trailers: FieldSectionReader
    private let limits: HTTPLimits

    /// A decoder at the start of a chunked body.
    init(limits: HTTPLimits) {
        self.limits = limits
        trailers = .trailers(limits: limits)
    }

    // MARK: Input

    /// Decodes from the start of `bytes`, which must begin with the first byte not yet consumed.
    mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> Output {
        var index = 0
        while index < bytes.count {
            switch state {
            case .data(let remaining):
                let count = Int(min(remaining, Int64(bytes.count - index)))
                state = Int64(count) == remaining ? .dataCR : .data(remaining: remaining - Int64(count))
                return .data(index..<index + count)
            case .trailers:
                let progress = try trailers.read(bytes.suffix(from: index))
                guard progress.complete else {
                    return .needMoreInput(consumed: index + progress.consumed)
                }
                state = .done
                return .end(trailers: trailers.fields, consumed: index + progress.consumed)
            case .done:
                preconditionFailure("decode(_:) in state \(state)")
            default:
                try step(bytes[index])
                index += 1
            }
        }
        return .needMoreInput(consumed: index)
    }

    // MARK: Framing bytes

    /// Consumes one byte of a size line or of the CRLF after chunk data.
    private mutating func step(_ byte: UInt8) throws(HTTPParseError) {
        switch state {
        case .sizeStart:
            guard let digit = ASCII.hexDigitValue(byte) else { throw .invalidChunkSize }
            let line = SizeLine(size: Int64(digit), digits: 1)
            try checkLength(line)
            state = .sizeDigits(line)
        case .sizeDigits(var line):
            if let digit = ASCII.hexDigitValue(byte) {
                try addDigit(digit, to: &line)
                state = .sizeDigits(line)
            } else {
                try afterSize(byte, line: line)
            }
        case .sizeWhitespace(let line):
            try afterSize(byte, line: line)
        case .chunkExtension(var line):
            switch byte {
            case ASCII.cr: state = .sizeLF(line)
            case ASCII.lf: endOfSizeLine(line)
            case ASCII.quote: try countExtensionByte(&line, next: State.extensionQuoted)
            default:
                guard ByteClass.chunkExtension.contains(byte) else { throw .invalidChunkExtension }
                try countExtensionByte(&line, next: State.chunkExtension)
            }
        case .extensionQuoted(var line):
            switch byte {
            case ASCII.quote: try countExtensionByte(&line, next: State.chunkExtension)
            case ASCII.backslash: try countExtensionByte(&line, next: State.extensionEscape)
            default:
                guard ByteClass.text.contains(byte) else { throw .invalidChunkExtension }
                try countExtensionByte(&line, next: State.extensionQuoted)
            }
        case .extensionEscape(var line):
            guard ByteClass.text.contains(byte) else { throw .invalidChunkExtension }
            try countExtensionByte(&line, next: State.extensionQuoted)
        case .sizeLF(let line):
            guard byte == ASCII.lf else { throw .invalidLineEnding }
            endOfSizeLine(line)
        case .dataCR:
            switch byte {
            case ASCII.cr: state = .dataLF
            case ASCII.lf: state = .sizeStart
            default: throw .invalidChunkTerminator
            }
        case .dataLF:
            guard byte == ASCII.lf else { throw .invalidChunkTerminator }
            state = .sizeStart
        case .data, .trailers, .done:
            preconditionFailure("step(_:) in state \(state)")
        }
    }

    /// A byte after the size digits outside extensions: BWS, the start of an extension, or the line end.
    private mutating func afterSize(_ byte: UInt8, line: SizeLine) throws(HTTPParseError) {
        var line = line
        switch byte {
        case ASCII.cr: state = .sizeLF(line)
        case ASCII.lf: endOfSizeLine(line)
        case ASCII.space, ASCII.tab: try countExtensionByte(&line, next: State.sizeWhitespace)
        case ASCII.semicolon: try countExtensionByte(&line, next: State.chunkExtension)
        default: throw .invalidChunkSize
        }
    }

    private func checkLength(_ line: SizeLine) throws(HTTPParseError) {
        guard line.digits <= limits.maxChunkSizeDigits else { throw .chunkSizeTooLarge }
        guard line.extensionLength <= limits.maxChunkExtensionLength else { throw .chunkExtensionTooLong }
        guard line.digits + line.extensionLength <= limits.maxLineLength else { throw .headerLineTooLong }
    }

    private func addDigit(_ digit: UInt8, to line: inout SizeLine) throws(HTTPParseError) {
        line.digits += 1
        try checkLength(line)
        let (shifted, overflowA) = line.size.multipliedReportingOverflow(by: 16)
        let (sum, overflowB) = shifted.addingReportingOverflow(Int64(digit))
        guard !overflowA, !overflowB else { throw .chunkSizeTooLarge }
        line.size = sum
    }

    private mutating func countExtensionByte(
        _ line: inout SizeLine,
        next: (SizeLine) -> State
    ) throws(HTTPParseError) {
        line.extensionLength += 1
        try checkLength(line)
        state = next(line)
    }

    private mutating func endOfSizeLine(_ line: SizeLine) {
        state = line.size == 0 ? .trailers : .data(remaining: line.size)
    }
}
