import FWLoop
import FWTransport
import FWWire

// MARK: - ResponseExchange
//
// One hop of a request: the transport's delegate for it, and the buffer between the loop thread that
// receives the response and the task that reads it. States, all in `state`:
//
//   waiting for the head ──head──▶ streaming ──end──▶ ended (trailers)
//          │                          │
//          └──────failed / abort──────┴──────────────▶ failed (the first error wins)
//
// A task waits for the head in `head()` and for each chunk in `nextChunk()`, a blocked thread in
// `blockingHead()` and `blockingNextChunk()`; at most one waiter each (an `ExchangeWaiter`), resumed after
// the lock is released. Body chunks that arrive while nobody waits are queued; past `highWater` queued bytes
// the transport is told to stop reading the socket, and once a reader took them down to `lowWater` to read
// again (the pause's version orders the decisions). Chunks queued before a failure are still handed out,
// then the error. A redirect's exchange, which nobody reads, drops
// its body instead (`discardBody`): it runs to its end, so its connection goes back to the pool and its
// metrics arrive, unless the body is larger than the limit, which aborts it.

final class ResponseExchange: TransportTaskDelegate {
    /// Queued bytes that stop reading the socket, and the level that restarts it.
    static let highWater = 256 * 1024
    static let lowWater = 64 * 1024

    struct State {
        var id: RequestID?
        var head: Result<HTTPResponseHead, HTTPClientError>?
        var headWaiter: ExchangeWaiter<HTTPResponseHead>?
        var chunks: [[UInt8]] = []
        var nextChunkIndex = 0
        var queuedBytes = 0
        var bodyWaiter: ExchangeWaiter<[UInt8]?>?
        var end: Result<HTTPHeaders, HTTPClientError>?
        var paused = false
        var pauseVersion: UInt64 = 0
        var transactions: [TransportMetrics] = []
        /// Set by `discardBody`: body bytes are counted and dropped, up to this many.
        var discardLimit: Int?
        var discardedBytes = 0
        /// The whole-request timer, on `loop`.
        var timer: TimerID?
    }

    private let transport: HTTPTransport
    /// The exchanges of the hops before this one (redirects), whose metrics may still arrive.
    private let earlier: [ResponseExchange]
    /// Everything that changes; guarded by its lock.
    private let state = LockedBox(State())

    /// The loop the whole-request timer runs on.
    private let loop: EventLoop

    init(transport: HTTPTransport, loop: EventLoop, earlier: [ResponseExchange]) {
        self.transport = transport
        self.loop = loop
        self.earlier = earlier
    }

    /// Starts the request, with a timer on `loop` failing it at `deadline` (the loop's clock) when given. The
    /// timer is the loop's, not a task's: a caller whose cooperative threads are all blocked still gets its
    /// timeout.
    func start(_ request: TransportRequest, deadline: Deadline?) {
        let id = transport.execute(request, delegate: self)
        state.withLock { $0.id = id }
        guard let deadline else { return }
        let loop = loop
        loop.execute { [weak self] in
            guard let self else { return }
            let timer = loop.scheduleTimer(at: deadline) { [weak self] in self?.abort(.requestTimedOut) }
            let ended = state.withLock { state in
                state.timer = timer
                return state.end != nil
            }
            if ended { loop.cancelTimer(timer) }
        }
    }

    /// The metrics of every hop so far.
    var metrics: HTTPClientMetrics {
        HTTPClientMetrics(transactions: earlier.flatMap(\.ownTransactions) + ownTransactions)
    }

    /// The metrics of this hop alone.
    private var ownTransactions: [TransportMetrics] {
        state.withLock { $0.transactions }
    }

    /// The trailer fields once the body ended; nil before, or after a failure.
    var trailers: HTTPHeaders? {
        state.withLock { state in if case .success(let trailers)? = state.end { trailers } else { nil } }
    }

    /// The bytes queued for the reader and whether the socket's reading is paused (tests watch them).
    var queue: (bytes: Int, paused: Bool) { state.withLock { ($0.queuedBytes, $0.paused) } }

