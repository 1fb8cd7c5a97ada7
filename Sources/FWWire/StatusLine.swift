// The status line of a response: `HTTP-version SP status-code SP [ reason-phrase ]` (RFC 9112 §4),
// accepting only HTTP/1.0 and HTTP/1.1 (case-sensitive) and tolerating a missing reason (with or
// without its SP).

/// A parsed status line.
struct StatusLine {
    var version: HTTPVersion
    var code: Int
    var reason: String
    /// True when the line ends right after the status code, without the SP (`missing-reason-phrase`).
    var lacksReasonPhrase: Bool

    /// Rejects a status line as soon as its first bytes show it cannot start with "HTTP/" (so garbage or an
    /// HTTP/0.9 body fails at once instead of waiting for a line end or reading as a premature close).
    static func checkStart(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) {
        guard startsLikeHTTP(bytes) else { throw .invalidStatusLine }
    }

    /// True when the first bytes (up to five) of `bytes` are those of "HTTP/".
    private static func startsLikeHTTP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let expected: StaticString = "HTTP/"
        let start = expected.utf8Start
        for index in 0..<min(bytes.count, expected.utf8CodeUnitCount) where bytes[index] != start[index] {
            return false
        }
        return true
    }

    /// Parses one status line (`line` excludes the line terminator).
    init(parsing line: UnsafeRawBufferPointer) throws(HTTPParseError) {
        // "HTTP/" DIGIT "." DIGIT SP
        guard line.count >= 9, Self.startsLikeHTTP(line),
            let major = ASCII.decimalDigitValue(line[5]), line[6] == 0x2E,
            let minor = ASCII.decimalDigitValue(line[7]), line[8] == ASCII.space
        else {
            throw .invalidStatusLine
        }
        version = HTTPVersion(major: Int(major), minor: Int(minor))
        guard version == .http1_1 || version == .http1_0 else { throw .unsupportedVersion }

        // 3DIGIT, then end of line or SP
        guard line.count >= 12, line.count == 12 || line[12] == ASCII.space else { throw .invalidStatusCode }
        var code = 0
        for index in 9..<12 {
            guard let digit = ASCII.decimalDigitValue(line[index]) else { throw .invalidStatusCode }
            code = code * 10 + Int(digit)
        }
        guard code >= 100 else { throw .invalidStatusCode }
        self.code = code
        lacksReasonPhrase = line.count == 12

        // reason-phrase = *( HTAB / SP / VCHAR / obs-text )
        let reason = line.count > 13 ? line.suffix(from: 13) : UnsafeRawBufferPointer(start: nil, count: 0)
        guard ByteClass.text.containsAll(reason) else { throw .invalidStatusLine }
        self.reason = Latin1.string(reason)
    }
}
