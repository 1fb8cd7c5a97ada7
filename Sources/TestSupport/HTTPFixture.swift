// HTTPFixture: the golden HTTP/1.1 exchanges in Fixtures/http1/*.http1 (STYLE.md principle 15), parsed
// into plain values (bytes, numbers, names) that any test target can compare with what FWWire or
// FWTransport report. TestSupport does not depend on FWWire, so parse errors and limits are named by
// their Swift names and each test target maps them. The format is documented in Fixtures/http1/README.md:
// `key: value` lines, a `reply:` ... `reply-end` block of escaped bytes without implicit newlines, and
// the escapes \r \n \t \0 \\ \" \xHH and \*N{...} (N copies); every other byte is printable ASCII.

import Foundation

// MARK: - HTTPFixture

/// One golden exchange: the request method, the exact reply bytes, what the server does after them, and
/// what a client must make of them.
public struct HTTPFixture: Sendable, CustomStringConvertible {
    /// The file name without its extension.
    public let name: String
    /// The CONFORMANCE.md rule the case pins, in words.
    public let rule: String
    /// The method of the request the reply answers.
    public let requestMethod: String
    /// Header fields the request carries besides those the client adds itself (`Host`), in order.
    public let requestHeaders: [Field]
    /// Parser limits that differ from the defaults, named like the `HTTPLimits` properties, in file order.
    public let limits: [Limit]
    /// The exact bytes the server writes after reading the request.
    public let reply: [UInt8]
    /// What the server does once the reply is written.
    public let afterReply: AfterReply
    /// What a client must report.
    public let expectation: Expectation

    /// The file name, so that each fixture shows up under its name in test output.
    public var description: String { name }

    /// True when the client must keep the connection for the next request: the response ends cleanly,
    /// allows keep-alive, leaves no unread bytes, the request did not say `Connection: close`, and the
    /// server keeps the connection open.
    public var leavesConnectionReusable: Bool {
        expectation.error == nil && expectation.keepAlive && expectation.leftover.isEmpty
            && afterReply == .keepOpen && !requestSaysClose
    }

    /// True when a request `Connection` field has the `close` option (case-insensitive).
    private var requestSaysClose: Bool {
        requestHeaders.contains { field in
            String(decoding: field.name, as: UTF8.self).lowercased() == "connection"
                && String(decoding: field.value, as: UTF8.self).lowercased().split(separator: ",")
                    .contains { $0.trimmingCharacters(in: .whitespaces) == "close" }
        }
    }
}

// MARK: - Parts

extension HTTPFixture {
    /// A parser limit to set (`name` is an `HTTPLimits` property).
    public struct Limit: Hashable, Sendable {
        /// The `HTTPLimits` property, e.g. `maxHeaderCount`.
        public var name: String
        /// Its value.
        public var value: Int

        /// A limit from its property name and value.
        public init(name: String, value: Int) {
            self.name = name
            self.value = value
        }
    }

    /// One header, trailer or interim field, as exact bytes.
    public struct Field: Hashable, Sendable, CustomStringConvertible {
        /// The name, byte for byte as received.
        public var name: [UInt8]
        /// The value, OWS trimmed, byte for byte.
        public var value: [UInt8]

        /// A field from its bytes.
        public init(name: [UInt8], value: [UInt8]) {
            self.name = name
            self.value = value
        }

        /// `Name: value` with the fixture escapes.
        public var description: String {
            "\(HTTPFixture.escaped(name)): \(HTTPFixture.escaped(value))"
        }
    }

    /// A response head as a client reports it.
    public struct Head: Hashable, Sendable, CustomStringConvertible {
        /// The version as written in a status line, e.g. `HTTP/1.1`.
        public var version: String
        /// The three-digit status code.
        public var status: Int
        /// The reason phrase bytes (possibly empty).
        public var reason: [UInt8]
        /// Every field, in order.
        public var fields: [Field]

