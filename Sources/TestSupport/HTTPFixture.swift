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
