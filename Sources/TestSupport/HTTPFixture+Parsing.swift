// HTTPFixture's parser: the `.http1` format of Fixtures/http1/README.md, line by line (`FixtureBuilder`:
// `key: value` lines, the `reply:` ... `reply-end` block, the checks that a fixture is complete and
// consistent), and the byte escapes of values and replies (`EscapeDecoder`: \r \n \t \0 \\ \" \xHH and
// \*N{...}). `HTTPFixture.init(parsing:name:)` (HTTPFixture.swift) drives it and names the file and line of a
// `FormatProblem`.

import Foundation

// MARK: - Parsing

/// A format mistake on one line (the caller adds the file and line).
struct FormatProblem: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}

/// Collects a fixture line by line and checks it is complete and consistent.
struct FixtureBuilder {
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