        /// A head from its parts.
        public init(version: String, status: Int, reason: [UInt8], fields: [Field]) {
            self.version = version
            self.status = status
            self.reason = reason
            self.fields = fields
        }

        /// The status line and the fields, with the fixture escapes.
        public var description: String {
            "\(version) \(status) \(HTTPFixture.escaped(reason)) \(fields)"
        }
    }

    /// The failure a fixture expects: the `URLError` code a user sees and the parser error behind it.
    public struct ExpectedError: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case badServerResponse
            case networkConnectionLost
        }

        private let kind: Kind
        /// The name of the `HTTPParseError` static member the parser must throw.
        public let parseError: String

        private init(_ kind: Kind, parseError: String) {
            self.kind = kind
            self.parseError = parseError
        }

        /// Malformed input (`URLError.badServerResponse`), found as `parseError`.
        public static func badServerResponse(_ parseError: String) -> ExpectedError {
            ExpectedError(.badServerResponse, parseError: parseError)
        }

        /// The response was cut short (`URLError.networkConnectionLost`).
        public static let networkConnectionLost = ExpectedError(
            .networkConnectionLost, parseError: "unexpectedEndOfStream")

        /// See `badServerResponse(_:)`.
        public var isBadServerResponse: Bool { kind == .badServerResponse }
        /// See `networkConnectionLost`.
        public var isNetworkConnectionLost: Bool { kind == .networkConnectionLost }

        /// The fixture spelling, e.g. `badServerResponse invalidStatusLine`.
        public var description: String {
            switch kind {
            case .badServerResponse: "badServerResponse \(parseError)"
            case .networkConnectionLost: "networkConnectionLost"
            }
        }
    }

    /// What the server does once the reply is written.
    public struct AfterReply: Hashable, Sendable, CustomStringConvertible {
        private enum Code: Hashable, Sendable {
            case close
            case keepOpen
            case reset
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// Close with FIN (the client sees end of stream).
        public static let close = AfterReply(.close)
        /// Keep the connection open and serve a next request on it.
        public static let keepOpen = AfterReply(.keepOpen)
        /// Close with RST.
        public static let reset = AfterReply(.reset)

        /// The fixture spelling: `close`, `keep-open` or `reset`.
        public var description: String {
            switch code {
            case .close: "close"
            case .keepOpen: "keep-open"
            case .reset: "reset"
            }
        }
    }

    /// What a client must report, in the order it reports it.
    public struct Expectation: Sendable {
        /// nil when the response must end cleanly.
        public internal(set) var error: ExpectedError?
        /// Interim (1xx) heads, in order.
        public internal(set) var interim: [Head] = []
        /// The final head; for an error, the head reported before it (nil when none was).
        public internal(set) var head: Head?
        /// The body framing of the final head: `none`, `content-length N`, `chunked` or `until-close`.
        public internal(set) var framing: String?
        /// The exact body; for an error, the bytes reported before it.
        public internal(set) var body: [UInt8] = []
        /// The body a client reports once it undid the transfer codings besides chunked (`decoded-body:`), when
        /// it differs from the parser's `body`.
        public internal(set) var decodedBody: [UInt8]?
        /// The trailer fields, in order.
        public internal(set) var trailers: [Field] = []
        /// The keep-alive the parser derives at the end of the response (false for errors).
        public internal(set) var keepAlive = false
        /// Bytes after the response that the parser must leave unconsumed (never body).
        public internal(set) var leftover: [UInt8] = []
    }
}

// MARK: - Loading

extension HTTPFixture {
    /// The extension of fixture files.
    public static let fileExtension = "http1"

