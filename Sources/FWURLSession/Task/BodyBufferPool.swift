import Foundation
import FWTransport

// MARK: - BodyBufferPool
//
// The memory of large collected bodies, reused from response to response within a session. A body handed over
// whole (a completion handler, `data(for:)`, a collecting delegate) with a known length of `minimumLength` to
// `maximumLength` bytes is written into a buffer of this pool, and the `Data` handed over owns that buffer: when
// the `Data`'s storage dies, the buffer comes back here instead of going back to malloc. Without it, glibc hands
// the pages of a freed megabyte back to the kernel (`madvise`, its heap trimming) and the next body faults every
// page in again: two faults in three pages of a 1 MiB body at c=4 on the benchmark machine.
//
// A buffer's life:
//
//   taken ──the collector writes the body──▶ handed over (the one `Data` that owns it)
//     (`take`: a kept buffer that fits, or a new one)
//   handed over, or let go (a failed or cancelled task's collector) ──`giveBack`──▶ kept, stamped with
//     the time; or freed, when the pool is full or closed
//   kept ──`take` of a body it fits──▶ taken
//   kept ──unused for `idleInterval` (the sweep)──▶ freed
//   every kept buffer ──`close` (the session ended)──▶ freed; one given back after that is freed at once
//
// A buffer fits a body of `length` bytes when its capacity is at least `length` and at most twice it (a small body
// does not hold a large buffer that a large body could use). Kept buffers are bounded by `maximumKept` buffers and
// `maximumKeptBytes`: a burst of large bodies leaves at most that much memory behind, and only for `idleInterval`.
// The sweep is one timer on the session's loop, on its time line (`SessionClock`: a manual clock in tests), armed
// while the pool keeps anything (the kept buffers and the sweep's state are an `IdleStock`, as the transport's
// `BodyPieceRecycler` keeps its read pieces). The state is a value under one lock; memory is freed after the lock.

/// Buffers for large collected bodies, kept between responses for a while (one per session).
final class BodyBufferPool: Sendable {
    /// Bodies at least this long are collected into a pooled buffer (below it, malloc's own free lists reuse
    /// the memory without faults).
    static let minimumLength = 256 << 10
    /// Bodies longer than this are not pooled: kept, one such buffer would take the pool's whole room.
    static let maximumLength = 8 << 20
    /// The most buffers kept unused.
    static let maximumKept = 8
    /// The most bytes kept unused.
    static let maximumKeptBytes = 16 << 20
    /// A kept buffer unused this long (seconds) is freed.
    static let idleInterval: TimeInterval = 5
    /// Capacities are multiples of this (bodies of nearly the same length share buffers).
    static let granule = 64 << 10

    /// A kept buffer.
    struct Kept {
        let base: UnsafeMutableRawPointer
        let capacity: Int
    }

    /// What the pool holds, behind `state`.
    struct State: @unchecked Sendable { // the pointers are owned by the pool and touched only under its lock
        /// The kept buffers, each until `idleInterval` after it came back, and the sweep's state.
        var kept = IdleStock<Kept>()
        var isClosed = false
        /// Buffers taken from those kept rather than allocated (for tests and benchmarks).
        var reused = 0

        /// The bytes kept (at most `maximumKept` buffers to add up).
        var keptBytes: Int {
            kept.items.reduce(0) { $0 + $1.capacity }
        }
    }

    private let state = LockedBox(State())
    /// The loop the sweep timer runs on; nil without loops (nothing is then kept).
    private let loop: EventLoop?
    private let clock: SessionClock

    /// A pool whose sweep runs on `loop`, on the time line of `clock` (the session's).
    init(loop: EventLoop?, clock: SessionClock) {
        self.loop = loop
        self.clock = clock
    }

    deinit {
        state.withLock { $0.kept.items }.forEach { $0.base.deallocate() }
    }

    // MARK: Inputs (any thread)

    /// A buffer for a body of `length` bytes, or nil when bodies of that length are not pooled.
    func take(length: Int) -> PooledBody? {
        guard (Self.minimumLength...Self.maximumLength).contains(length) else { return nil }
        let capacity = (length + Self.granule - 1) / Self.granule * Self.granule
        let reused = state.withLock { state -> Kept? in
            let fitting = state.kept.items.enumerated().filter { (length...2 * length).contains($0.element.capacity) }
            guard let index = fitting.min(by: { $0.element.capacity < $1.element.capacity })?.offset else { return nil }
            state.reused += 1
            return state.kept.take(at: index)
        }
        if let reused { return PooledBody(base: reused.base, capacity: reused.capacity, pool: self) }
        let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        return PooledBody(base: base, capacity: capacity, pool: self)
    }

