// The swift-nio side: HTTPResponseDecoder (llhttp underneath) in a ByteToMessageHandler in an
// EmbeddedChannel. One request head per response goes out through the pipeline first, as pipelined
// requests would: the decoder learns each request method by observing those writes (as in a real client
// pipeline) and rejects a response that arrives before its request; a sink at the head drops them, where a
// real pipeline would encode them. A counting handler at the tail consumes every response part, as a
// client's handler would. Reads arrive either as ready ByteBuffers (a socket read hands NIO one filled
// buffer per read) or, to count what a read costs, as a fresh ByteBuffer per read with the bytes copied in
// (the copy a socket read makes).

import CMallocCounter
import NIOCore
import NIOEmbedded
import NIOHTTP1

// MARK: - Handlers

/// Completes and drops every outbound write: the request heads only need to pass the decoder.
private final class DiscardingSink: ChannelOutboundHandler {
    typealias OutboundIn = HTTPClientRequestPart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promise?.succeed(())
    }
}

/// Consumes response parts, counting what it sees.
private final class CountingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    var tally = Tally()
    var error: (any Error)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            tally.heads += 1
            tally.statusSum += Int(head.status.code)
            tally.headerFields += head.headers.count
        case .body(let bytes):
            tally.bodyBytes += bytes.readableBytes
        case .end:
            tally.ends += 1
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.error = error
    }
}

// MARK: - NIO

/// Drives NIO's HTTP/1 response decoder over a stream.
enum NIORunner {
    /// The request each response answers.
    static let requestHead = HTTPRequestHead(
        version: .http1_1, method: .GET, uri: "/", headers: ["Host": "127.0.0.1"])

    /// The input's reads as ByteBuffers, built once (outside any timing).
    static func buffers(_ input: BenchInput) -> [ByteBuffer] {
        let allocator = ByteBufferAllocator()
        return input.reads.map { allocator.buffer(bytes: $0) }
    }

    /// How the reads reach the pipeline.
    enum Reads: CaseIterable {
        /// The ready ByteBuffers of `buffers(_:)`.
        case ready
        /// A fresh ByteBuffer per read with the read's bytes copied in.
        case fresh
    }

    /// Parses the whole stream once and returns what it saw; `timer` runs around the parse (channel set-up
    /// and teardown excluded).
    static func pass(
        _ input: BenchInput, buffers: [ByteBuffer], reads: Reads, timer: inout PassTimer
    ) throws -> Tally {
        let (channel, counter) = try makeChannel()
        timer.start()
        let outcome = Result {
            try parse(input, buffers: buffers, reads: reads, channel: channel, counter: counter)
        }
        timer.stop()
        try outcome.get()
        _ = try channel.finish(acceptAlreadyClosed: true)
        return counter.tally
    }

    /// Heap allocations of one pass over `input` per response (the second of two passes), channel set-up
    /// excluded: request writes and reads are counted.
    static func allocationsPerResponse(_ input: BenchInput, buffers: [ByteBuffer], reads: Reads) throws -> Double {
        var perResponse = 0.0
        for _ in 0..<2 {
            let (channel, counter) = try makeChannel()
            mc_start()
            let outcome = Result {
                try parse(input, buffers: buffers, reads: reads, channel: channel, counter: counter)
            }
            let allocations = mc_stop()
            try outcome.get()
            _ = try channel.finish(acceptAlreadyClosed: true)
            perResponse = Double(allocations) / Double(input.count)
        }
        return perResponse
    }

    /// A channel with the client's response-decoding pipeline, and its counting handler.
    private static func makeChannel() throws -> (EmbeddedChannel, CountingHandler) {
        let counter = CountingHandler()
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(DiscardingSink())
        try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
        try pipeline.addHandler(counter)
        return (channel, counter)
    }

    /// Writes one request head per response, then delivers every read.
    private static func parse(
        _ input: BenchInput, buffers: [ByteBuffer], reads: Reads, channel: EmbeddedChannel,
        counter: CountingHandler
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        for _ in 0..<input.count {
            pipeline.write(NIOAny(HTTPClientRequestPart.head(requestHead)), promise: nil)
        }
        switch reads {
        case .ready:
            for buffer in buffers {
                pipeline.fireChannelRead(NIOAny(buffer))
            }
        case .fresh:
            let allocator = channel.allocator
            input.stream.withUnsafeBytes { stream in
                for range in input.readRanges {
                    var buffer = allocator.buffer(capacity: range.count)
                    buffer.writeBytes(UnsafeRawBufferPointer(rebasing: stream[range]))
                    pipeline.fireChannelRead(NIOAny(buffer))
                }
            }
        }
        if let error = counter.error {
            throw error
        }
    }
}