    /// The `Fixtures/http1` directory, found by walking up from `filePath` (the caller's `#filePath`), then
    /// from the test bundle and the executable, then from the current directory.
    public static func directory(filePath: String = #filePath) throws -> String {
        let starts = [filePath, Bundle.main.bundlePath, Bundle.main.executablePath ?? "",
                      FileManager.default.currentDirectoryPath + "/."]
        for start in starts where !start.isEmpty {
            var folder = URL(fileURLWithPath: start).deletingLastPathComponent()
            while true {
                let candidate = folder.appendingPathComponent("Fixtures/http1").path
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory)
                if exists, isDirectory.boolValue { return candidate }
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        throw HTTPFixtureError.directoryNotFound(starts.joined(separator: ", "))
    }

    /// Every fixture in `Fixtures/http1`, sorted by name (see `directory(filePath:)`).
    public static func loadAll(filePath: String = #filePath) throws -> [HTTPFixture] {
        let folder = try directory(filePath: filePath)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix("." + fileExtension) }
            .sorted()
        return try names.map { try HTTPFixture(contentsOfFile: folder + "/" + $0) }
    }

    /// Parses the fixture file at `path`.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HTTPFixtureError.unreadable(path)
        }
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        try self.init(parsing: [UInt8](data), name: name)
    }

    /// Parses fixture text; `name` identifies the fixture in errors and test output.
    public init(parsing text: [UInt8], name: String) throws {
        var builder = FixtureBuilder()
        for (index, line) in text.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            do {
                try builder.take(line)
            } catch let problem as FormatProblem {
                throw HTTPFixtureError.invalidFormat(name, line: index + 1, problem.message)
            }
        }
        do {
            self = try builder.finish(name: name)
        } catch let problem as FormatProblem {
            throw HTTPFixtureError.invalidFormat(name, line: nil, problem.message)
        }
    }

    /// `bytes` written with the fixture escapes (printable ASCII as is), shortened when long.
    public static func escaped<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var text = ""
        for byte in bytes.prefix(300) {
            switch byte {
            case 0x0D: text += "\\r"
            case 0x0A: text += "\\n"
            case 0x09: text += "\\t"
            case 0x5C: text += "\\\\"
            case 0x22: text += "\\\""
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return bytes.count > 300 ? text + "… (\(bytes.count) bytes)" : text
    }
}

// MARK: - HTTPFixtureError

/// Why fixtures could not be loaded.
public struct HTTPFixtureError: Error, CustomStringConvertible {
    private enum Code {
        case directoryNotFound
        case unreadable
        case invalidFormat
    }

    private let code: Code
    /// Where and what, for people.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// True when the file breaks the format (the description names the file, the line and the mistake).
    public var isInvalidFormat: Bool { code == .invalidFormat }

    /// No `Fixtures/http1` above any of the places searched.
    static func directoryNotFound(_ searched: String) -> HTTPFixtureError {
        HTTPFixtureError(.directoryNotFound, "no Fixtures/http1 directory above \(searched)")
    }

    /// The file could not be read.
    static func unreadable(_ path: String) -> HTTPFixtureError {
        HTTPFixtureError(.unreadable, "cannot read \(path)")
    }

    /// The file breaks the format.
    static func invalidFormat(_ name: String, line: Int?, _ message: String) -> HTTPFixtureError {
        let place = "\(name).\(HTTPFixture.fileExtension)" + (line.map { ":\($0)" } ?? "")
        return HTTPFixtureError(.invalidFormat, "\(place): \(message)")
    }
}

// MARK: - Parsing

/// A format mistake on one line (the caller adds the file and line).
private struct FormatProblem: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}

/// Collects a fixture line by line and checks it is complete and consistent.
private struct FixtureBuilder {
    private static let knownLimits: Set<String> = [
        "maxLineLength", "maxHeadSize", "maxHeaderCount", "maxChunkSizeDigits", "maxChunkExtensionLength",
        "maxTrailerSize",
    ]
    /// Keys that may appear once each.
    private static let singleKeys: Set<String> = [
        "rule", "request", "then", "expect", "status", "framing", "keep-alive", "leftover",
    ]

