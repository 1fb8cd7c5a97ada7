// How the parser moves bytes: a large fed array kept without a copy, reads straight into the parser's
// buffer, a body event that takes the whole buffer, chunk data joined into one event, and the order of
// that data, a later error and the trailers. Value semantics must hold throughout: nothing the caller does
// to its arrays afterwards changes events.

import FWWire
import Testing

/// Pulls every event the parser can report now, without joining body events.
private func pull(_ parser: inout HTTPResponseParser) throws -> [HTTPResponseEvent] {
    var events: [HTTPResponseEvent] = []
    while let event = try parser.next() {
        events.append(event)
    }
    return events
}

/// `count` bytes of every value, CR, LF and NUL included.
private func payload(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}

// MARK: - Large reads

@Test("a large fed array is kept without a copy, and the caller changing its array changes nothing")
func fedArrayKept() throws {
    let content = payload(10_000)
    var read = bytes("HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n") + content
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(read)
    for index in read.indices {
        read[index] = 0x58
    }
    #expect(try pull(&parser) == [
        head(200, "OK", ["Content-Length": "10000"], framing: .contentLength(10_000)), .body(content),
        end(keepAlive: true),
    ])
}

@Test("a body read that is the whole buffer is delivered intact and stays intact", arguments: [false, true])
func wholeBufferBody(fedAsPointer: Bool) throws {
    let first = payload(8192, seed: 1)
    let second = payload(8192, seed: 2)
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 16385\r\n\r\n"))
    #expect(try pull(&parser) == [head(200, "OK", ["Content-Length": "16385"], framing: .contentLength(16_385))])

    var readBuffer = first
    func feed(_ bytes: [UInt8]) {
        readBuffer = bytes
        if fedAsPointer {
            readBuffer.withUnsafeBytes { parser.feed($0) }
        } else {
            parser.feed(readBuffer)
        }
    }
    feed(first)
    let firstEvents = try pull(&parser)
    #expect(firstEvents == [.body(first)])
    feed(second)
    #expect(try pull(&parser) == [.body(second)])
    feed(bytes("!") + bytes("HTTP/1.1"))
    #expect(try pull(&parser) == [body("!"), end(keepAlive: true)])
    #expect(parser.bufferedByteCount == 8)
    #expect(firstEvents == [.body(first)], "a delivered body never changes")
}

@Test("small arrays are copied in, and whatever was left unread is kept in front of them")
func leftoverBeforeLargeArray() throws {
    let content = payload(6000)
    let response = bytes("HTTP/1.1 200 OK\r\nContent-Length: 6000\r\n\r\n") + content
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(Array(response[..<20]))
    #expect(try pull(&parser).isEmpty)
    parser.feed(Array(response[20...]))
    #expect(try pull(&parser) == [
        head(200, "OK", ["Content-Length": "6000"], framing: .contentLength(6000)), .body(content),
        end(keepAlive: true),
    ])
    #expect(parser.bufferedByteCount == 0)
}

// MARK: - Reading into the parser

/// A read error of the tests' own.
private struct ReadFailed: Error, Equatable {}

/// Feeds `source` through `feed(upTo:using:)`, `readSize` bytes at most per read, pulling events after each.
private func readInto(
    _ parser: inout HTTPResponseParser, _ source: [UInt8], readSize: Int
) throws -> [HTTPResponseEvent] {
    var events: [HTTPResponseEvent] = []
    var offset = 0
    while offset < source.count {
        let count = parser.feed(upTo: readSize) { room in
            let count = min(room.count, source.count - offset)
            source.withUnsafeBytes { bytes in
                room.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            }
            return count
        }
        offset += count
        events += try pull(&parser)
    }
    return events
}

@Test("reads straight into the parser give the same events as feeding", arguments: [1, 7, 100, 5000, 70_000])
func readsIntoParser(readSize: Int) throws {
    let content = payload(20_000)
    let chunked = bytes(chunkedHead + "5\r\nhello\r\n0\r\n\r\n")
    let source = bytes("HTTP/1.1 200 OK\r\nContent-Length: 20000\r\n\r\n") + content + chunked
    var fed = HTTPResponseParser()
    fed.expectResponse(requestMethod: "GET")
    fed.feed(source)
    var expected = try pull(&fed)
    fed.expectResponse(requestMethod: "GET")
    expected += try pull(&fed)

    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    var events = try readInto(&parser, Array(source[..<(source.count - chunked.count)]), readSize: readSize)
    parser.expectResponse(requestMethod: "GET")
    events += try readInto(&parser, chunked, readSize: readSize)
    var joined: [HTTPResponseEvent] = []
    for event in events {
        ParserHarness.append(event, to: &joined)
    }
    var joinedExpected: [HTTPResponseEvent] = []
    for event in expected {
        ParserHarness.append(event, to: &joinedExpected)
    }
    #expect(joined == joinedExpected)
    #expect(joined.count == 6)
    #expect(parser.isIdle)
}

