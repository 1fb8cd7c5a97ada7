import Foundation
import FWTransport

// MARK: - A body piece handed to the delegate without a copy
//
// A large body piece reaches the session as the `[UInt8]` the socket was read into (FWWire hands a read that
// is a whole body event on without copying it). `Data(bytes)` copied it once more for every `didReceive data`:
// on a streamed 100 MiB body about 5 % of the client's CPU samples (`perf record`), 0.4 % after this change.
// `Data(adopting:)` makes the `Data` share the array's storage instead, as a custom-deallocator `Data` that keeps
// the array alive.
//
// Why this keeps both value semantics intact: the storage is made unique first (`withUnsafeMutableBytes` copies
// it when any other array still refers to it), so afterwards the `Data` is the storage's only owner. A `Data`
// that is mutated in place therefore writes into memory no other value can see, and one that grows copies out
// as any custom-deallocator `Data` does. The base address taken from the array stays valid while the array
// lives: a Swift array's storage is one heap object, which never moves and is never written again once the
// only array referring to it is the one captured by the deallocator. Small pieces are copied: a `Data` of a few
// bytes stores them inline anyway, and below `adoptionMinimum` a copy costs less than the deallocator's box.

extension Data {
    /// Pieces at least this large are adopted rather than copied.
    static let adoptionMinimum = 4096

    /// A `Data` holding `bytes`, sharing their storage when the piece is large (no copy) and copying it when
    /// small. `bytes` is consumed: a caller that hands its only reference over gives away the copy too. When the
    /// `Data`'s storage dies, an adopted array goes back to `recycler` (if any) for a later read to land in.
    init(adopting bytes: consuming [UInt8], recycling recycler: BodyPieceRecycler? = nil) {
        guard bytes.count >= Self.adoptionMinimum else {
            self.init(bytes)
            return
        }
        var owner = consume bytes
        let count = owner.count
        // The mutable view makes the storage unique (a copy if it is shared) and names its address.
        guard let base = owner.withUnsafeMutableBytes({ $0.baseAddress }) else {
            self.init(owner)
            return
        }
        let kept = consume owner
        self.init(bytesNoCopy: base, count: count, deallocator: .custom { _, _ in
            if let recycler {
                recycler.giveBack(kept)
            } else {
                withExtendedLifetime(kept) {}
            }
        })
    }
}
