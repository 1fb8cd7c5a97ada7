// HTTPResponseParser: the message-level state machine of the reading half of an HTTP/1.1 connection.
// Bytes and end of stream go in; events come out of `next()`, one at a time, as soon as they are known.
//
//   idle ──expectResponse──▶ statusLine ──status line──▶ headerFields ──blank line──▶ (head complete)
//   head complete: 101 → error, unless the request asked to switch protocols (a WebSocket handshake):
//                  then report `.head` (framing none) and `.end` (keepAlive false); the bytes after the head
//                  stay buffered for the new protocol (`takeBufferedBytes`);
//                  other 1xx → report `.informational`, back to statusLine (more than
//                  `maxInterimResponses` of them → error);
//                  final → report `.head`, then by ResponseFramingRules:
//                  none or contentLength(0) → ending; contentLength(n) → contentLength;
//                  chunked → chunked; untilClose → untilClose
//   contentLength ──body bytes, never more than remaining──▶ contentLength, or ending when none remain
//   chunked ──ChunkedDecoder data (all buffered chunks joined into one event)──▶ chunked;
//           ──last chunk and trailers──▶ idle, reporting `.end`, or ending(trailers) after a body event
//   (a response expected with `reportsChunks`, a traced request's: chunked ──size line──▶ chunked, reporting
//   `.chunk`; each chunk's data is reported on its own, never joined with the next chunk's)
//   untilClose ──body bytes──▶ untilClose;  ──end of stream──▶ idle, reporting `.end` (keepAlive false)
//   ending ──next()──▶ idle, reporting `.end`
//
// End of stream in statusLine, headerFields, contentLength or chunked (once the buffered bytes are used
// up) is `unexpectedEndOfStream`. Any error moves to `failed`, which rethrows it forever; chunk data
// decoded before an error is still reported first. While idle, received bytes stay buffered untouched:
// they are either the next response (after `expectResponse`) or unsolicited bytes the owner must treat as
// a broken connection.
//
// Each response records the named deviations (HTTPDeviations.swift) it needed in `responseDeviations`, one
// word reset by `expectResponse`: the status line's here, the field sections' and the chunked body's from
// their readers when they finish, the framing's from ResponseFramingRules. A deviation that
// `limits.refusedDeviations` holds is an error instead (strict mode).
//
// One `[UInt8]` buffer holds the received bytes; `readIndex` marks what events consumed. Consumed bytes
// are dropped when the next feed arrives. Large reads move without copying: a fed `[UInt8]` becomes the
// buffer when nothing is left unread, and a body event that is the whole buffer takes the buffer itself.

/// Incremental response parser: feed bytes (in any splits), pull events.
///
/// Copies what it is fed through a pointer (so a caller may feed from a reused read buffer) and keeps
/// only what events have not consumed yet; `feed(_: [UInt8])` and `feed(upTo:using:)` let large reads and
/// body events share storage instead of copying.
public struct HTTPResponseParser: Sendable {
    /// The large readers are stored beside the state rather than in its payloads: `fieldReader` while in
    /// `headerFields`, `chunkedDecoder` while in `chunked`. An enum payload is copied out to be changed and
    /// copied back; a field reader is some hundred bytes and a decoder twice that, which cost every small
    /// response about twenty memory copies through the enum's value witnesses.
    enum State {
        case idle
        case statusLine(LineScanner)
        case headerFields(StatusLine)
        case contentLength(remaining: Int64, keepAlive: Bool)
        case chunked(keepAlive: Bool)
        case untilClose
        case ending(trailers: HTTPHeaders, keepAlive: Bool)
        case failed(HTTPParseError)
    }

