import Foundation
import FWTransport

// MARK: - bytes(for:)

extension URLSession {
    /// The response body of a data task as an asynchronous sequence of bytes, read with backpressure:
    /// when the consumer falls behind by more than `AsyncBytesFeed.highWater` bytes the task is suspended
    /// (its connection stops reading) until the consumer catches up.
    public struct AsyncBytes: AsyncSequence, Sendable {
        /// One byte of the body.
        public typealias Element = UInt8

        /// The data task loading the body; cancel it to stop early.
        public let task: URLSessionDataTask
        let feed: AsyncBytesFeed

        /// Reads the body piece by piece.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let feed: AsyncBytesFeed
            var chunk: [UInt8] = []
            var index = 0

            /// The next byte; nil at the end of the body; throws the task's error.
            public mutating func next() async throws -> UInt8? {
                if index == chunk.count {
                    guard let next = try await feed.nextChunk() else { return nil }
                    chunk = next
                    index = 0
                }
                defer { index += 1 }
                return chunk[index]
            }
        }

        /// An iterator over the body.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(feed: feed)
        }
    }

    /// Starts loading `request` and returns once the response head arrived; the body follows through the
    /// returned sequence. Cancelling the Swift task cancels the load.
    public func bytes(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (AsyncBytes, URLResponse) {
        let feed = AsyncBytesFeed()
        let task = register { URLSessionDataTask(session: self, identifier: $0, request: request, sink: feed) }
        task.delegate = delegate
        feed.task = task
        let response = try await withTaskCancellationHandler {
            try await feed.waitForResponse(starting: task)
        } onCancel: {
            task.cancel()
        }
        return (AsyncBytes(task: task, feed: feed), response)
    }

    /// Like `bytes(for:)`, for a GET of `url`.
    public func bytes(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (AsyncBytes, URLResponse) {
        try await bytes(for: URLRequest(url: url), delegate: delegate)
    }
}

// MARK: - AsyncBytesFeed

/// Between a task's drain (which produces) and an `AsyncBytes` iterator (which consumes): the response,
/// the body pieces not yet read, and the end. At most one consumer waits at a time. It is the task's
/// `ResponseSink`. It holds only the pieces not yet read: above `highWater` bytes the task is suspended
/// (its connection stops reading) until the reader brings them under `lowWater`. The state and its
/// transitions are `AsyncBytesFeedMachine`'s, in one lock; what an input returns runs after the lock.
final class AsyncBytesFeed: ResponseSink, @unchecked Sendable { // `machine`: LockedBox; `task`: set before resume()
    typealias Machine = AsyncBytesFeedMachine<CheckedContinuation<URLResponse, any Error>,
                                              CheckedContinuation<[UInt8]?, any Error>>

    static var highWater: Int { Machine.highWater }
    static var lowWater: Int { Machine.lowWater }

    private let machine = LockedBox(Machine())
    /// Set once, before the task is resumed.
    weak var task: URLSessionDataTask?

    /// Applies one input under the lock and runs what it asked for after it: the one door to the machine.
    private func input(_ body: (inout Machine) -> Machine.Actions) {
        let actions = machine.withLock { body(&$0) }
        if actions.resumeTask { task?.resume() }
        if case let (waiter, result)? = actions.responseWaiter { waiter.resume(with: result) }
        if case let (waiter, result)? = actions.chunkWaiter { waiter.resume(with: result) }
        if actions.suspendTask { task?.suspend() }
    }

    /// Resumes `task` and waits for its response (or its error).
    func waitForResponse(starting task: URLSessionDataTask) async throws -> URLResponse {
        try await withCheckedThrowingContinuation { continuation in
            input { $0.waitForResponse(continuation) }
            task.resume()
        }
    }

    /// The task's response (drain).
    func receive(_ response: URLResponse) {
        input { $0.responded(response) }
    }

    /// A body piece (drain).
    func append(_ bytes: [UInt8]) {
        input { $0.append(bytes) }
    }

    /// The task completed (drain).
    func finish(error: (any Error)?) {
        input { $0.finish(error: error) }
    }

    // MARK: ResponseSink

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {
        receive(response)
    }

    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError) {
        receive(response)
    }

    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError) {
        append(bytes)
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        finish(error: error)
        DelegateRouter.didComplete(task: task, error: error)
    }

    // MARK: Consumer

    /// The next body piece; nil at the end.
    func nextChunk() async throws -> [UInt8]? {
        let task = self.task
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                input { $0.take(orWait: continuation) }
            }
        } onCancel: {
            task?.cancel()
        }
    }
}
