// BodyPieceRecycler: a transport's few read pieces, given back by the consumers of large body reads and taken by
// its connections' parsers for the next large read (FWWire's BodyPieceSupply.swift says why).
//
// A piece's life: a connection's parser reads a large body piece into an array (taken from here, or fresh) and
// hands it on whole; the session wraps it in the `Data` its delegate receives (`Data(adopting:recycling:)`);
// when that `Data` dies the array comes back here (`giveBack`) if it is a full read's and there is room; the next
// large read of any of the transport's connections takes it (`takePiece`), writes over it and shortens it to what
// it holds. Bounds: `maximumKept` pieces of at most twice the read size (a quarter of a megabyte at most per
// session), kept until the transport's session ends (`close`); refused pieces are freed by their giver, after
// the lock. Any thread: the `Data` dies wherever its owner lets it go.

import FWLoop
import FWWire

/// The read pieces of one transport's connections, kept for reuse (at most `maximumKept`).
public final class BodyPieceRecycler: BodyPieceSupply {
    /// The most pieces kept.
    public static let maximumKept = 4

    private struct State {
        var kept: [[UInt8]] = []
        var isClosed = false
    }

    private let state = LockedBox(State())

    public init() {}

    public func takePiece(count: Int) -> [UInt8]? {
        state.withLock { state in
            guard let last = state.kept.last, last.count >= count else { return nil }
            return state.kept.removeLast()
        }
    }

    /// Keeps `piece` for a later read when it holds a whole read (`ChannelCore.readSize` bytes or more), is not
    /// much larger, and there is room; otherwise it is freed when this returns. The caller keeps no other
    /// reference to its storage.
    public func giveBack(_ piece: consuming [UInt8]) {
        guard piece.count >= ChannelCore.readSize, piece.capacity <= 2 * ChannelCore.readSize else { return }
        var offered: [UInt8]? = consume piece
        state.withLock { state in
            guard !state.isClosed, state.kept.count < Self.maximumKept else { return }
            state.kept.append(offered.take()!)
        }
    }

    /// Frees what is kept and keeps nothing from now on (the session ended).
    public func close() {
        let kept = state.withLock { state -> [[UInt8]] in
            state.isClosed = true
            defer { state.kept = [] }
            return state.kept
        }
        _ = consume kept
    }

    /// How many pieces are kept (tests).
    package var keptCount: Int {
        state.withLock { $0.kept.count }
    }
}
