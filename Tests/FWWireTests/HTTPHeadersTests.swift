// HTTPHeaders: order, duplicates, case-insensitive lookup, list tokens, byte storage and String decoding.

import FWWire
import Testing

@Test("creating: empty, from pairs, from a literal")
func creating() {
    let empty = HTTPHeaders()
    #expect(empty.isEmpty)
    #expect(empty.count == 0)

    let pairs = HTTPHeaders([(name: "A", value: "1"), (name: "B", value: "2"), (name: "A", value: "3")])
    let literal: HTTPHeaders = ["A": "1", "B": "2", "A": "3"]
    #expect(pairs == literal)
    #expect(pairs.count == 3)
    #expect(!pairs.isEmpty)
    #expect(pairs[2].name == "A")
    #expect(pairs[2].value == "3")
}

@Test("iteration keeps order and duplicates")
func iteration() {
    let headers: HTTPHeaders = ["Set-Cookie": "a=1", "Date": "today", "Set-Cookie": "b=2"]
    let fields = headers.map { "\($0.name)=\($0.value)" }
    #expect(fields == ["Set-Cookie=a=1", "Date=today", "Set-Cookie=b=2"])
    #expect(headers.underestimatedCount == 3)
}

@Test("lookup by name is case-insensitive")
func lookup() {
    let headers: HTTPHeaders = ["Content-Type": "text/html", "set-cookie": "a=1", "SET-COOKIE": "b=2"]
    #expect(headers.contains(name: "content-type"))
    #expect(!headers.contains(name: "Content-Length"))
    #expect(!headers.contains(name: "Content-Typ"))
    #expect(headers.first(name: "CONTENT-TYPE") == "text/html")
    #expect(headers.first(name: "Set-Cookie") == "a=1")
    #expect(headers.first(name: "Missing") == nil)
    #expect(headers.values(name: "Set-Cookie") == ["a=1", "b=2"])
    #expect(headers.values(name: "Missing").isEmpty)
}

@Test("a lookup skips the scan only for names no field can have")
func lookupOfAbsentNames() {
    // "Content-Type" and "content-tzpe" share a length and a first letter: the quick answer cannot tell them
    // apart, the scan does. "Content-Length" has another length: answered without a scan.
    var headers: HTTPHeaders = ["Content-Type": "text/html"]
    #expect(!headers.contains(name: "content-tzpe"))
    #expect(!headers.contains(name: "Content-Length"))
    #expect(headers.contains(name: "CONTENT-TYPE"))
    // Fields added every way are found: appended, put first, parsed (FieldSectionReaderTests), and a removed
    // field is not found any more.
    headers.addFirst(name: "ETag", value: "\"1\"")
    headers.add(name: "x-y", value: "z")
    #expect(headers.first(name: "etag") == "\"1\"")
    #expect(headers.first(name: "X-Y") == "z")
    headers.remove(name: "etag")
    #expect(!headers.contains(name: "ETag"))
    headers.moveToFront(name: "X-Y")
    #expect(headers.first(name: "x-y") == "z")
    #expect(headers.first(name: "content-type") == "text/html")
    // A name of a byte that is not a letter, and names longer than the 64 bits go round.
    headers.add(name: "1-digit", value: "one")
    headers.add(name: String(repeating: "a", count: 70), value: "long")
    #expect(headers.first(name: "1-DIGIT") == "one")
    #expect(headers.first(name: String(repeating: "A", count: 70)) == "long")
    #expect(!headers.contains(name: String(repeating: "a", count: 6)))
}