    private(set) var state = State.idle
    private let limits: HTTPLimits
    /// Reads the head's field lines in `headerFields`; replaced for each head, emptied when it completes.
    private var fieldReader: FieldSectionReader
    /// Decodes the body in `chunked`; replaced for each chunked body and when one ends.
    private var chunkedDecoder: ChunkedDecoder
    /// The method of the request whose response is being parsed.
    private var requestMethod = ""
    /// Interim responses reported for that request so far.
    private var interimCount = 0
    /// The request asked to switch protocols: a 101 is its final response.
    private var acceptsSwitchingProtocols = false
    /// Report each chunk's size line of a chunked body (`.chunk`).
    private var reportsChunks = false
    /// Received bytes; those before `readIndex` are consumed (HTTPResponseParser+Buffer.swift). Usable from
    /// `bufferedByteCount` inlined into a connection.
    @usableFromInline var buffer: [UInt8] = []
    @usableFromInline var readIndex = 0
    /// Where a head or a small body is read before it is appended to `buffer` (`feed(upTo:using:)`).
    var readArea: [UInt8] = []
    /// Where large reads may land (arrays given back by earlier consumers); nil: a fresh array each.
    public var pieceSupply: (any BodyPieceSupply)?
    /// True once the peer closed its sending side.
    private var endOfStream = false
    /// The named deviations the response in progress (or the last one) needed so far, interim heads included.
    public private(set) var responseDeviations = HTTPDeviations()

    /// Reads and body events at least this large move between caller and parser without a copy.
    static let zeroCopyMinimum = 4096
    /// Most bytes reserved up front for the joined data of the buffered chunks (more grows the array).
    private static let chunkDataReserveLimit = 64 * 1024

