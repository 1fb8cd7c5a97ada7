// HTTPResponseParser: the message-level state machine of the reading half of an HTTP/1.1 connection.
// Bytes and end of stream go in; events come out of `next()`, one at a time, as soon as they are known.
//
//   idle ──expectResponse──▶ statusLine ──status line──▶ headerFields ──blank line──▶ (head complete)
//   head complete: 101 → error; other 1xx → report `.informational`, back to statusLine;
//                  final → report `.head`, then by ResponseFramingRules:
//                  none or contentLength(0) → ending; contentLength(n) → contentLength;
//                  chunked → chunked; untilClose → untilClose
//   contentLength ──body bytes, never more than remaining──▶ contentLength, or ending when none remain
//   chunked ──ChunkedDecoder data──▶ chunked;  ──last chunk and trailers──▶ idle, reporting `.end`
//   untilClose ──body bytes──▶ untilClose;  ──end of stream──▶ idle, reporting `.end` (keepAlive false)
//   ending ──next()──▶ idle, reporting `.end`
//
// End of stream in statusLine, headerFields, contentLength or chunked (once the buffered bytes are used
// up) is `unexpectedEndOfStream`. Any error moves to `failed`, which rethrows it forever. While idle,
// received bytes stay buffered untouched: they are either the next response (after `expectResponse`) or
// unsolicited bytes the owner must treat as a broken connection.
//
// One `[UInt8]` buffer holds the received bytes; `readIndex` marks what events consumed. Consumed bytes
// are dropped when everything was consumed, and before appending when a feed arrives.

/// Incremental response parser: feed bytes (in any splits), pull events.
///
/// Buffers internally only what it has not consumed yet (compacting), so a caller may feed from a
/// reused read buffer.
public struct HTTPResponseParser: Sendable {
    private enum State {
        case idle
        case statusLine(LineScanner)
        case headerFields(StatusLine, FieldSectionReader)
        case contentLength(remaining: Int64, keepAlive: Bool)
        case chunked(ChunkedDecoder, keepAlive: Bool)
        case untilClose
        case ending(keepAlive: Bool)
        case failed(HTTPParseError)
        /// Transient, while a state's payload is being mutated (keeps its buffers uniquely referenced).
        case modifying
    }

    private var state = State.idle
    private let limits: HTTPLimits
    /// The method of the request whose response is being parsed.
    private var requestMethod = ""
    /// Received bytes; those before `readIndex` are consumed.
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// True once the peer closed its sending side.
    private var endOfStream = false

    /// A parser with no response expected yet.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    // MARK: Inputs

    /// Announces the request whose response comes next (method "HEAD" => no body).
    /// Precondition: idle (no response in progress). Bytes already buffered are parsed after this.
    public mutating func expectResponse(requestMethod: String) {
        guard case .idle = state else {
            preconditionFailure("expectResponse(requestMethod:) in state \(state)")
        }
        self.requestMethod = requestMethod
        state = .statusLine(LineScanner())
    }

