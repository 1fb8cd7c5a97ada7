import FWTransport
import FWWire

// MARK: - HTTPClientResponse.Body

extension HTTPClientResponse {
    /// The response body as an `AsyncSequence` of byte chunks, read once.
    ///
    /// The client reads the socket ahead of the reader only up to a high-water mark (256 KiB), so a slow
    /// reader holds the server back instead of filling memory. Cancelling the reading task, or dropping the
    /// body before its end, cancels the request.
    public struct Body: AsyncSequence, Sendable {
        /// A chunk of body bytes (decoded when the client decodes content).
        public typealias Element = [UInt8]

        let owner: BodyOwner

        var exchange: ResponseExchange { owner.exchange }

        init(exchange: ResponseExchange) {
            self.owner = BodyOwner(exchange: exchange)
        }

        /// Reads the chunks in order.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let owner: BodyOwner

            /// The next chunk, nil at the end.
            public mutating func next() async throws(HTTPClientError) -> [UInt8]? {
                try await owner.exchange.nextChunk()
            }
        }

        /// An iterator over the chunks (make one; the body is read once).
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(owner: owner)
        }

        /// The next chunk for a thread that runs no Swift concurrency (after
        /// ``HTTPClient/blockingExecute(_:)``): blocks until a chunk, the end of the body (nil) or the failure.
        /// Read a body one way: with this or with an iterator, not both.
        public func blockingNext() throws(HTTPClientError) -> [UInt8]? {
            try exchange.blockingNextChunk()
        }

        /// All the remaining bytes, failing with ``HTTPClientError/isBodyTooLarge`` (and cancelling the
        /// request) past `limit` bytes.
        public func collect(upTo limit: Int) async throws(HTTPClientError) -> [UInt8] {
            var bytes: [UInt8] = []
            while let chunk = try await exchange.nextChunk() {
                guard bytes.count + chunk.count <= limit else {
                    exchange.abort(.bodyTooLarge(limit))
                    throw .bodyTooLarge(limit)
                }
                bytes += chunk
            }
            return bytes
        }

        /// The trailer fields, once the body ended (empty when the server sent none); nil before.
        public var trailers: HTTPHeaders? { exchange.trailers }
    }
}

// MARK: - BodyOwner

/// Holds the exchange for a body and cancels the request when the last copy of the body is dropped before
/// it ended.
final class BodyOwner: Sendable {
    let exchange: ResponseExchange

    init(exchange: ResponseExchange) {
        self.exchange = exchange
    }

    deinit {
        if !exchange.isFinished { exchange.abort(.cancelled) }
    }
}