@Test("lookups of a name find every field of it, however it was added, and no other")
func lookupOfRepeatedNames() throws {
    // One field per name.
    var headers: HTTPHeaders = ["Content-Length": "64", "Connection": "keep-alive"]
    #expect(headers.values(name: "content-length") == ["64"])
    #expect(headers.combinedValue(name: "Connection") == "keep-alive")
    // A second field of the name, added every way, is found: appended, put first, parsed (a field line).
    headers.add(name: "connection", value: "close")
    #expect(headers.values(name: "Connection") == ["keep-alive", "close"])
    headers.addFirst(name: "CONTENT-LENGTH", value: "65")
    #expect(headers.values(name: "Content-Length") == ["65", "64"])
    #expect(headers.containsToken("close", inField: "Connection"))
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(Array("HTTP/1.1 200 OK\r\nVia: 1.1 a\r\nAge: 1\r\nvia: 1.1 b\r\nContent-Length: 0\r\n\r\n".utf8))
    guard case .head(let head, _)? = try parser.next() else {
        Issue.record("no head")
        return
    }
    #expect(head.headers.combinedValue(name: "VIA") == "1.1 a, 1.1 b")
    // Names that share a first letter and a length (the quick answer's bit) but differ: each found once.
    var sharing: HTTPHeaders = ["X-A": "1", "X-B": "2"]
    #expect(sharing.values(name: "x-a") == ["1"])
    #expect(sharing.values(name: "x-b") == ["2"])
    // A field moved to the front and one removed keep the others' answers right.
    sharing.add(name: "x-a", value: "3")
    sharing.moveToFront(name: "X-B")
    #expect(sharing.values(name: "X-A") == ["1", "3"])
    sharing.remove(name: "x-a")
    #expect(sharing.values(name: "X-A").isEmpty)
    #expect(sharing.values(name: "X-B") == ["2"])
}

@Test("adding, replacing and removing")
func changing() {
    var headers: HTTPHeaders = ["Accept": "a", "Host": "h", "accept": "b"]
    headers.add(name: "X", value: "1")
    #expect(headers.count == 4)
    headers.replaceOrAdd(name: "ACCEPT", value: "c")
    #expect(headers == ["Host": "h", "X": "1", "ACCEPT": "c"])
    headers.remove(name: "x")
    #expect(headers == ["Host": "h", "ACCEPT": "c"])
    headers.remove(name: "Missing")
    #expect(headers == ["Host": "h", "ACCEPT": "c"])
    headers.replaceOrAdd(name: "New", value: "n")
    #expect(headers == ["Host": "h", "ACCEPT": "c", "New": "n"])
    headers.remove(name: "host")
    headers.remove(name: "accept")
    headers.remove(name: "new")
    #expect(headers.isEmpty)
    #expect(headers == HTTPHeaders())
}

let moveToFrontCases: [(HTTPHeaders, String, HTTPHeaders)] = [
    (["Accept": "a", "Host": "h"], "host", ["Host": "h", "Accept": "a"]),
    (["Host": "h", "A": "1"], "Host", ["Host": "h", "A": "1"]),
    (["A": "1", "h": "x", "B": "2", "H": "y"], "H", ["h": "x", "H": "y", "A": "1", "B": "2"]),
    (["A": "1"], "Missing", ["A": "1"]),
    (HTTPHeaders(), "Host", HTTPHeaders()),
    (["h": "x", "H": "y", "A": "1"], "h", ["h": "x", "H": "y", "A": "1"]),
    (["h": "x", "A": "1", "H": "y"], "h", ["h": "x", "H": "y", "A": "1"]),
    (["Host": "h"], "host", ["Host": "h"]),
]

@Test("moving fields to the front keeps every byte and the order within each group", arguments: moveToFrontCases)
func movingToFront(_ headers: HTTPHeaders, _ name: String, _ expected: HTTPHeaders) {
    var moved = headers
    moved.moveToFront(name: name)
    #expect(moved == expected)
}

@Test("moving to the front keeps the bytes of non-ASCII values")
func movingToFrontKeepsRawBytes() {
    var headers = HTTPHeaders()
    headers.add(name: "X", value: "\u{E9}A")
    headers.add(name: "Host", value: "h")
    headers.moveToFront(name: "host")
    #expect(Array(headers.rawName(at: 0)) == Array("Host".utf8))
    // A round trip through ISO-8859-1 strings would have made four bytes of these three.
    #expect(Array(headers.rawValue(at: 1)) == [0xC3, 0xA9, 0x41])
}

