// ChunkedDecoder: the chunked transfer coding (RFC 9112 §7.1) as a resumable state machine, one state per
// place a byte can be in:
//
//   chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF;  last-chunk = 1*"0" [ chunk-ext ] CRLF;
//   chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] );  then trailer-section CRLF.
//
//   sizeStart ──hex──▶ sizeDigits ──hex──▶ sizeDigits
//   sizeDigits ──SP/HTAB──▶ sizeSpace;  ──";"──▶ nameStart;  ──CR──▶ sizeLF;  ──LF──▶ end of line
//   sizeSpace ──SP/HTAB──▶ sizeSpace;  ──";"──▶ nameStart;  ──CR/LF──▶ end (deviation)
//   nameStart ──SP/HTAB──▶ nameStart;  ──tchar──▶ name;  ──";"──▶ nameStart, ──CR/LF──▶ end (deviation)
//   name ──tchar──▶ name;  ──SP/HTAB──▶ nameSpace;  ──"="──▶ valueStart;  ──";"──▶ nameStart;  ──CR/LF──▶ end
//   nameSpace ──SP/HTAB──▶ nameSpace;  ──"="──▶ valueStart;  ──";"──▶ nameStart;  ──CR/LF──▶ end (deviation)
//   valueStart ──SP/HTAB──▶ valueStart;  ──tchar──▶ token;  ──"\""──▶ quoted   (never an empty value)
//   token ──tchar──▶ token;  ──SP/HTAB──▶ valueSpace;  ──";"──▶ nameStart;  ──CR/LF──▶ end
//   quoted ──"\""──▶ valueEnd;  ──"\\"──▶ escape;  ──text──▶ quoted;   escape ──text──▶ quoted
//   valueEnd ──SP/HTAB──▶ valueSpace;  ──";"──▶ nameStart;  ──CR/LF──▶ end
//   valueSpace ──SP/HTAB──▶ valueSpace;  ──";"──▶ nameStart;  ──CR/LF──▶ end (deviation)
//   sizeLF ──LF──▶ end of line
//   end of line: size > 0 ──▶ data(size);  size == 0 ──▶ trailers
//   data ──all bytes──▶ dataCR ──CR──▶ dataLF ──LF──▶ sizeStart;  dataCR ──LF──▶ sizeStart
//   trailers ──blank line──▶ done
//
// So the size line is `chunk-size [ chunk-ext ] CRLF`; three leniencies are named deviations, recorded in
// `deviations` (or errors when `HTTPLimits.refusedDeviations` refuses them): a line end after whitespace
// (sizeSpace, nameSpace, valueSpace ──CR/LF──▶ end: `whitespace-before-chunk-crlf`), a `;` with no name after
// it (nameStart ──";"──▶ nameStart, nameStart ──CR/LF──▶ end: `empty-chunk-extension`), and LF without CR
// after the size line or the chunk data (`bare-lf`). Every other byte is an error value. Size digits use
// checked arithmetic and are capped at `maxChunkSizeDigits`; the bytes after the digits are capped at
// `maxChunkExtensionLength`, the whole line at `maxLineLength`; the trailer section follows the header
// rules with `maxTrailerSize`. Extensions are checked and ignored. End of stream is the owner's business:
// anywhere before `done` it is premature.
//
// The trailer section's reader is a stored property beside the state rather than a payload of `trailers`,
// so that `State` stays a few plain words that every framing byte can overwrite cheaply.
//
// A decoder made with `reportsChunks` (a traced request's) also reports each size line, the last-chunk's
// included, as `.chunk` before that chunk's data: the line's end moves to `sizeEnded` instead of `data` or
// `trailers`, and the next `decode` reports it from there. So that the extensions can be handed out as a range
// of the caller's bytes, such a decoder never leaves a size line half consumed: an input that ends inside one
// consumes only up to the line's start, and the line is read again, whole, from the next input (a line is at
// most `maxLineLength` bytes; its deviations are a set, recorded again harmlessly). A decoder without
// `reportsChunks` pays one flag check per chunk and one per `decode` for this.

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
        /// Only with `reportsChunks`: a size line of `size` (0 for the last-chunk) ended at `consumed`;
        /// `extensions` is the range of the bytes after the size digits, up to the line end (empty if none).
        case chunk(size: Int64, extensions: Range<Int>, consumed: Int)
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
        case sizeSpace(SizeLine)
        case nameStart(SizeLine)
        case name(SizeLine)
        case nameSpace(SizeLine)
        case valueStart(SizeLine)
        case token(SizeLine)
        case quoted(SizeLine)
        case escape(SizeLine)
        case valueEnd(SizeLine)
        case valueSpace(SizeLine)
        case sizeLF(SizeLine)
        /// Only with `reportsChunks`: the size line ended, with CRLF or (`crlf` false) a bare LF.
        case sizeEnded(SizeLine, crlf: Bool)
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
    /// Report each size line as `.chunk` (for a traced request).
    private let reportsChunks: Bool
    /// The named deviations the body needed so far (the trailer section's join them at its end).
    private(set) var deviations = HTTPDeviations()

    /// A decoder at the start of a chunked body; with `reportsChunks`, one that reports each size line.
    init(limits: HTTPLimits, reportsChunks: Bool = false) {
        self.limits = limits
        self.reportsChunks = reportsChunks
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
                deviations.formUnion(trailers.deviations)
                return .end(trailers: trailers.fields, consumed: index + progress.consumed)
            case .sizeEnded(let line, let crlf):
                return reportChunk(line, crlf: crlf, endingAt: index)
            case .done:
                preconditionFailure("decode(_:) in state \(state)")
            default:
                try step(bytes[index])
                index += 1
            }
        }
        guard reportsChunks else { return .needMoreInput(consumed: index) }
        return endOfInputReportingChunks(at: index)
    }

    // MARK: Reporting chunks

    /// The size line that ended just before `index` as `.chunk`; then on to its data (or the trailers).
    private mutating func reportChunk(_ line: SizeLine, crlf: Bool, endingAt index: Int) -> Output {
        let end = index - (crlf ? 2 : 1)
        state = line.size == 0 ? .trailers : .data(remaining: line.size)
        return .chunk(size: line.size, extensions: end - line.extensionLength..<end, consumed: index)
    }

    /// The input ended at `index`: a size line that just ended is reported; one that did not is given back
    /// (consumed only up to its start, read again from the start of the next input).
    private mutating func endOfInputReportingChunks(at index: Int) -> Output {
        switch state {
        case .sizeEnded(let line, let crlf):
            return reportChunk(line, crlf: crlf, endingAt: index)
        case .sizeDigits(let line), .sizeSpace(let line), .nameStart(let line), .name(let line),
             .nameSpace(let line), .valueStart(let line), .token(let line), .quoted(let line),
             .escape(let line), .valueEnd(let line), .valueSpace(let line):
            state = .sizeStart
            return .needMoreInput(consumed: index - line.digits - line.extensionLength)
        case .sizeLF(let line):
            state = .sizeStart
            return .needMoreInput(consumed: index - line.digits - line.extensionLength - 1)
        default:
            return .needMoreInput(consumed: index)
        }
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
            } else if try !endsLine(byte, line) {
                guard isWhitespace(byte) || byte == ASCII.semicolon else { throw .invalidChunkSize }
                try extend(&line, then: byte == ASCII.semicolon ? State.nameStart : State.sizeSpace)
            }
        case .sizeSpace(var line):
            try extensionSpace(byte, line: &line, staying: State.sizeSpace)
        case .nameSpace(var line):
            try extensionSpace(byte, line: &line, staying: State.nameSpace, mayAssign: true)
        case .valueSpace(var line):
            try extensionSpace(byte, line: &line, staying: State.valueSpace)
        case .nameStart(var line), .name(var line):
            try extensionName(byte, line: &line)
        case .valueStart(var line), .token(var line), .valueEnd(var line):
            try extensionValue(byte, line: &line)
        case .quoted(var line):
            switch byte {
            case ASCII.quote: try extend(&line, then: State.valueEnd)
            case ASCII.backslash: try extend(&line, then: State.escape)
            default:
                guard ByteClass.text.contains(byte) else { throw .invalidChunkExtension }
                try extend(&line, then: State.quoted)
            }
        case .escape(var line):
            guard ByteClass.text.contains(byte) else { throw .invalidChunkExtension }
            try extend(&line, then: State.quoted)
        case .sizeLF(let line):
            guard byte == ASCII.lf else { throw .invalidLineEnding }
            endOfSizeLine(line, crlf: true)
        case .dataCR:
            switch byte {
            case ASCII.cr: state = .dataLF
            case ASCII.lf:
                try deviations.record(.bareLF, refusing: limits.refusedDeviations)
                state = .sizeStart
            default: throw .invalidChunkTerminator
            }
        case .dataLF:
            guard byte == ASCII.lf else { throw .invalidChunkTerminator }
            state = .sizeStart
        case .data, .sizeEnded, .trailers, .done:
            preconditionFailure("step(_:) in state \(state)")
        }
    }

    // MARK: Extension bytes

    /// BWS after the size, a name or a value: more of it (`staying`), the `;` of an extension, or after a
    /// name (`mayAssign`) its `=`; the line end only as the deviation `whitespace-before-chunk-crlf`.
    private mutating func extensionSpace(_ byte: UInt8, line: inout SizeLine, staying: (SizeLine) -> State,
                                         mayAssign: Bool = false) throws(HTTPParseError) {
        switch byte {
        case ASCII.cr, ASCII.lf:
            try deviations.record(.whitespaceBeforeChunkCRLF, refusing: limits.refusedDeviations)
            _ = try endsLine(byte, line)
        case ASCII.space, ASCII.tab: try extend(&line, then: staying)
        case ASCII.semicolon: try extend(&line, then: State.nameStart)
        case ASCII.equals where mayAssign: try extend(&line, then: State.valueStart)
        default: throw .invalidChunkExtension
        }
    }

    /// A byte of an extension's name, or right after `;` (BWS, then at least one tchar; another `;` or the
    /// line end only as the deviation `empty-chunk-extension`).
    private mutating func extensionName(_ byte: UInt8, line: inout SizeLine) throws(HTTPParseError) {
        if case .nameStart = state {
            if isWhitespace(byte) { return try extend(&line, then: State.nameStart) }
            if byte == ASCII.semicolon || byte == ASCII.cr || byte == ASCII.lf {
                try deviations.record(.emptyChunkExtension, refusing: limits.refusedDeviations)
                if byte == ASCII.semicolon { return try extend(&line, then: State.nameStart) }
                _ = try endsLine(byte, line)
                return
            }
            guard ByteClass.token.contains(byte) else { throw .invalidChunkExtension }
            return try extend(&line, then: State.name)
        }
        if try endsLine(byte, line) { return }
        switch byte {
        case ASCII.space, ASCII.tab: try extend(&line, then: State.nameSpace)
        case ASCII.equals: try extend(&line, then: State.valueStart)
        case ASCII.semicolon: try extend(&line, then: State.nameStart)
        default:
            guard ByteClass.token.contains(byte) else { throw .invalidChunkExtension }
            try extend(&line, then: State.name)
        }
    }

    /// A byte after `=` (BWS, then a token or a quoted string), of a token, or after a closing quote.
    private mutating func extensionValue(_ byte: UInt8, line: inout SizeLine) throws(HTTPParseError) {
        if case .valueStart = state {
            if isWhitespace(byte) { return try extend(&line, then: State.valueStart) }
            if byte == ASCII.quote { return try extend(&line, then: State.quoted) }
            guard ByteClass.token.contains(byte) else { throw .invalidChunkExtension }
            return try extend(&line, then: State.token)
        }
        if try endsLine(byte, line) { return }
        switch byte {
        case ASCII.space, ASCII.tab: try extend(&line, then: State.valueSpace)
        case ASCII.semicolon: try extend(&line, then: State.nameStart)
        default:
            guard case .token = state, ByteClass.token.contains(byte) else { throw .invalidChunkExtension }
            try extend(&line, then: State.token)
        }
    }

    /// CR or LF where the line may end: the size line is over (true); LF alone is the deviation `bare-lf`.
    private mutating func endsLine(_ byte: UInt8, _ line: SizeLine) throws(HTTPParseError) -> Bool {
        switch byte {
        case ASCII.cr: state = .sizeLF(line)
        case ASCII.lf:
            try deviations.record(.bareLF, refusing: limits.refusedDeviations)
            endOfSizeLine(line, crlf: false)
        default: return false
        }
        return true
    }

    private func isWhitespace(_ byte: UInt8) -> Bool {
        byte == ASCII.space || byte == ASCII.tab
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

    /// Counts one byte after the size digits (against the extension cap) and moves to `next`.
    private mutating func extend(_ line: inout SizeLine, then next: (SizeLine) -> State) throws(HTTPParseError) {
        line.extensionLength += 1
        try checkLength(line)
        state = next(line)
    }

    /// The size line ended (with CRLF, or a bare LF): its data (or the trailers) follow, after the line is
    /// reported when the decoder reports chunks.
    private mutating func endOfSizeLine(_ line: SizeLine, crlf: Bool) {
        if reportsChunks { return state = .sizeEnded(line, crlf: crlf) }
        state = line.size == 0 ? .trailers : .data(remaining: line.size)
    }
}