// Issue 23 (stage C): a head is read through the parser's reusable read area (no array per read), and a large
// body's reads still land in arrays that body events take whole.
@Test("a head goes through the read area; a large body's read is handed over without a copy")
func readAreaAndZeroCopyBody() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    let firstHead = bytes("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
    var rooms: [UnsafeMutableRawPointer?] = []
    func read(_ source: [UInt8]) -> Int {
        parser.feed(upTo: 65536) { room in
            rooms.append(room.baseAddress)
            source.withUnsafeBytes { room.copyMemory(from: $0) }
            return source.count
        }
    }
    _ = read(firstHead)
    #expect(try pull(&parser).count == 1, "the head")
    _ = read(payload(65536))
    let events = try pull(&parser)
    guard case .body(let first)? = events.first else { Issue.record("no body event: \(events)"); return }
    #expect(first.count == 65536)
    #expect(first.withUnsafeBytes { $0.baseAddress } == UnsafeRawPointer(rooms[1]), "the read's array itself")
    _ = read(firstHead) // more of the body (any bytes): read into a fresh array too
    #expect(rooms[2] != rooms[0], "a body still expected: not the read area")

    // The next head is read through the same area as the first.
    _ = try pull(&parser)
    parser.feed(payload(100_000 - 65536 - firstHead.count))
    _ = try pull(&parser)
    #expect(parser.isIdle)
    parser.expectResponse(requestMethod: "GET")
    _ = read(bytes("HTTP/1.1 204 No Content\r\n\r\n"))
    #expect(rooms[3] == rooms[0])
    #expect(try pull(&parser) == [head(204, "No Content", [:], framing: .none), end(keepAlive: true)])
}

@Test("a long header line read into the parser in small pieces arrives whole")
func longLineInSmallReads() throws {
    let value = String(repeating: "v", count: 10_000)
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    let events = try readInto(&parser, bytes("HTTP/1.1 204 No Content\r\nX: \(value)\r\n\r\n"), readSize: 100)
    #expect(events == [head(204, "No Content", ["X": value], framing: .none), end(keepAlive: true)])
}

@Test("a read that throws leaves the parser as it was; a read of nothing changes nothing")
func throwingRead() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    _ = try readInto(&parser, bytes("HTTP/1.1 200 OK\r\nContent-"), readSize: 64)
    #expect(parser.bufferedByteCount == 8, "the status line is consumed; 'Content-' waits")
    #expect(throws: ReadFailed()) {
        try parser.feed(upTo: 64) { (_) throws(ReadFailed) -> Int in throw ReadFailed() }
    }
    #expect(parser.feed(upTo: 64) { _ in 0 } == 0)
    #expect(parser.bufferedByteCount == 8)
    #expect(try readInto(&parser, bytes("Length: 2\r\n\r\nok"), readSize: 64) == [
        head(200, "OK", ["Content-Length": "2"], framing: .contentLength(2)), body("ok"), end(keepAlive: true),
    ])
}

@Test("after a protocol error, reads still run and their bytes are ignored")
func readAfterError() {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/2.0 200 OK\r\n\r\n"))
    #expect(throws: HTTPParseError.unsupportedVersion) { try parser.next() }
    var called = false
    let count = parser.feed(upTo: 16) { room in
        called = true
        room.copyBytes(from: bytes("HTTP/1.1 204 X\r\n"))
        return 16
    }
    #expect(called)
    #expect(count == 16)
    #expect(throws: HTTPParseError.unsupportedVersion) { try parser.next() }
}

// MARK: - Chunked data

private let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
private let chunkedHeadEvent = head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)

@Test("chunks that arrived together are one body event; trailers come with the end after it")
func joinedChunks() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes(chunkedHead + "3\r\nabc\r\n2;x=y\r\nde\r\n4\r\nfghi\r\n0\r\nT: 1\r\n\r\n"))
    #expect(try pull(&parser) == [chunkedHeadEvent, body("abcdefghi"), end(keepAlive: true, trailers: ["T": "1"])])
    #expect(parser.isIdle)
}