    private var rule: String?
    private var method: String?
    private var requestHeaders: [HTTPFixture.Field] = []
    private var limits: [HTTPFixture.Limit] = []
    private var reply: [UInt8]?
    private var inReply = false
    private var afterReply: HTTPFixture.AfterReply?
    private var expectsResponse: Bool?
    private var expectation = HTTPFixture.Expectation()
    private var keepAlive: Bool?
    private var seenKeys: Set<String> = []

    mutating func take(_ line: ArraySlice<UInt8>) throws {
        if let last = line.last, last == 0x20 || last == 0x09 || last == 0x0D {
            throw FormatProblem("trailing whitespace or CR: write \\x20, \\t or \\r instead")
        }
        if inReply {
            if line.elementsEqual("reply-end".utf8) {
                inReply = false
            } else {
                reply?.append(contentsOf: try EscapeDecoder.decode(line))
            }
            return
        }
        if line.isEmpty || line.first == UInt8(ascii: "#") { return }
        if line.elementsEqual("reply:".utf8) {
            guard reply == nil else { throw FormatProblem("a second reply") }
            reply = []
            inReply = true
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw FormatProblem("expected `key: value`")
        }
        let key = String(decoding: line[..<colon], as: UTF8.self)
        let value = line[(colon + 1)...].drop { $0 == 0x20 }
        guard !value.isEmpty else { throw FormatProblem("`\(key):` needs a value") }
        if Self.singleKeys.contains(key) {
            guard seenKeys.insert(key).inserted else { throw FormatProblem("`\(key)` given twice") }
        }
        try take(key: key, value: value)
    }

