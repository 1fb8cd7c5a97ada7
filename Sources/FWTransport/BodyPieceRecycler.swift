// BodyPieceRecycler: a transport's few read pieces, given back by the consumers of large body reads and taken by
// its connections' parsers for the next large read (FWWire's BodyPieceSupply.swift says why).
//
// A piece's life:
//
//   read into ──a connection's parser (taken from here, or fresh)──▶ a body event, handed on whole
//   handed on ──its consumer is done with it──▶ given back (`giveBack`)
//       the `Data` a streamed piece became dies (`Data(adopting:recycling:)`), or the piece was copied into a
//       collected body or written to a download's file
//   given back ──room here, and a size a read can use──▶ kept, stamped with `idleInterval` from now
//              ──otherwise──▶ freed by its giver, after the lock
//   kept ──the next large read of any of the transport's connections (`takePiece`)──▶ read into again
//       the most recently kept first (its pages are the likeliest to be cached); a short read's piece gets its
//       count back with zeros, in the room it already has
//   kept ──unused for `idleInterval` (the sweep)──▶ freed;  ──the session ended (`close`)──▶ freed
//
// Bounds: `maximumKept` pieces with room for one or two reads each (one to two megabytes at most per session),
// and only while large bodies keep arriving: the sweep is one timer on the transport's sweep loop, armed while
// anything is kept (FWLoop's `IdleStock` holds the pieces and the sweep's state, as it does the session's
// buffers). Sixteen, not four: four connections reading 1 MiB bodies (the benchmark's c=4 row) have more than four
// pieces on their way at once, and each refused piece went back to malloc, whose trimming made a later read fault
// its pages in again. Any thread: a piece comes back wherever its consumer let it go.

import FWLoop
import FWWire

/// The read pieces of one transport's connections, kept for reuse (at most `maximumKept`, each for at most
/// `idleInterval` unused).
public final class BodyPieceRecycler: BodyPieceSupply {
    /// The most pieces kept.
    public static let maximumKept = 16
    /// How long a kept piece may stay unused before the sweep frees it.
    public static let idleInterval = Duration.seconds(5)

    private struct State {
        /// The kept pieces, each until `idleInterval` after it came back, and the sweep's state.
        var kept = IdleStock<[UInt8]>()
        var isClosed = false
    }

    private let state = LockedBox(State())
    /// The loop whose clock stamps the kept pieces and whose timer frees the idle ones.
    private let loop: EventLoop

    /// A recycler whose sweep runs on `loop`, on its clock.
    public init(loop: EventLoop) {
        self.loop = loop
    }

    // MARK: Inputs (any thread)

    public func takePiece(count: Int) -> [UInt8]? {
        // Bound straight from the lock's answer: a second reference would make the append below copy the piece.
        guard var piece = state.withLock({ state -> [UInt8]? in
            guard let room = state.kept.items.last?.capacity, room >= count else { return nil }
            return state.kept.takeLast()
        }) else { return nil }
        // A short read's piece: its count is made up with zeros, in the room it already has (a Swift array
        // cannot be given a count without writing its elements).
        if piece.count < count { piece.append(contentsOf: repeatElement(0, count: count - piece.count)) }
        return piece
    }

    /// Keeps `piece` for a later read when it has room for a whole read (`ChannelCore.readSize` bytes or more)
    /// and not much more, and there is room here; otherwise it is freed when this returns. The caller keeps no
    /// other reference to its storage.
    public func giveBack(_ piece: consuming [UInt8]) {
        guard piece.capacity >= ChannelCore.readSize, piece.capacity <= 2 * ChannelCore.readSize else { return }
        let expiry = loop.now() + Self.idleInterval
        var offered: [UInt8]? = consume piece
        let sweepAt = state.withLock { state -> Deadline? in
            guard !state.isClosed, state.kept.count < Self.maximumKept else { return nil }
            return state.kept.keep(offered.take()!, until: expiry)
        }
        if let sweepAt { armSweep(at: sweepAt) }
    }

    /// Frees what is kept and keeps nothing from now on (the session ended).
    public func close() {
        let kept = state.withLock { state -> [[UInt8]] in
            state.isClosed = true
            return state.kept.removeAll()
        }
        _ = consume kept
    }

    /// How many pieces are kept (tests).
    package var keptCount: Int {
        state.withLock { $0.kept.count }
    }

    // MARK: The sweep (loop thread)

    private func armSweep(at deadline: Deadline) {
        let loop = self.loop
        let schedule: @Sendable () -> Void = { [weak self] in
            _ = loop.scheduleTimer(at: deadline) { self?.sweep() }
        }
        if loop.inEventLoop {
            schedule()
        } else if !loop.execute(schedule) {
            close() // the loop is stopping with its session: nothing would ever free what is kept
        }
    }

    /// Frees the pieces unused for `idleInterval`; re-arms for the oldest one left.
    private func sweep() {
        let now = loop.now()
        let (expired, next) = state.withLock { $0.kept.sweep(now: now) }
        _ = consume expired // freed after the lock
        if let next { armSweep(at: next) }
    }
}