@Test("many small chunks in one read are one body event with all their data")
func manySmallChunks() throws {
    let data = payload(32 * 500)
    var wire = bytes(chunkedHead)
    for chunk in 0..<500 {
        wire += bytes("20\r\n") + data[chunk * 32..<(chunk + 1) * 32] + bytes("\r\n")
    }
    wire += bytes("0\r\n\r\n")
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(wire)
    #expect(try pull(&parser) == [chunkedHeadEvent, .body(data), end(keepAlive: true)])
}

@Test("chunk data decoded before a framing error is reported first; the error is sticky")
func dataBeforeError() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes(chunkedHead + "3\r\nabc\r\n2\r\nde\r\nZ\r\n"))
    #expect(try parser.next() == chunkedHeadEvent)
    #expect(try parser.next() == body("abcde"))
    #expect(throws: HTTPParseError.invalidChunkSize) { try parser.next() }
    #expect(throws: HTTPParseError.invalidChunkSize) { try parser.next() }
}

@Test("chunk data then a close before the last chunk: the data, then a premature end")
func dataBeforePrematureClose() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes(chunkedHead + "3\r\nabc\r\n2\r\nd"))
    parser.feedEndOfStream()
    #expect(try parser.next() == chunkedHeadEvent)
    #expect(try parser.next() == body("abcd"))
    #expect(throws: HTTPParseError.unexpectedEndOfStream) { try parser.next() }
}

@Test("a large chunk whose data fills a whole read arrives intact")
func largeChunkRead() throws {
    let data = payload(8192, seed: 3)
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes(chunkedHead + "2000\r\n"))
    #expect(try pull(&parser) == [chunkedHeadEvent])
    parser.feed(data)
    #expect(try pull(&parser) == [.body(data)])
    parser.feed(bytes("\r\n0\r\n\r\n"))
    #expect(try pull(&parser) == [end(keepAlive: true)])
}

// MARK: - Handing bytes over to a tunnel

@Test("after a 2xx answer to CONNECT, the bytes that follow are handed over and forgotten")
func bytesAfterConnectAreTakenWhole() throws {
    let tunnelled = payload(300)
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "CONNECT")
    parser.feed(bytes("HTTP/1.1 200 Connection established\r\nContent-Length: 9\r\n\r\n") + tunnelled)
    #expect(try pull(&parser) == [
        head(200, "Connection established", ["Content-Length": "9"], framing: .none), end(keepAlive: true),
    ])
    #expect(parser.takeBufferedBytes() == tunnelled)
    #expect(parser.bufferedByteCount == 0)
    #expect(parser.takeBufferedBytes() == [])
}

// MARK: - Reading into pieces given back

/// Hands out the arrays it was given, counting the takes.
private final class RecordingSupply: BodyPieceSupply, @unchecked Sendable { // used by one test's thread only
    var pieces: [[UInt8]]
    var takes = 0

    init(_ pieces: [[UInt8]]) {
        self.pieces = pieces
    }

    func takePiece(count: Int) -> [UInt8]? {
        takes += 1
        guard let last = pieces.last, last.count >= count else { return nil }
        return pieces.removeLast()
    }
}

@Test("a large read lands in a piece the supply gives back, written over and shortened to what it holds")
func largeReadIntoSuppliedPiece() throws {
    var old = [UInt8](repeating: 0xEE, count: 70_000)
    let address = old.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
    let supply = RecordingSupply([])
    supply.pieces = [consume old]
    var parser = HTTPResponseParser()
    parser.pieceSupply = supply
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"))
    #expect(try pull(&parser).count == 1, "the head")
    let content = payload(1000, seed: 5)
    let count = parser.feed(upTo: 65536) { room in
        content.withUnsafeBytes { room.copyMemory(from: $0) }
        return content.count
    }
    #expect(count == 1000)
    let events = try pull(&parser)
    guard case .body(let piece)? = events.first else { Issue.record("no body event: \(events)"); return }
    #expect(piece == content, "only what the read wrote, none of the old bytes")
    #expect(piece.withUnsafeBytes { $0.baseAddress } == address, "the piece given back, not a fresh array")
    #expect(supply.takes == 1)

    // A supply with nothing large enough: a fresh array, the same bytes.
    supply.pieces = [[UInt8](repeating: 0, count: 100)]
    let more = payload(5000, seed: 6)
    _ = parser.feed(upTo: 65536) { room in
        more.withUnsafeBytes { room.copyMemory(from: $0) }
        return more.count
    }
    guard case .body(let second)? = try pull(&parser).first else { Issue.record("no second body event"); return }
    #expect(second == more)
    #expect(supply.takes == 2)
}