    private mutating func take(key: String, value: ArraySlice<UInt8>) throws {
        let text = String(decoding: value, as: UTF8.self)
        switch key {
        case "rule": rule = text
        case "request":
            guard value.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw FormatProblem("bad method") }
            method = text
        case "request-header": requestHeaders.append(try Self.field(value))
        case "limit": try takeLimit(text)
        case "then": afterReply = try Self.afterReply(text)
        case "expect": try takeExpect(text)
        case "interim": expectation.interim.append(try Self.head(value))
        case "interim-header":
            guard !expectation.interim.isEmpty else { throw FormatProblem("interim-header before any interim") }
            expectation.interim[expectation.interim.count - 1].fields.append(try Self.field(value))
        case "status": expectation.head = try Self.head(value)
        case "header":
            guard expectation.head != nil else { throw FormatProblem("header before status") }
            expectation.head?.fields.append(try Self.field(value))
        case "framing": expectation.framing = try Self.framing(text)
        case "body":
            guard expectation.head != nil else { throw FormatProblem("body before status") }
            expectation.body += try Self.quoted(value)
        case "decoded-body":
            guard expectation.head != nil else { throw FormatProblem("decoded-body before status") }
            expectation.decodedBody = (expectation.decodedBody ?? []) + (try Self.quoted(value))
        case "trailer": expectation.trailers.append(try Self.field(value))
        case "keep-alive":
            guard text == "yes" || text == "no" else { throw FormatProblem("keep-alive is yes or no") }
            keepAlive = text == "yes"
        case "leftover": expectation.leftover = try Self.quoted(value)
        default: throw FormatProblem("unknown key `\(key)`")
        }
    }

    private mutating func takeLimit(_ text: String) throws {
        let parts = text.split(separator: " ")
        guard parts.count == 2, Self.knownLimits.contains(String(parts[0])), let number = Int(parts[1]),
              number >= 0 else {
            throw FormatProblem("limit is `NAME VALUE` with NAME one of \(Self.knownLimits.sorted())")
        }
        limits.append(HTTPFixture.Limit(name: String(parts[0]), value: number))
    }

    private mutating func takeExpect(_ text: String) throws {
        let parts = text.split(separator: " ").map(String.init)
        switch (parts.first ?? "", parts.count) {
        case ("response", 1):
            expectsResponse = true
        case ("networkConnectionLost", 1):
            expectsResponse = false
            expectation.error = .networkConnectionLost
        case ("badServerResponse", 2) where parts[1].allSatisfy({ $0.isLetter }):
            expectsResponse = false
            expectation.error = .badServerResponse(parts[1])
        default:
            throw FormatProblem("expect is `response`, `badServerResponse PARSE-ERROR` or `networkConnectionLost`")
        }
    }

    // MARK: Completeness

    mutating func finish(name: String) throws -> HTTPFixture {
        guard !inReply else { throw FormatProblem("reply without reply-end") }
        guard let rule else { throw FormatProblem("missing rule") }
        guard let reply else { throw FormatProblem("missing reply") }
        guard let afterReply else { throw FormatProblem("missing then") }
        guard let expectsResponse else { throw FormatProblem("missing expect") }
        guard (expectation.head == nil) == (expectation.framing == nil) else {
            throw FormatProblem("status and framing go together")
        }
        if expectsResponse {
            guard expectation.head != nil, let keepAlive else {
                throw FormatProblem("a response needs status, framing and keep-alive")
            }
            expectation.keepAlive = keepAlive
            if expectation.framing == "until-close" {
                guard afterReply == .close else { throw FormatProblem("an until-close body needs then: close") }
            }
            guard reply.suffix(expectation.leftover.count).elementsEqual(expectation.leftover) else {
                throw FormatProblem("leftover must be the last bytes of the reply")
            }
        } else {
            guard keepAlive == nil, expectation.trailers.isEmpty, expectation.leftover.isEmpty,
                  expectation.decodedBody == nil else {
                throw FormatProblem("keep-alive, trailer, leftover and decoded-body describe responses that end")
            }
            if expectation.error?.isNetworkConnectionLost == true {
                guard afterReply != .keepOpen else { throw FormatProblem("a lost connection needs close or reset") }
            }
        }
        if afterReply == .reset, expectation.error?.isNetworkConnectionLost != true {
            throw FormatProblem("then: reset goes with expect: networkConnectionLost")
        }
        return HTTPFixture(
            name: name, rule: rule, requestMethod: method ?? "GET", requestHeaders: requestHeaders,
            limits: limits, reply: reply,
            afterReply: afterReply, expectation: expectation)
    }

    // MARK: Values

    private static func afterReply(_ text: String) throws -> HTTPFixture.AfterReply {
        switch text {
        case "close": return .close
        case "keep-open": return .keepOpen
        case "reset": return .reset
        default: throw FormatProblem("then is close, keep-open or reset")
        }
    }

    private static func framing(_ text: String) throws -> String {
        if ["none", "chunked", "until-close"].contains(text) { return text }
        let parts = text.split(separator: " ")
        guard parts.count == 2, parts[0] == "content-length", Int64(parts[1]) != nil,
              parts[1].allSatisfy(\.isASCII) else {
            throw FormatProblem("framing is none, content-length N, chunked or until-close")
        }
        return text
    }

    /// `HTTP/1.1 200 reason` (the reason may be absent).
    private static func head(_ value: ArraySlice<UInt8>) throws -> HTTPFixture.Head {
        let text = Array(value)
        guard text.count >= 12, text.starts(with: "HTTP/".utf8), text[8] == 0x20,
              text[9...11].allSatisfy({ (0x30...0x39).contains($0) }), text.count == 12 || text[12] == 0x20 else {
            throw FormatProblem("expected `HTTP/x.y NNN reason`")
        }
        let status = text[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let reason = text.count > 13 ? try EscapeDecoder.decode(text[13...]) : []
        return HTTPFixture.Head(
            version: String(decoding: text[..<8], as: UTF8.self), status: status, reason: reason, fields: [])
    }

    /// `Name: value` (escapes allowed in both; the value may be empty).
    private static func field(_ value: ArraySlice<UInt8>) throws -> HTTPFixture.Field {
        guard let colon = value.firstIndex(of: UInt8(ascii: ":")), colon > value.startIndex else {
            throw FormatProblem("expected `Name: value`")
        }
        let fieldValue = value[(colon + 1)...].drop { $0 == 0x20 }
        return HTTPFixture.Field(
            name: try EscapeDecoder.decode(value[..<colon]), value: try EscapeDecoder.decode(fieldValue))
    }

    /// `"..."` with escapes; a `"` inside must be written `\"`.
    private static func quoted(_ value: ArraySlice<UInt8>) throws -> [UInt8] {
        guard value.count >= 2, value.first == 0x22, value.last == 0x22 else {
            throw FormatProblem("expected a quoted string")
        }
        return try EscapeDecoder.decode(value.dropFirst().dropLast(), quoted: true)
    }
}

