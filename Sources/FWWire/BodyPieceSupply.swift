// BodyPieceSupply: where a parser's large reads can land in arrays that were used before.
//
// A large body read lands in a fresh array that the parser hands on whole as a body event (no copy; see
// HTTPResponseParser+Buffer.swift). Its consumer may hand the array back once it let go of it (FWTransport's
// `BodyPieceRecycler`, fed by the `Data` a streamed piece became, and by the sinks that copied a piece into a
// collected body or wrote it to a file): the next read then writes over its old bytes
// instead of allocating, and glibc never trims the freed chunk off the heap only for the next read to fault its
// pages in again.

/// Arrays for a parser's large reads, given back by their earlier consumers.
public protocol BodyPieceSupply: AnyObject, Sendable {
    /// An array of at least `count` elements whose bytes may be overwritten and whose storage no other live array
    /// shares, or nil (the parser then allocates one).
    func takePiece(count: Int) -> [UInt8]?
}