    /// Appends received bytes (copied; `bytes` may be reused once this returns). Ignored after an error.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard !endOfStream else {
            preconditionFailure("feed(_:) after end of stream in state \(state)")
        }
        if case .failed = state {
            return
        }
        if readIndex > 0 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes. Ignored after an error.
    public mutating func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { feed($0) }
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

    /// Bytes received but not yet consumed by an event.
    public var bufferedByteCount: Int {
        buffer.count - readIndex
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
                let parsed = try withUnreadBytes { (bytes) throws(HTTPParseError) -> (StatusLine, Int)? in
                    try StatusLine.checkStart(bytes)
                    guard let line = try scanner.nextLine(in: bytes, maxLength: maxLength) else { return nil }
                    return (try StatusLine(parsing: bytes.prefix(upTo: line.contentLength)), line.length)
                }
                guard let (statusLine, length) = parsed else {
                    state = .statusLine(scanner)
                    return try needMoreInput()
                }
                guard length <= limits.maxHeadSize else { throw .headTooLarge }
                consume(length)
                state = .headerFields(statusLine, .head(limits: limits, statusLineLength: length))
            case .headerFields(let statusLine, var reader):
                state = .modifying
                let progress = try withUnreadBytes { (bytes) throws(HTTPParseError) in try reader.read(bytes) }
                consume(progress.consumed)
                guard progress.complete else {
                    state = .headerFields(statusLine, reader)
                    return try needMoreInput()
                }
                let head = HTTPResponseHead(
                    version: statusLine.version, status: statusLine.code, reason: statusLine.reason,
                    headers: reader.fields)
                return try headComplete(head)
            case .contentLength(let remaining, let keepAlive):
                guard bufferedByteCount > 0 else { return try needMoreInput() }
                let count = Int(min(remaining, Int64(bufferedByteCount)))
                let body = takeBytes(count)
                let left = remaining - Int64(count)
                state = left == 0
                    ? .ending(keepAlive: keepAlive) : .contentLength(remaining: left, keepAlive: keepAlive)
                return .body(body)
            case .chunked(var decoder, let keepAlive):
                state = .modifying
                let output = try withUnreadBytes { (bytes) throws(HTTPParseError) in try decoder.decode(bytes) }
                switch output {
                case .needMoreInput(let consumed):
                    consume(consumed)
                    state = .chunked(decoder, keepAlive: keepAlive)
                    return try needMoreInput()
                case .data(let range):
                    consume(range.lowerBound)
                    let body = takeBytes(range.count)
                    state = .chunked(decoder, keepAlive: keepAlive)
                    return .body(body)
                case .end(let trailers, let consumed):
                    consume(consumed)
                    state = .idle
                    return .end(trailers: trailers, keepAlive: keepAlive)
                }
            case .untilClose:
                if bufferedByteCount > 0 {
                    return .body(takeBytes(bufferedByteCount))
                }
                guard endOfStream else { return nil }
                state = .idle
                return .end(trailers: HTTPHeaders(), keepAlive: false)
            case .ending(let keepAlive):
                state = .idle
                return .end(trailers: HTTPHeaders(), keepAlive: keepAlive)
            case .modifying:
                preconditionFailure("next() in state \(state)")
            }
        }
    }

    /// Reports a complete head: interim heads go back to reading a status line; a final head enters
    /// the body state its framing selects.
    private mutating func headComplete(_ head: HTTPResponseHead) throws(HTTPParseError) -> HTTPResponseEvent {
        if head.status == 101 {
            throw .unsolicitedSwitchingProtocols
        }
        if (100..<200).contains(head.status) {
            state = .statusLine(LineScanner())
            return .informational(head)
        }
        let (framing, forbidsReuse) = try ResponseFramingRules.framing(requestMethod: requestMethod, head: head)
        let keepAlive = !forbidsReuse && framing != .untilClose && Self.versionAllowsKeepAlive(head)
        switch framing {
        case .none, .contentLength(0):
            state = .ending(keepAlive: keepAlive)
        case .contentLength(let length):
            state = .contentLength(remaining: length, keepAlive: keepAlive)
        case .chunked:
            state = .chunked(ChunkedDecoder(limits: limits), keepAlive: keepAlive)
        case .untilClose:
            state = .untilClose
        }
        return .head(head, framing: framing)
    }

    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive` (and no close).
    private static func versionAllowsKeepAlive(_ head: HTTPResponseHead) -> Bool {
        let headers = head.headers
        guard !headers.containsToken("close", inField: "Connection") else { return false }
        return head.version == .http1_1 || headers.containsToken("keep-alive", inField: "Connection")
    }

    /// nil, to wait for input; or the premature-end error when no more input will come.
    private func needMoreInput() throws(HTTPParseError) -> HTTPResponseEvent? {
        guard !endOfStream else { throw .unexpectedEndOfStream }
        return nil
    }

    // MARK: Buffer

    /// Runs `body` on the unconsumed bytes.
    private func withUnreadBytes<Value>(
        _ body: (UnsafeRawBufferPointer) throws(HTTPParseError) -> Value
    ) throws(HTTPParseError) -> Value {
        let start = readIndex
        return try buffer.withBytes { (bytes) throws(HTTPParseError) in try body(bytes.suffix(from: start)) }
    }

    /// Marks `count` bytes consumed, dropping the buffer's contents once all of it is consumed.
    private mutating func consume(_ count: Int) {
        readIndex += count
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
    }

    /// Copies out and consumes the next `count` bytes.
    private mutating func takeBytes(_ count: Int) -> [UInt8] {
        let bytes = Array(buffer[readIndex..<readIndex + count])
        consume(count)
        return bytes
    }
}
