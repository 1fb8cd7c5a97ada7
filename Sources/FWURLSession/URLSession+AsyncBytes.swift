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
/// (its connection stops reading) until the reader brings them under `lowWater`.
final class AsyncBytesFeed: ResponseSink, @unchecked Sendable { // `state` is a LockedBox; `task` is set once, before resume()
    static let highWater = 1024 * 1024
    static let lowWater = 256 * 1024

    private struct State {
        var response: Result<URLResponse, any Error>?
        var responseWaiter: CheckedContinuation<URLResponse, any Error>?
        var chunks: [[UInt8]] = []
        var chunkHead = 0
        var bufferedBytes = 0
        /// nil while the body goes on; `.success` at its end, `.failure` with the task's error.
        var end: Result<Void, any Error>?
        var chunkWaiter: CheckedContinuation<[UInt8]?, any Error>?
        var suspendedTask = false
    }

    private let state = LockedBox(State())
    /// Set once, before the task is resumed.
    weak var task: URLSessionDataTask?

    /// Resumes `task` and waits for its response (or its error).
    func waitForResponse(starting task: URLSessionDataTask) async throws -> URLResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<URLResponse, any Error>? in
                if state.response == nil { state.responseWaiter = continuation }
                return state.response
            }
            if let ready { continuation.resume(with: ready) }
            task.resume()
        }
    }

    /// The task's response (drain).
    func receive(_ response: URLResponse) {
        let waiter = state.withLock { state -> CheckedContinuation<URLResponse, any Error>? in
            state.response = .success(response)
            defer { state.responseWaiter = nil }
            return state.responseWaiter
        }
        waiter?.resume(returning: response)
    }

    /// A body piece (drain).
    func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let (waiter, suspend) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, Bool) in
            if let waiter = state.chunkWaiter {
                state.chunkWaiter = nil
                return (waiter, false)
            }
            state.chunks.append(bytes)
            state.bufferedBytes += bytes.capacity
            guard state.bufferedBytes > Self.highWater, !state.suspendedTask else { return (nil, false) }
            state.suspendedTask = true
            return (nil, true)
        }
        waiter?.resume(returning: bytes)
        if suspend { task?.suspend() }
    }

    /// The task completed (drain).
    func finish(error: (any Error)?) {
        let (responseWaiter, chunkWaiter) = state.withLock { state in
            state.end = error.map { .failure($0) } ?? .success(())
            if state.response == nil { state.response = .failure(error ?? URLError(.badServerResponse)) }
            defer {
                state.responseWaiter = nil
                state.chunkWaiter = nil
            }
            return (state.responseWaiter, state.chunkWaiter)
        }
        responseWaiter?.resume(throwing: error ?? URLError(.badServerResponse))
        if let error { chunkWaiter?.resume(throwing: error) } else { chunkWaiter?.resume(returning: nil) }
    }

    // MARK: ResponseSink

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {
        receive(response)
    }

    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError) {
        receive(response)
    }

    func receive(_ bytes: [UInt8], for task: URLSessionTask) throws(URLError) {
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
                let (answer, resumeTask) = state.withLock { state in Self.take(from: &state, orWait: continuation) }
                if resumeTask { task?.resume() }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            task?.cancel()
        }
    }

    /// The next piece, the end, or (nil) `continuation` parked as the waiter; and whether the task,
    /// suspended for backpressure, may resume.
    private static func take(from state: inout State, orWait continuation: CheckedContinuation<[UInt8]?, any Error>)
        -> (Result<[UInt8]?, any Error>?, Bool) {
        if state.chunkHead < state.chunks.count {
            // The piece leaves the queue: its slot lets go of it at once (a lagging reader must not keep every
            // piece already handed out), and the passed slots are dropped once they are half the queue.
            let chunk = state.chunks[state.chunkHead]
            state.chunks[state.chunkHead] = []
            state.chunkHead += 1
            if state.chunkHead == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.chunkHead = 0
            } else if state.chunkHead >= 64, state.chunkHead * 2 >= state.chunks.count {
                state.chunks.removeFirst(state.chunkHead)
                state.chunkHead = 0
            }
            state.bufferedBytes -= chunk.capacity
            let resume = state.suspendedTask && state.bufferedBytes < Self.lowWater
            if resume { state.suspendedTask = false }
            return (.success(chunk), resume)
        }
        switch state.end {
        case .success: return (.success(nil), false)
        case .failure(let error): return (.failure(error), false)
        case nil:
            state.chunkWaiter = continuation
            return (nil, false)
        }
    }
}
