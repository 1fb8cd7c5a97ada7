// The swift-nio side: HTTPResponseDecoder (llhttp underneath) in a ByteToMessageHandler in an
// EmbeddedChannel. Before each response the request head goes out through the pipeline (the decoder
// learns the request method by observing those writes, as in a real client pipeline); a sink at the head
// drops it, where a real pipeline would encode it. A counting handler at the tail consumes every response
// part, as a client's handler would. Reads arrive as prebuilt ByteBuffers (a socket read hands NIO one
// filled buffer per read; the copy into it is the kernel's and is not timed, for either side).

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

/// Consumes response parts, counting what it sees, and sends the next request head after each end.
private final class CountingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    var tally = Tally()
    var error: (any Error)?
    /// Responses the stream holds; after each end but the last one, the next request is written.
    let total: Int
    let requestHead: HTTPRequestHead

    init(total: Int, requestHead: HTTPRequestHead) {
        self.total = total
        self.requestHead = requestHead
    }

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
            if tally.ends < total {
                context.write(NIOAny(HTTPClientRequestPart.head(requestHead)), promise: nil)
            }
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

    /// Parses the whole stream once and returns what it saw.
    static func pass(_ input: BenchInput, buffers: [ByteBuffer]) throws -> Tally {
        let counter = CountingHandler(total: input.count, requestHead: requestHead)
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(DiscardingSink())
        try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
        try pipeline.addHandler(counter)
        pipeline.write(NIOAny(HTTPClientRequestPart.head(requestHead)), promise: nil)
        for buffer in buffers {
            pipeline.fireChannelRead(NIOAny(buffer))
        }
        if let error = counter.error {
            throw error
        }
        _ = try channel.finish(acceptAlreadyClosed: true)
        return counter.tally
    }

    /// Heap allocations of one pass over `input` per response (the second of two passes), channel set-up
    /// excluded: only the reads are counted.
    static func allocationsPerResponse(_ input: BenchInput, buffers: [ByteBuffer]) throws -> Double {
        var perResponse = 0.0
        for _ in 0..<2 {
            let counter = CountingHandler(total: input.count, requestHead: requestHead)
            let channel = EmbeddedChannel()
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(DiscardingSink())
            try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
            try pipeline.addHandler(counter)
            pipeline.write(NIOAny(HTTPClientRequestPart.head(requestHead)), promise: nil)
            mc_start()
            for buffer in buffers {
                pipeline.fireChannelRead(NIOAny(buffer))
            }
            perResponse = Double(mc_stop()) / Double(input.count)
            guard counter.tally.ends == input.count else {
                throw BenchFailure(description: "NIO allocation pass saw \(counter.tally.ends) responses")
            }
            _ = try channel.finish(acceptAlreadyClosed: true)
        }
        return perResponse
    }
}
