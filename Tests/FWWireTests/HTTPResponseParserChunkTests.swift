// A parser told to report chunks (`expectResponse(requestMethod:reportsChunks:)`, what a traced request's
// connection asks for): every size line is a `.chunk` event with its size and extensions, each chunk's data
// follows it as body events of its own, in wire order, however the bytes are split (a size line cut by a
// read is read again whole); without the flag the same bytes give no `.chunk` and one joined body.

import FWWire
import Testing

/// A chunked body of chunks of 5, 0x1a and 3 bytes (the second with two extensions, the third's size line
/// with a bare LF), the last-chunk with an extension, and a trailer.
private let chunkedResponse = bytes(
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5\r\nhello\r\n"
        + "1A;name=value;q=\"a b\"\r\nabcdefghijklmnopqrstuvwxyz\r\n"
        + "3\nxyz\r\n"
        + "0;last\r\nX-Sum: 34\r\n\r\n")

/// The events of `chunkedResponse` fed in the pieces `cuts` makes, with body events of one chunk joined (a
/// split inside chunk data makes two body events of the same chunk).
private func chunkEvents(cuts: [Int], reportsChunks: Bool) throws -> [HTTPResponseEvent] {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET", reportsChunks: reportsChunks)
    var events: [HTTPResponseEvent] = []
    var start = 0
    for cut in cuts + [chunkedResponse.count] where cut > start {
        parser.feed(Array(chunkedResponse[start..<cut]))
        start = cut
        while let event = try parser.next() {
            if case .body(let more) = event, case .body(let earlier)? = events.last {
                events[events.count - 1] = .body(earlier + more)
            } else {
                events.append(event)
            }
        }
    }
    return events
}

private let expectedChunkEvents: [HTTPResponseEvent] = [
    head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked),
    .chunk(size: 5, extensions: ""), .body(bytes("hello")),
    .chunk(size: 26, extensions: ";name=value;q=\"a b\""), .body(bytes("abcdefghijklmnopqrstuvwxyz")),
    .chunk(size: 3, extensions: ""), .body(bytes("xyz")),
    .chunk(size: 0, extensions: ";last"),
    end(keepAlive: true, trailers: ["X-Sum": "34"]),
]

@Test("a parser reporting chunks reports each size line, then that chunk's data, in wire order")
func reportsEachChunk() throws {
    #expect(try chunkEvents(cuts: [], reportsChunks: true) == expectedChunkEvents)
}

@Test("the chunk reports are the same whichever byte the input is cut at (a size line read again whole)")
func reportsEachChunkAtEverySplit() throws {
    for cut in 1..<chunkedResponse.count {
        #expect(try chunkEvents(cuts: [cut], reportsChunks: true) == expectedChunkEvents, "cut at \(cut)")
    }
    let byteByByte = Array(1..<chunkedResponse.count)
    #expect(try chunkEvents(cuts: byteByByte, reportsChunks: true) == expectedChunkEvents)
}

@Test("without reportsChunks the same body is one joined body event and no chunk event")
func noChunkReportsByDefault() throws {
    #expect(try chunkEvents(cuts: [], reportsChunks: false) == [
        head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked),
        .body(bytes("helloabcdefghijklmnopqrstuvwxyzxyz")),
        end(keepAlive: true, trailers: ["X-Sum": "34"]),
    ])
}

@Test("a reporting parser records the same deviations, and a premature end cut inside a size line")
func reportingKeepsDeviationsAndErrors() throws {
    func pull(_ parser: inout HTTPResponseParser) throws -> [HTTPResponseEvent] {
        var events: [HTTPResponseEvent] = []
        while let event = try parser.next() { events.append(event) }
        return events
    }
    let start = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nab\r\n1;a")
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET", reportsChunks: true)
    parser.feed(start)
    #expect(try pull(&parser).dropFirst() == [.chunk(size: 2, extensions: " "), .body(bytes("ab"))])
    parser.feed(bytes("\r\nc\r\n0\r\n\r\n"))
    #expect(try pull(&parser) == [.chunk(size: 1, extensions: ";a"), .body(bytes("c")), .chunk(size: 0, extensions: ""),
                                  end(keepAlive: true)])
    #expect(parser.responseDeviations.names == ["whitespace-before-chunk-crlf"])

    var cut = HTTPResponseParser()
    cut.expectResponse(requestMethod: "GET", reportsChunks: true)
    cut.feed(start)
    #expect(try pull(&cut).count == 3)
    cut.feedEndOfStream()
    #expect(throws: HTTPParseError.unexpectedEndOfStream) { try cut.next() }
}
