// ScriptedConnection+Reading: blocking reads of whole requests and raw bytes from a connection.
//
// The reader pulls bytes into `input` only when it needs more, so pipelined requests stay buffered for
// the next call. Head: bytes up to the first CRLFCRLF. Body: Content-Length bytes, or chunked
// (size line, data, CRLF, ..., last chunk, trailer fields, empty line), or nothing.

// MARK: - Reading

extension ScriptedConnection {
    /// Largest head accepted, so that garbage without CRLFCRLF fails instead of growing forever.
    static let maximumHeadSize = 1024 * 1024
    /// Largest chunk-size or trailer line accepted.
    static let maximumLineSize = 64 * 1024

    private static let crlf: [UInt8] = Array("\r\n".utf8)
    private static let crlfcrlf: [UInt8] = Array("\r\n\r\n".utf8)

    /// Reads one request (head + body framed by Content-Length or chunked). nil on clean EOF before
    /// any byte. Throws on timeout or malformed input.
    public func readRequest() throws -> ReceivedRequest? {
        try readRequest(beforeBody: { _ in })
    }

    /// Reads only the head of one request (body fields empty; read the body with `readBytes`), for
    /// scripts that answer before the body, e.g. to `Expect: 100-continue`. nil on clean EOF before any
    /// byte. The head is recorded like a whole request.
    public func readRequestHead() throws -> ReceivedRequest? {
        guard let request = try readHead() else { return nil }
        onRequest(request)
        return request
    }

    /// Reads exactly `count` raw bytes (buffered bytes first).
    public func readBytes(count: Int) throws -> [UInt8] {
        try fill(atLeast: count)
        return input.take(count)
    }

    /// Reads one request, calling `beforeBody` with the parsed head before reading a body it announces.
    func readRequest(beforeBody: (ReceivedRequest) throws -> Void) throws -> ReceivedRequest? {
        guard var request = try readHead() else { return nil }
        switch try request.bodyFraming() {
        case .none:
            break
        case .length(let length):
            try beforeBody(request)
            request.body = try readBytes(count: length)
            request.rawBody = request.body
        case .chunked:
            try beforeBody(request)
            try readChunkedBody(into: &request)
        }
        onRequest(request)
        return request
    }

    // MARK: Pieces

    /// Reads up to and including the first CRLFCRLF; nil on clean EOF before any byte.
    private func readHead() throws -> ReceivedRequest? {
        var searched = 0
        while true {
            if let end = input.firstOffset(of: Self.crlfcrlf, from: max(0, searched - 3)) {
                return try ReceivedRequest(head: input.take(end + 4))
            }
            searched = input.count
            guard searched <= Self.maximumHeadSize else {
                throw TestSupportError.malformedRequest("head larger than \(Self.maximumHeadSize) bytes")
            }
            guard try receive() else {
                if input.count == 0 { return nil }
                throw TestSupportError.connectionClosed
            }
        }
    }

    /// Reads a chunked body, its trailers and the final empty line.
    private func readChunkedBody(into request: inout ReceivedRequest) throws {
        while true {
            let (line, raw) = try readLine()
            request.rawBody += raw
            let size = try Self.chunkSize(line)
            if size == 0 { break }
            guard request.body.count + size <= ReceivedRequest.maximumBodySize else {
                throw TestSupportError.malformedRequest("chunked body larger than the limit")
            }
            let data = try readBytes(count: size + 2)
            guard data.suffix(2).elementsEqual(Self.crlf) else {
                throw TestSupportError.malformedRequest("chunk data not followed by CRLF")
            }
            request.body += data.prefix(size)
            request.rawBody += data
        }
        while true {
            let (line, raw) = try readLine()
            request.rawBody += raw
            if line.isEmpty { return }
            request.trailers.append(try ReceivedRequest.parseField(line))
        }
    }

    /// Reads one CRLF-terminated line; returns its text (without CRLF) and its raw bytes (with CRLF).
    private func readLine() throws -> (text: String, raw: [UInt8]) {
        var searched = 0
        while true {
            if let end = input.firstOffset(of: Self.crlf, from: max(0, searched - 1)) {
                let raw = input.take(end + 2)
                let text = try ReceivedRequest.splitLines(raw.dropLast(2))
                return (text[0], raw)
            }
            searched = input.count
            guard searched <= Self.maximumLineSize else {
                throw TestSupportError.malformedRequest("line longer than \(Self.maximumLineSize) bytes")
            }
            guard try receive() else { throw TestSupportError.connectionClosed }
        }
    }

    /// Receives until at least `count` bytes are buffered; throws on EOF before.
    private func fill(atLeast count: Int) throws {
        while input.count < count {
            guard try receive() else { throw TestSupportError.connectionClosed }
        }
    }

    /// Parses a chunk-size line: 1 to 16 hex digits, optional whitespace, optional `;extensions`.
    private static func chunkSize(_ line: String) throws -> Int {
        let digits = line.prefix { $0 != ";" }.trimmingWhitespace()
        guard (1...16).contains(digits.count), digits.allSatisfy(\.isHexDigit), let size = Int(digits, radix: 16),
              size <= ReceivedRequest.maximumBodySize else {
            throw TestSupportError.malformedRequest("chunk size line \"\(line)\"")
        }
        return size
    }
}