let addFirstCases: [(HTTPHeaders, HTTPHeaders)] = [
    (HTTPHeaders(), ["Host": "h"]),
    (["A": "1"], ["Host": "h", "A": "1"]),
    (["A": "1", "B": "", "A": "2"], ["Host": "h", "A": "1", "B": "", "A": "2"]),
]

@Test("adding a field first keeps every other field and byte after it", arguments: addFirstCases)
func addingFirst(_ headers: HTTPHeaders, _ expected: HTTPHeaders) {
    var added = headers
    added.addFirst(name: "Host", value: "h")
    #expect(added == expected)
    #expect(added.count == headers.count + 1)
    added.add(name: "Z", value: "9")
    #expect(added[added.count - 1] == (name: "Z", value: "9"))
}

@Test("adding first keeps the bytes of non-ASCII values")
func addingFirstKeepsRawBytes() {
    var headers = HTTPHeaders()
    headers.add(name: "X", value: "\u{E9}A")
    headers.addFirst(name: "Host", value: "h")
    #expect(Array(headers.rawName(at: 0)) == Array("Host".utf8))
    #expect(Array(headers.rawValue(at: 1)) == [0xC3, 0xA9, 0x41])
}

@Test("equality compares fields in order, byte for byte")
func equality() {
    let a1: HTTPHeaders = ["A": "1"]
    #expect(a1 == ["A": "1"])
    #expect(a1 != ["a": "1"])
    #expect(a1 != ["A": "1 "])
    #expect(a1 != ["A": "1", "A": "1"])
    let ab: HTTPHeaders = ["A": "1", "B": "2"]
    #expect(ab != ["B": "2", "A": "1"])
    let split: HTTPHeaders = ["AB": ""]
    #expect(split != ["A": "B"])
}

@Test("containsToken: comma-separated, OWS trimmed, case-insensitive, whole elements only", arguments: [
    (["Connection": "close"], "close", true),
    (["Connection": "Keep-Alive, CLOSE"], "close", true),
    (["Connection": " \tclose\t "], "close", true),
    (["Connection": "upgrade", "connection": "close"], "close", true),
    (["Connection": ",,close,,"], "close", true),
    (["Connection": "closed"], "close", false),
    (["Connection": "clo se"], "close", false),
    (["Connection": "keep-alive"], "close", false),
    (["Connection": ""], "", false),
    (["Keep-Alive": "close"], "close", false),
] as [(HTTPHeaders, String, Bool)])
func containsToken(headers: HTTPHeaders, token: String, expected: Bool) {
    #expect(headers.containsToken(token, inField: "Connection") == expected)
}

@Test("Strings in are stored as UTF-8; bytes out decode as ISO-8859-1, losslessly")
func encodings() {
    let headers: HTTPHeaders = ["X-Name": "café"]
    #expect(headers.rawName(at: 0) == ArraySlice(bytes("X-Name")))
    #expect(headers.rawValue(at: 0) == [0x63, 0x61, 0x66, 0xC3, 0xA9])
    #expect(headers[0].value == "caf\u{C3}\u{A9}")

    // Every byte a received value can hold (all but NUL, CR and LF) survives the trip to a String.
    let value = (1...255).map { UInt8($0) }.filter { $0 != 0x0A && $0 != 0x0D }
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 204 X\r\nV: ") + value + bytes("\r\n\r\n"))
    guard case .head(let head, _)? = try? parser.next() else {
        Issue.record("no head")
        return
    }
    #expect(head.headers.rawValue(at: 0) == ArraySlice(value))
    #expect(head.headers[0].value.unicodeScalars.map { UInt8($0.value) } == value)
}

@Test("description lists the fields")
func headersDescription() {
    let headers: HTTPHeaders = ["A": "1", "B": "2"]
    #expect(headers.description == "[A: 1, B: 2]")
}