// MARK: - Escapes

/// Turns escaped text into bytes: \r \n \t \0 \\ \" \xHH and \*N{...}; other bytes must be printable ASCII.
private struct EscapeDecoder {
    /// The largest result accepted, so that a typo in a repeat count cannot exhaust memory.
    private static let maximumSize = 16 * 1024 * 1024

    private let input: ArraySlice<UInt8>
    private let quoted: Bool
    private var index: Int

    static func decode(_ text: ArraySlice<UInt8>, quoted: Bool = false) throws -> [UInt8] {
        var decoder = EscapeDecoder(input: text, quoted: quoted, index: text.startIndex)
        return try decoder.decode(insideRepeat: false)
    }

    private mutating func decode(insideRepeat: Bool) throws -> [UInt8] {
        var output: [UInt8] = []
        while index < input.endIndex {
            let byte = input[index]
            index += 1
            switch byte {
            case UInt8(ascii: "}") where insideRepeat:
                return output
            case UInt8(ascii: "\\"):
                output += try escape()
            case UInt8(ascii: "\"") where quoted:
                throw FormatProblem("a quote inside a quoted string: write \\\"")
            case 0x20...0x7E:
                output.append(byte)
            default:
                throw FormatProblem("literal byte 0x\(String(byte, radix: 16)): write it as an escape")
            }
            guard output.count <= Self.maximumSize else { throw FormatProblem("more than 16 MiB") }
        }
        guard !insideRepeat else { throw FormatProblem("\\*N{ without its }") }
        return output
    }

    private mutating func escape() throws -> [UInt8] {
        guard index < input.endIndex else { throw FormatProblem("a backslash at the end of the line") }
        let letter = input[index]
        index += 1
        switch letter {
        case UInt8(ascii: "r"): return [0x0D]
        case UInt8(ascii: "n"): return [0x0A]
        case UInt8(ascii: "t"): return [0x09]
        case UInt8(ascii: "0"): return [0x00]
        case UInt8(ascii: "\\"), UInt8(ascii: "\""): return [letter]
        case UInt8(ascii: "x"):
            guard index + 2 <= input.endIndex,
                  let value = UInt8(String(decoding: input[index..<index + 2], as: UTF8.self), radix: 16) else {
                throw FormatProblem("\\x needs two hex digits")
            }
            index += 2
            return [value]
        case UInt8(ascii: "*"):
            return try repetition()
        default:
            throw FormatProblem("unknown escape \\\(Character(Unicode.Scalar(letter)))")
        }
    }

    /// `N{...}` after `\*`: N copies of the decoded bytes between the braces.
    private mutating func repetition() throws -> [UInt8] {
        let digitsStart = index
        while index < input.endIndex, (0x30...0x39).contains(input[index]) { index += 1 }
        guard index < input.endIndex, input[index] == UInt8(ascii: "{"),
              let count = Int(String(decoding: input[digitsStart..<index], as: UTF8.self)),
              count <= Self.maximumSize else {
            throw FormatProblem("expected \\*N{...}")
        }
        index += 1
        let unit = try decode(insideRepeat: true)
        guard unit.count * count <= Self.maximumSize else { throw FormatProblem("more than 16 MiB") }
        return Array([[UInt8]](repeating: unit, count: count).joined())
    }
}
