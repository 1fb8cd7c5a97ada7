// ReceivedRequest: one request as a loopback server read it, and the parsing of its head.

// MARK: - ReceivedRequest

/// What the server read from a client: one request.
public struct ReceivedRequest: Sendable {
    /// The request method, exactly as sent (`GET`, `POST`, ...).
    public var method: String
    /// The request target, exactly as sent (`/path?query`, or an absolute URI for proxies).
    public var target: String
    /// The protocol version, exactly as sent (`HTTP/1.1`).
    public var version: String
    /// Header fields in the order received; duplicates kept; values trimmed of surrounding whitespace.
    public var headers: [(name: String, value: String)]
    /// The body; de-chunked if it was chunked. Empty when only the head was read.
    public var body: [UInt8]
    /// Exact bytes of the head, including the final CRLFCRLF.
    public var rawHead: [UInt8]
    /// Exact bytes of the body as they were on the wire (chunk sizes, extensions and trailers included).
    public var rawBody: [UInt8]
    /// Trailer fields after the last chunk of a chunked body, in order.
    public var trailers: [(name: String, value: String)]

    /// The value of the first header named `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// All values of the headers named `name` (case-insensitive), in order.
    public func headers(named name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }
}

// MARK: - Head parsing

extension ReceivedRequest {
    /// How the body of a request is delimited (RFC 9112 §6.3 for requests).
    enum BodyFraming: Equatable {
        case none
        case length(Int)
        case chunked
    }

    /// Largest body a loopback server accepts, so a wrong length cannot exhaust memory.
    static let maximumBodySize = 64 * 1024 * 1024

    /// Parses a head that ends with CRLFCRLF; the body fields stay empty.
    init(head: [UInt8]) throws {
        let lines = try Self.splitLines(head.dropLast(4))
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine.allSatisfy({ !$0.isEmpty }) else {
            throw TestSupportError.malformedRequest("request line \"\(lines[0])\"")
        }
        guard requestLine[2].hasPrefix("HTTP/") else {
            throw TestSupportError.malformedRequest("version \"\(requestLine[2])\"")
        }
        method = String(requestLine[0])
        target = String(requestLine[1])
        version = String(requestLine[2])
        headers = try lines.dropFirst().map(Self.parseField)
        body = []
        rawHead = head
        rawBody = []
        trailers = []
    }

    /// Splits `bytes` at CRLF into UTF-8 lines; a bare CR or LF is malformed.
    static func splitLines(_ bytes: ArraySlice<UInt8>) throws -> [String] {
        var lines: [String] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\r") where index + 1 < bytes.endIndex && bytes[index + 1] == UInt8(ascii: "\n"):
                lines.append(String(decoding: bytes[lineStart..<index], as: UTF8.self))
                index += 2
                lineStart = index
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                throw TestSupportError.malformedRequest("bare CR or LF in the head")
            default:
                index += 1
            }
        }
        lines.append(String(decoding: bytes[lineStart..<bytes.endIndex], as: UTF8.self))
        return lines
    }

    /// Parses one `name: value` line.
    static func parseField(_ line: String) throws -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else {
            throw TestSupportError.malformedRequest("header line without colon \"\(line)\"")
        }
        let name = line[..<colon]
        guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else {
            throw TestSupportError.malformedRequest("bad header name \"\(name)\"")
        }
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        return (String(name), String(value))
    }

    /// The body framing the headers announce; conflicting or invalid framing is malformed.
    func bodyFraming() throws -> BodyFraming {
        let codings = headers(named: "Transfer-Encoding").flatMap(Self.listElements)
        let lengths = Set(headers(named: "Content-Length").flatMap(Self.listElements))
        if !codings.isEmpty {
            guard codings.last?.lowercased() == "chunked" else {
                throw TestSupportError.malformedRequest("Transfer-Encoding without final chunked")
            }
            guard lengths.isEmpty else {
                throw TestSupportError.malformedRequest("both Transfer-Encoding and Content-Length")
            }
            return .chunked
        }
        guard let text = lengths.first else { return .none }
        guard lengths.count == 1, text.allSatisfy(\.isASCIIDigitCharacter), let length = Int(text),
              length <= Self.maximumBodySize else {
            throw TestSupportError.malformedRequest("Content-Length \(lengths.sorted())")
        }
        return length == 0 ? .none : .length(length)
    }

    /// Whether the client asked to close the connection after this request.
    var wantsClose: Bool {
        let options = headers(named: "Connection").flatMap(Self.listElements).map { $0.lowercased() }
        if options.contains("close") { return true }
        return version == "HTTP/1.0" && !options.contains("keep-alive")
    }

    /// Whether the client sent `Expect: 100-continue`.
    var expectsContinue: Bool {
        header("Expect")?.lowercased() == "100-continue"
    }

    /// The non-empty elements of a comma-separated header value, trimmed.
    private static func listElements(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty }
    }
}

// MARK: - Helpers

extension Character {
    /// Whether this is one of `0`...`9`.
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