    /// A parser with no response expected yet.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
        fieldReader = .head(limits: limits, statusLineLength: 0)
        chunkedDecoder = ChunkedDecoder(limits: limits)
    }

    // MARK: Inputs

    /// Announces the request whose response comes next (method "HEAD" => no body). With
    /// `acceptsSwitchingProtocols` (the request carried `Upgrade`), a 101 is the final response: it ends
    /// right after its head and what follows stays buffered for the new protocol (`takeBufferedBytes`).
    /// With `reportsChunks` (a traced request), a chunked body reports each chunk's size line as `.chunk`.
    /// Precondition: idle (no response in progress). Bytes already buffered are parsed after this.
    public mutating func expectResponse(requestMethod: String, acceptsSwitchingProtocols: Bool = false,
                                        reportsChunks: Bool = false) {
        guard case .idle = state else {
            preconditionFailure("expectResponse(requestMethod:) in state \(state)")
        }
        self.requestMethod = requestMethod
        self.acceptsSwitchingProtocols = acceptsSwitchingProtocols
        self.reportsChunks = reportsChunks
        interimCount = 0
        responseDeviations = []
        state = .statusLine(LineScanner())
    }

    /// False after an error (input is ignored); a precondition failure after end of stream. (The `feed` inputs
    /// are in HTTPResponseParser+Buffer.swift.)
    var acceptsInput: Bool {
        guard !endOfStream else {
            preconditionFailure("feed(_:) after end of stream in state \(state)")
        }
        if case .failed = state {
            return false
        }
        return true
    }

    /// The peer closed its sending side.
    public mutating func feedEndOfStream() {
        endOfStream = true
    }

    // MARK: Outputs

    /// True when no response is in progress (initially, and after `.end`).
    public var isIdle: Bool {
        if case .idle = state {
            return true
        }
        return false
    }

    /// Bytes received but not yet consumed by an event. (Inlinable: called on a connection's parser, a
    /// non-inlined getter had the whole parser, some 500 bytes, copied out of the connection for each call.)
    @inlinable public var bufferedByteCount: Int {
        buffer.count - readIndex
    }

    /// Hands over the bytes received after the last message and forgets them: once a 2xx answer to
    /// CONNECT or an accepted 101 ended, they belong to the tunnel or the new protocol, not to HTTP.
    /// Precondition: idle.
    public mutating func takeBufferedBytes() -> [UInt8] {
        guard case .idle = state else {
            preconditionFailure("takeBufferedBytes() in state \(state)")
        }
        let unread = Array(buffer[readIndex...])
        buffer = []
        readIndex = 0
        return unread
    }

    /// Hands over every byte received and not parsed yet, whatever the state, and forgets the response in
    /// progress: the connection leaves HTTP in the middle of it (a data task that became a stream task).
    public mutating func abandonResponse() -> [UInt8] {
        let unread = Array(buffer[readIndex...])
        buffer = []
        readIndex = 0
        state = .idle
        return unread
    }

    /// The next event, or nil when more input is needed (or when idle: no response expected).
    /// Errors are sticky: after a throw, every later call throws the same error.
    public mutating func next() throws(HTTPParseError) -> HTTPResponseEvent? {
        do throws(HTTPParseError) {
            return try advance()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    // MARK: Transitions

    private mutating func advance() throws(HTTPParseError) -> HTTPResponseEvent? {
        while true {
            switch state {
            case .idle:
                return nil
            case .failed(let error):
                throw error
            case .statusLine(var scanner):
                let maxLength = limits.maxLineLength
                let parsed = try withUnreadBytes { (bytes) throws(HTTPParseError) -> (StatusLine, LineScanner.Line)? in
                    try StatusLine.checkStart(bytes)
                    guard let line = try scanner.nextLine(in: bytes, maxLength: maxLength) else { return nil }
                    return (try StatusLine(parsing: bytes.prefix(upTo: line.contentLength)), line)
                }
                guard let (statusLine, line) = parsed else {
                    state = .statusLine(scanner)
                    return try needMoreInput()
                }
                let length = line.length
                guard length <= limits.maxHeadSize else { throw .headTooLarge }
                if length == line.contentLength + 1 { try record(.bareLF) }
                if statusLine.lacksReasonPhrase { try record(.missingReasonPhrase) }
                consume(length)
                fieldReader = .head(limits: limits, statusLineLength: length)
                state = .headerFields(statusLine)
            case .headerFields(let statusLine):
                let start = readIndex
                let progress = try buffer.withBytes { (bytes) throws(HTTPParseError) in
                    try fieldReader.read(bytes.suffix(from: start))
                }
                consume(progress.consumed)
                guard progress.complete else { return try needMoreInput() }
                responseDeviations.formUnion(fieldReader.deviations)
                let head = HTTPResponseHead(
                    version: statusLine.version, status: statusLine.code, reason: statusLine.reason,
                    headers: fieldReader.takeFields())
                return try headComplete(head)
            case .contentLength(let remaining, let keepAlive):
                guard bufferedByteCount > 0 else { return try needMoreInput() }
                let count = Int(min(remaining, Int64(bufferedByteCount)))
                let body = takeBytes(count)
                let left = remaining - Int64(count)
                state = left == 0
                    ? .ending(trailers: HTTPHeaders(), keepAlive: keepAlive)
                    : .contentLength(remaining: left, keepAlive: keepAlive)
                return .body(body)
            case .chunked(let keepAlive):
                return try decodeChunks(keepAlive: keepAlive)
            case .untilClose:
                if bufferedByteCount > 0 {
                    return .body(takeBytes(bufferedByteCount))
                }
                guard endOfStream else { return nil }
                state = .idle
                return .end(trailers: HTTPHeaders(), keepAlive: false)
            case .ending(let trailers, let keepAlive):
                state = .idle
                return .end(trailers: trailers, keepAlive: keepAlive)
            }
        }
    }

    /// Reports a complete head: interim heads go back to reading a status line; a final head enters
    /// the body state its framing selects.
    private mutating func headComplete(_ head: HTTPResponseHead) throws(HTTPParseError) -> HTTPResponseEvent {
        if head.status == 101 {
            guard acceptsSwitchingProtocols else { throw .unsolicitedSwitchingProtocols }
            state = .ending(trailers: HTTPHeaders(), keepAlive: false)
            return .head(head, framing: .none)
        }
        if (100..<200).contains(head.status) {
            interimCount += 1
            guard interimCount <= limits.maxInterimResponses else { throw .tooManyInterimResponses }
            state = .statusLine(LineScanner())
            return .informational(head)
        }
        let (framing, forbidsReuse) = try ResponseFramingRules.framing(
            requestMethod: requestMethod, head: head, deviations: &responseDeviations,
            refusing: limits.refusedDeviations)
        let keepAlive = !forbidsReuse && framing != .untilClose && Self.versionAllowsKeepAlive(head)
        switch framing {
        case .none, .contentLength(0):
            state = .ending(trailers: HTTPHeaders(), keepAlive: keepAlive)
        case .contentLength(let length):
            state = .contentLength(remaining: length, keepAlive: keepAlive)
        case .chunked:
            chunkedDecoder = ChunkedDecoder(limits: limits, reportsChunks: reportsChunks)
            state = .chunked(keepAlive: keepAlive)
        case .untilClose:
            state = .untilClose
        }
        return .head(head, framing: framing)
    }

    /// Decodes every chunk the buffer holds and reports their data as one body event (chunk boundaries
    /// carry no meaning); the end of the body is reported at once when no data precedes it, else next. When
    /// the parser reports chunks, each size line is an event and each chunk's data a body event of its own.
    private mutating func decodeChunks(keepAlive: Bool) throws(HTTPParseError) -> HTTPResponseEvent? {
        var body: [UInt8] = []
        while true {
            let output: ChunkedDecoder.Output
            do throws(HTTPParseError) {
                let start = readIndex
                output = try buffer.withBytes { (bytes) throws(HTTPParseError) in
                    try chunkedDecoder.decode(bytes.suffix(from: start))
                }
            } catch {
                guard !body.isEmpty else { throw error }
                state = .failed(error)
                return .body(body)
            }
            switch output {
            case .needMoreInput(let consumed):
                consume(consumed)
                return body.isEmpty ? try needMoreInput() : .body(body)
            case .data(let range):
                consume(range.lowerBound)
                if body.isEmpty, range.count == bufferedByteCount {
                    body = takeBytes(range.count)
                } else {
                    if body.isEmpty {
                        // The data of the buffered chunks fits in what is buffered; the limit bounds the
                        // guess when a huge feed holds more than this body.
                        body.reserveCapacity(min(bufferedByteCount, max(range.count, Self.chunkDataReserveLimit)))
                    }
                    appendBytes(range.count, to: &body)
                }
                if reportsChunks {
                    return .body(body)
                }
            case .chunk(let size, let extensions, let consumed):
                // Only when reporting chunks, which never joins data: no body is pending here.
                let text = try withUnreadBytes { Latin1.string($0[extensions]) }
                consume(consumed)
                return .chunk(size: size, extensions: text)
            case .end(let trailers, let consumed):
                consume(consumed)
                responseDeviations.formUnion(chunkedDecoder.deviations)
                // A fresh decoder: the finished one would keep the trailer section's storage until the next
                // chunked body (an empty decoder holds none).
                chunkedDecoder = ChunkedDecoder(limits: limits)
                guard !body.isEmpty else {
                    state = .idle
                    return .end(trailers: trailers, keepAlive: keepAlive)
                }
                state = .ending(trailers: trailers, keepAlive: keepAlive)
                return .body(body)
            }
        }
    }

    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive` (and no close).
    private static func versionAllowsKeepAlive(_ head: HTTPResponseHead) -> Bool {
        let headers = head.headers
        guard !headers.containsToken("close", inField: "Connection") else { return false }
        return head.version == .http1_1 || headers.containsToken("keep-alive", inField: "Connection")
    }

    /// Records a deviation of the response, or throws when strict mode refuses it.
    private mutating func record(_ deviation: HTTPDeviations) throws(HTTPParseError) {
        try responseDeviations.record(deviation, refusing: limits.refusedDeviations)
    }

    /// nil, to wait for input; or the premature-end error when no more input will come.
    private func needMoreInput() throws(HTTPParseError) -> HTTPResponseEvent? {
        guard !endOfStream else { throw .unexpectedEndOfStream }
        return nil
    }
}