    /// True once the exchange ended or failed.
    var isFinished: Bool { state.withLock { $0.end != nil } }

    // MARK: Reader side

    /// The response head (after any 1xx), or the failure that came first.
    func head() async throws(HTTPClientError) -> HTTPResponseHead {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    if let ready = takeHead(orWait: .task(continuation)) { continuation.resume(with: ready.mapError { $0 }) }
                }
            } onCancel: {
                abort(.cancelled)
            }
        } catch {
            throw error as? HTTPClientError ?? .cancelled
        }
    }

    /// ``head()`` for a thread that runs no Swift concurrency: blocks until the head or the failure.
    func blockingHead() throws(HTTPClientError) -> HTTPResponseHead {
        let thread = BlockedThread<HTTPResponseHead>()
        if let ready = takeHead(orWait: .thread(thread)) { return try ready.get() }
        return try thread.wait()
    }

    /// The next body chunk; nil at the end of the body.
    func nextChunk() async throws(HTTPClientError) -> [UInt8]? {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    if let ready = takeChunk(orWait: .task(continuation)) { continuation.resume(with: ready.mapError { $0 }) }
                }
            } onCancel: {
                abort(.cancelled)
            }
        } catch {
            throw error as? HTTPClientError ?? .cancelled
        }
    }

    /// ``nextChunk()`` for a thread that runs no Swift concurrency: blocks until a chunk, the end or the
    /// failure.
    func blockingNextChunk() throws(HTTPClientError) -> [UInt8]? {
        let thread = BlockedThread<[UInt8]?>()
        if let ready = takeChunk(orWait: .thread(thread)) { return try ready.get() }
        return try thread.wait()
    }

    /// The head when it is known, else `waiter` stored.
    private func takeHead(orWait waiter: ExchangeWaiter<HTTPResponseHead>) -> Result<HTTPResponseHead, HTTPClientError>? {
        state.withLock { state in
            if let head = state.head { return head }
            state.headWaiter = waiter
            return nil
        }
    }

    /// A queued chunk or the end, else `waiter` stored; a chunk that takes the queue down to `lowWater`
    /// restarts the socket's reading.
    private func takeChunk(orWait waiter: ExchangeWaiter<[UInt8]?>) -> Result<[UInt8]?, HTTPClientError>? {
        let (ready, resumeReading) = takeQueuedChunk(orWait: waiter)
        if let resumeReading { transport.setReadingPaused(false, for: resumeReading.id, version: resumeReading.version) }
        return ready
    }

    /// Under the lock: a queued chunk, the end, or the waiter stored; and whether reading restarts.
    private func takeQueuedChunk(orWait waiter: ExchangeWaiter<[UInt8]?>)
        -> (Result<[UInt8]?, HTTPClientError>?, (id: RequestID, version: UInt64)?) {
        state.withLock { state in
            guard state.nextChunkIndex < state.chunks.count else {
                switch state.end {
                case .success?: return (.success(nil), nil)
                case .failure(let error)?: return (.failure(error), nil)
                case nil:
                    state.bodyWaiter = waiter
                    return (nil, nil)
                }
            }
            let chunk = state.chunks[state.nextChunkIndex]
            state.nextChunkIndex += 1
            state.queuedBytes -= chunk.count
            if state.nextChunkIndex == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.nextChunkIndex = 0
            }
            var resume: (id: RequestID, version: UInt64)?
            if state.paused, state.queuedBytes <= Self.lowWater, let id = state.id {
                state.paused = false
                state.pauseVersion += 1
                resume = (id, state.pauseVersion)
            }
            return (.success(chunk), resume)
        }
    }

    /// Drops the body from now on (queued chunks included) and lets the exchange run to its end, so that the
    /// connection is reused and the metrics arrive; past `limit` body bytes, aborts it.
    func discardBody(upTo limit: Int) {
        let (tooLarge, resume) = state.withLock { state -> (Bool, (id: RequestID, version: UInt64)?) in
            state.discardLimit = limit
            state.discardedBytes += state.queuedBytes
            state.chunks.removeAll()
            state.nextChunkIndex = 0
            state.queuedBytes = 0
            guard state.paused, let id = state.id else { return (state.discardedBytes > limit, nil) }
            state.paused = false
            state.pauseVersion += 1
            return (state.discardedBytes > limit, (id, state.pauseVersion))
        }
        if tooLarge { return abort(.cancelled) }
        if let resume { transport.setReadingPaused(false, for: resume.id, version: resume.version) }
    }

    /// Fails the exchange with `error` (unless it already ended) and cancels the request.
    func abort(_ error: HTTPClientError) {
        finish(.failure(error))
        if let id = state.withLock({ $0.id }) { transport.cancel(id) }
    }

    // MARK: Transport side (a loop thread)

    func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
        switch event {
        case .head(let head):
            let waiter: ExchangeWaiter<HTTPResponseHead>? = state.withLock { state in
                guard state.head == nil else { return nil }
                state.head = .success(head)
                defer { state.headWaiter = nil }
                return state.headWaiter
            }
            waiter?.resume(with: .success(head))
        case .body(let bytes):
            receive(bytes, id: id)
        case .metrics(let metrics):
            state.withLock { $0.transactions.append(metrics) }
        case .end(let trailers):
            finish(.success(trailers))
        case .failed(let error):
            finish(.failure(.transport(error)))
        case .upgraded(let channel):
            channel.abort(.cancelled)
            finish(.failure(.transport(.connectionLost("an unexpected protocol upgrade"))))
        case .connected, .headSent, .wireWrite, .wireRead, .bodyBytesSent, .informational, .encodedBodyBytes, .chunk,
             .retrying, .tlsMessage:
            break
        }
    }

    private func receive(_ bytes: [UInt8], id: RequestID) {
        guard !bytes.isEmpty else { return }
        let (waiter, pauseVersion, tooLarge): (ExchangeWaiter<[UInt8]?>?, UInt64?, Bool) = state.withLock { state in
            guard state.end == nil else { return (nil, nil, false) }
            if let limit = state.discardLimit {
                state.discardedBytes += bytes.count
                return (nil, nil, state.discardedBytes > limit)
            }
            if let waiter = state.bodyWaiter {
                state.bodyWaiter = nil
                return (waiter, nil, false)
            }
            state.chunks.append(bytes)
            state.queuedBytes += bytes.count
            guard !state.paused, state.queuedBytes >= Self.highWater else { return (nil, nil, false) }
            state.paused = true
            state.pauseVersion += 1
            return (nil, state.pauseVersion, false)
        }
        if tooLarge { return abort(.cancelled) }
        waiter?.resume(with: .success(bytes))
        if let pauseVersion { transport.setReadingPaused(true, for: id, version: pauseVersion) }
    }

    /// Records the end (the first one wins) and wakes whoever waits for the head or for a chunk.
    private func finish(_ result: Result<HTTPHeaders, HTTPClientError>) {
        let (headWaiter, bodyWaiter, timer) = state.withLock { state in
            guard state.end == nil else {
                return (ExchangeWaiter<HTTPResponseHead>?.none, ExchangeWaiter<[UInt8]?>?.none, TimerID?.none)
            }
            state.end = result
            var headWaiter: ExchangeWaiter<HTTPResponseHead>?
            if state.head == nil, case .failure(let error) = result {
                state.head = .failure(error)
                headWaiter = state.headWaiter
                state.headWaiter = nil
            }
            let bodyWaiter = state.bodyWaiter
            state.bodyWaiter = nil
            defer { state.timer = nil }
            return (headWaiter, bodyWaiter, state.timer)
        }
        if let timer {
            let loop = loop
            loop.execute { loop.cancelTimer(timer) }
        }
        if case .failure(let error) = result {
            headWaiter?.resume(with: .failure(error))
            bodyWaiter?.resume(with: .failure(error))
        } else {
            bodyWaiter?.resume(with: .success(nil))
        }
    }
}
