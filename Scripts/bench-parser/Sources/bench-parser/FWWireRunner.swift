// The FWWire side: one HTTPResponseParser per pass over a stream, fed read by read, with
// expectResponse before each response and every event pulled with next().

import CMallocCounter
import FWWire

// MARK: - What a pass saw

/// What one pass over a stream produced; both sides must produce the same.
struct Tally: Equatable, CustomStringConvertible {
    var heads = 0
    var statusSum = 0
    var headerFields = 0
    var bodyBytes = 0
    var ends = 0

    var description: String {
        "\(heads) heads (status sum \(statusSum), \(headerFields) fields), \(bodyBytes) body bytes, \(ends) ends"
    }

    /// What a correct pass over `input` produces.
    static func expected(for input: BenchInput, fieldsPerHead: Int) -> Tally {
        Tally(
            heads: input.count, statusSum: 200 * input.count, headerFields: fieldsPerHead * input.count,
            bodyBytes: input.bodyBytesPerResponse * input.count, ends: input.count)
    }
}

/// A benchmark failure: a parser reported something other than the input holds.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

// MARK: - FWWire

/// Drives FWWire's parser over a stream.
enum FWWireRunner {
    /// How the reads reach the parser.
    enum Feed: CaseIterable {
        /// `feed(_: [UInt8])` with each read a ready array of its own (as NIO gets one ByteBuffer per read).
        case readyArrays
        /// `feed(upTo:using:)`: each read copied (as a socket read would) straight into the parser's buffer.
        case readInto
        /// Each read copied into one reused read buffer, then `feed(_: UnsafeRawBufferPointer)` from it
        /// (FWTransport's path today).
        case readBuffer
    }

    /// Parses the whole stream once and returns what it saw; `timer` runs around the parse.
    static func pass(_ input: BenchInput, feed: Feed, timer: inout PassTimer) throws -> Tally {
        var parser = HTTPResponseParser()
        var tally = Tally()
        var readBuffer = [UInt8](repeating: 0, count: BenchInputs.readSize)
        timer.start()
        defer { timer.stop() }
        parser.expectResponse(requestMethod: "GET")
        try input.stream.withUnsafeBytes { stream in
            for (index, range) in input.readRanges.enumerated() {
                let read = UnsafeRawBufferPointer(rebasing: stream[range])
                hand(read, index: index, of: input, by: feed, to: &parser, readBuffer: &readBuffer)
                try drain(&parser, into: &tally, total: input.count)
            }
        }
        return tally
    }

    /// Gives the `index`th read of `input` (`read`) to `parser` the way `feed` says.
    @inline(__always)
    private static func hand(_ read: UnsafeRawBufferPointer, index: Int, of input: BenchInput, by feed: Feed,
                             to parser: inout HTTPResponseParser, readBuffer: inout [UInt8]) {
        switch feed {
        case .readyArrays:
            parser.feed(input.reads[index])
        case .readInto:
            parser.feed(upTo: BenchInputs.readSize) { room in
                room.copyMemory(from: read)
                return read.count
            }
        case .readBuffer:
            readBuffer.withUnsafeMutableBytes { buffer in
                buffer.copyMemory(from: read)
                parser.feed(UnsafeRawBufferPointer(rebasing: buffer[..<read.count]))
            }
        }
    }

    /// Pulls every event the parser can report now.
    @inline(__always)
    private static func drain(_ parser: inout HTTPResponseParser, into tally: inout Tally, total: Int) throws {
        while let event = try parser.next() {
            switch event {
            case .informational:
                break
            case .head(let head, _):
                tally.heads += 1
                tally.statusSum += head.status
                tally.headerFields += head.headers.count
            case .body(let bytes):
                tally.bodyBytes += bytes.count
            case .end:
                tally.ends += 1
                if tally.ends < total {
                    parser.expectResponse(requestMethod: "GET")
                }
            }
        }
    }

    // MARK: Allocations

    /// Heap allocations of one pass, split by where they happened, per response.
    struct Allocations {
        var feed = 0.0
        var head = 0.0
        var body = 0.0
        var end = 0.0
        /// next() calls that returned nil (a head or chunk line waiting for its next read).
        var waiting = 0.0

        var total: Double {
            feed + head + body + end + waiting
        }
    }

    /// Counts the allocations of a pass over `input` (the second of two, so buffers reached their size),
    /// attributing each next() call's allocations to the event it returned.
    static func allocations(_ input: BenchInput, feed: Feed) throws -> Allocations {
        var result = Allocations()
        for _ in 0..<2 {
            result = try countedPass(input, feed: feed)
        }
        return result
    }

    private static func countedPass(_ input: BenchInput, feed: Feed) throws -> Allocations {
        var parser = HTTPResponseParser()
        var counts = (feed: 0, head: 0, body: 0, end: 0, waiting: 0)
        var ends = 0
        var readBuffer = [UInt8](repeating: 0, count: BenchInputs.readSize)
        parser.expectResponse(requestMethod: "GET")
        try input.stream.withUnsafeBytes { stream in
            for (index, range) in input.readRanges.enumerated() {
                let read = UnsafeRawBufferPointer(rebasing: stream[range])
                mc_start()
                hand(read, index: index, of: input, by: feed, to: &parser, readBuffer: &readBuffer)
                counts.feed += Int(mc_stop())
                while true {
                    mc_start()
                    let event = try parser.next()
                    let allocations = Int(mc_stop())
                    switch event {
                    case nil:
                        counts.waiting += allocations
                    case .informational, .head:
                        counts.head += allocations
                    case .body:
                        counts.body += allocations
                    case .end:
                        counts.end += allocations
                        ends += 1
                        if ends < input.count {
                            parser.expectResponse(requestMethod: "GET")
                        }
                    }
                    if event == nil {
                        break
                    }
                }
            }
        }
        guard ends == input.count else {
            throw BenchFailure(description: "FWWire allocation pass saw \(ends) of \(input.count) responses")
        }
        let responses = Double(input.count)
        return Allocations(
            feed: Double(counts.feed) / responses, head: Double(counts.head) / responses,
            body: Double(counts.body) / responses, end: Double(counts.end) / responses,
            waiting: Double(counts.waiting) / responses)
    }
}
