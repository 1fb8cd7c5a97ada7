import Foundation

// MARK: - AsyncBytesFeedMachine
//
// The state of `bytes(for:)` between the task's drain (which produces) and the `AsyncBytes` iterator (which
// consumes), as one value type: the response, the body pieces not read yet, the end, the one waiter of each
// kind, and whether the feed suspended the task for backpressure. The feed (`AsyncBytesFeed`) applies one
// input at a time under its one lock and runs the `AsyncBytesFeedActions` the input returns after the lock
// (a continuation is never resumed, and the task never suspended or resumed, under it). Generic over the two
// waiters only so that the table tests (`AsyncBytesFeedMachineTests`) need no Swift task.
//
//   response:  none ──responded──▶ known             none ──finish──▶ failed (the task's error, or
//                                                                    badServerResponse after a clean end)
//   body:      flowing ──finish──▶ ended(ok | error)  pieces queue while flowing and after the end; the end
//                                                     is read once they are all read
//   pressure:  reading ──queued > highWater──▶ suspended ──a take brings them under lowWater──▶ reading
//
// At most one consumer waits at a time: a piece (or the end) goes straight to a waiting consumer instead of
// the queue.

struct AsyncBytesFeedMachine<ResponseWaiter, ChunkWaiter> {
    typealias Actions = AsyncBytesFeedActions<ResponseWaiter, ChunkWaiter>

    static var highWater: Int { 1024 * 1024 }
    static var lowWater: Int { 256 * 1024 }

    private(set) var response: Result<URLResponse, any Error>?
    private var responseWaiter: ResponseWaiter?
    private var chunks: [[UInt8]] = []
    private var chunkHead = 0
    /// The bytes queued (by capacity: what the queue keeps alive).
    private(set) var bufferedBytes = 0
    /// nil while the body goes on; `.success` at its end, `.failure` with the task's error.
    private(set) var end: Result<Void, any Error>?
    private var chunkWaiter: ChunkWaiter?
    /// The feed suspended the task (the reader fell behind).
    private(set) var suspendedTask = false

    // MARK: Producer (drain)

    /// The consumer waits for the response: answered at once when it is known.
    mutating func waitForResponse(_ waiter: ResponseWaiter) -> Actions {
        guard let response else {
            responseWaiter = waiter
            return Actions()
        }
        return Actions(responseWaiter: (waiter, response))
    }

    /// The task's response.
    mutating func responded(_ response: URLResponse) -> Actions {
        self.response = .success(response)
        defer { responseWaiter = nil }
        return Actions(responseWaiter: responseWaiter.map { ($0, .success(response)) })
    }

    /// A body piece: to the waiting consumer, else queued (suspending the task past `highWater`).
    mutating func append(_ bytes: [UInt8]) -> Actions {
        guard !bytes.isEmpty else { return Actions() }
        if let waiter = chunkWaiter {
            chunkWaiter = nil
            return Actions(chunkWaiter: (waiter, .success(bytes)))
        }
        chunks.append(bytes)
        bufferedBytes += bytes.capacity
        guard bufferedBytes > Self.highWater, !suspendedTask else { return Actions() }
        suspendedTask = true
        return Actions(suspendTask: true)
    }

    /// The task completed (`error` nil: cleanly): the waiters get the end.
    mutating func finish(error: (any Error)?) -> Actions {
        end = error.map { .failure($0) } ?? .success(())
        let failure = error ?? URLError(.badServerResponse)
        if response == nil { response = .failure(failure) }
        defer {
            responseWaiter = nil
            chunkWaiter = nil
        }
        return Actions(responseWaiter: responseWaiter.map { ($0, .failure(failure)) },
                       chunkWaiter: chunkWaiter.map { ($0, error.map { .failure($0) } ?? .success(nil)) })
    }

    // MARK: Consumer

    /// The next piece, the end, or `waiter` parked; and whether the task, suspended for backpressure, may
    /// resume.
    mutating func take(orWait waiter: ChunkWaiter) -> Actions {
        if chunkHead < chunks.count {
            // The piece leaves the queue: its slot lets go of it at once (a lagging reader must not keep every
            // piece already handed out), and the passed slots are dropped once they are half the queue.
            let chunk = chunks[chunkHead]
            chunks[chunkHead] = []
            chunkHead += 1
            if chunkHead == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                chunkHead = 0
            } else if chunkHead >= 64, chunkHead * 2 >= chunks.count {
                chunks.removeFirst(chunkHead)
                chunkHead = 0
            }
            bufferedBytes -= chunk.capacity
            let resume = suspendedTask && bufferedBytes < Self.lowWater
            if resume { suspendedTask = false }
            return Actions(resumeTask: resume, chunkWaiter: (waiter, .success(chunk)))
        }
        switch end {
        case .success: return Actions(chunkWaiter: (waiter, .success(nil)))
        case .failure(let error): return Actions(chunkWaiter: (waiter, .failure(error)))
        case nil:
            chunkWaiter = waiter
            return Actions()
        }
    }
}

// MARK: - AsyncBytesFeedActions

/// What one input of `AsyncBytesFeedMachine` asks the feed to do once the lock is released, in the order of
/// the slots.
struct AsyncBytesFeedActions<ResponseWaiter, ChunkWaiter> {
    /// Resume the task the feed suspended (before the piece that made room goes out).
    var resumeTask = false
    /// Answer the response waiter.
    var responseWaiter: (ResponseWaiter, Result<URLResponse, any Error>)?
    /// Answer the chunk waiter: a piece, nil at the end, or the task's error.
    var chunkWaiter: (ChunkWaiter, Result<[UInt8]?, any Error>)?
    /// Suspend the task: the reader fell behind by more than `highWater` bytes.
    var suspendTask = false
}