    /// A buffer is no longer used: kept for a later body, or freed.
    func giveBack(_ base: UnsafeMutableRawPointer, capacity: Int) {
        let expiry = clock.deadline(after: Self.idleInterval)
        let (keptIt, sweepAt) = state.withLock { state -> (Bool, Deadline?) in
            guard loop != nil, !state.isClosed, state.kept.count < Self.maximumKept,
                  state.keptBytes + capacity <= Self.maximumKeptBytes else { return (false, nil) }
            return (true, state.kept.keep(Kept(base: base, capacity: capacity), until: expiry))
        }
        if !keptIt { base.deallocate() }
        if let sweepAt { armSweepTimer(at: sweepAt) }
    }

    /// The session ended: every kept buffer is freed, and any given back later is freed at once.
    func close() {
        let freed = state.withLock { state -> [Kept] in
            state.isClosed = true
            return state.kept.removeAll()
        }
        freed.forEach { $0.base.deallocate() }
    }

    // MARK: Reading (tests)

    /// How many buffers are kept, with their bytes, and how many takes reused one.
    var counts: (kept: Int, keptBytes: Int, reused: Int) {
        state.withLock { ($0.kept.count, $0.keptBytes, $0.reused) }
    }

    // MARK: The sweep (loop thread)

    private func armSweepTimer(at deadline: Deadline) {
        guard let loop else { return }
        _ = loop.execute { [self] in
            loop.scheduleTimer(at: deadline) { [self] in sweep() }
        }
    }

    /// Frees the buffers unused for `idleInterval`; re-arms for the oldest one left.
    private func sweep() {
        let now = clock.now()
        let (freed, next) = state.withLock { $0.kept.sweep(now: now) }
        freed.forEach { $0.base.deallocate() }
        if let next { armSweepTimer(at: next) }
    }
}

// MARK: - PooledBody

/// A pool's buffer while one body is written into it, then while the `Data` it became lives; it goes back to
/// the pool when this object dies. Written by one collector at a time (under its owner's lock); `seal` makes the
/// one `Data` that owns it.
final class PooledBody: @unchecked Sendable { // written only by its collector's owner, under that owner's lock
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private let pool: BodyBufferPool
    /// Bytes written so far.
    private(set) var count = 0
    private var isSealed = false

    fileprivate init(base: UnsafeMutableRawPointer, capacity: Int, pool: BodyBufferPool) {
        self.base = base
        self.capacity = capacity
        self.pool = pool
    }

    deinit {
        pool.giveBack(base, capacity: capacity)
    }

    /// Appends `bytes`; false (nothing written) when they do not fit or the body was sealed.
    func append(_ bytes: some Collection<UInt8>) -> Bool {
        guard !isSealed, bytes.count <= capacity - count else { return false }
        let target = UnsafeMutableRawBufferPointer(start: base + count, count: bytes.count)
        if bytes.withContiguousStorageIfAvailable({ target.copyMemory(from: UnsafeRawBufferPointer($0)) }) == nil {
            _ = target.initializeMemory(as: UInt8.self, from: bytes)
        }
        count += bytes.count
        return true
    }

    /// The body as the one `Data` that owns the buffer (it comes back to the pool when that `Data`'s storage
    /// dies). Once only: nothing is written afterwards.
    func seal() -> Data {
        precondition(!isSealed, "PooledBody.seal() twice")
        isSealed = true
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { [self] _, _ in
            withExtendedLifetime(self) {}
        })
    }

    /// A copy of the bytes written so far (the buffer stays this object's).
    func copy() -> Data {
        Data(bytes: base, count: count)
    }
}

extension URLSession {
    /// The pool a body collected whole for `response` may be written into: the session's, for an announced
    /// length the pool lends buffers for, unless the body is content-coded (its decoded length is not the length
    /// announced). A small response costs one comparison, no field lookup.
    func bodyBuffers(for response: URLResponse) -> BodyBufferPool? {
        let length = response.expectedContentLength
        guard length >= BodyBufferPool.minimumLength, length <= BodyBufferPool.maximumLength else { return nil }
        let coding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
        guard coding == nil || coding?.lowercased() == "identity" else { return nil }
        return bodyBuffers
    }
}
