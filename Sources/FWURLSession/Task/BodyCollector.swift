import Foundation
import FWTransport

// MARK: - BodyCollector
//
// The one place a whole response body is gathered in memory, with the session's limits (design note
// task-machine.md §5). Every API that hands a whole body over — a completion handler, `data(for:)`
// (`CollectingSink`), a `URLSessionDataCollectingDelegate` such as the session manager (`DataDelegateSink`) —
// collects with purpose `handOver`; the URL cache's copy of a body (`URLSessionTask+Cache.swift`, a URL
// protocol's load) with purpose `store`.
//
//   handOver   the announced length and the collected length stay ≤ `maxCollectedBodySize`; past it the
//              collector lets its body go and throws `URLError(.dataLengthExceedsMaximum)`
//   store      the body stays ≤ the cache's capacity; past it the collector lets its body go and keeps
//              nothing more (the response is not stored): never an error
//
// Both allocate the announced length once (at most `maximumReservation`: a lying Content-Length costs that
// much address space at most), except for a response without a body (HEAD, 204, 304): with the first piece,
// which becomes the body's storage itself when it is the whole body (a small response's one piece costs one
// allocation and no appends). The third rule,
// a decoded body ≤ `maxDecompressionRatio` × its encoded bytes + `HTTPLimits.decompressionAllowance`, is
// `checkDecodedGrowth`: the task applies it to every body, collected or streamed, before any sink sees it.
//
// A `handOver` collector given the session's `BodyBufferPool` writes a body of a known, large length into a
// pooled buffer instead (the pool's bounds say which lengths), and the body it hands over is the one `Data` that
// owns that buffer: made when the last announced byte arrives, so that every later read of the body gets that
// same `Data`; read before (a body cut short), it is a copy. A body that outgrows its buffer (a decoded body
// longer than the encoded length announced) moves into a `Data` of its own and grows there.
//
// A value: its owner guards it (a sink's or a load's `LockedBox`). The session manager does not collect:
// it is a `URLSessionDataCollectingDelegate`, and its tasks collect for it with this type.

/// A response body gathered in memory within the session's limits.
struct BodyCollector: Sendable {
    /// What the body is collected for.
    enum Purpose: Sendable, Equatable {
        /// Handed over whole (a completion handler, `data(for:)`, a manager's serializer): over the limit
        /// is an error.
        case handOver
        /// Kept for the URL cache, whose capacity is `ceiling` bytes: over it the body is dropped silently.
        case store(ceiling: Int)
    }

    /// The most a collected body reserves up front from its Content-Length.
    static let maximumReservation: Int64 = 256 << 20

    let purpose: Purpose
    private let limits: HTTPLimits
    /// The URL the errors name.
    private let url: URL?
    /// The body so far (empty once dropped or taken; while `pooled` is being written, empty too).
    private(set) var body = Data()
    /// Where the session's pool lends buffers for large bodies; nil: the body is collected in `body` only.
    private let buffers: BodyBufferPool?
    /// The pooled buffer the body is written into until it is whole (then it becomes `body`).
    private var pooled: PooledBody?
    /// True once a `store` body outgrew its ceiling, or a `handOver` body its limit.
    private(set) var isDropped = false
    /// The room the first piece allocates: the announced length, capped (0: grow as pieces come).
    private var reservation = 0

    /// A collector with the session's `limits` (read once, when the response arrives); its errors name `url`.
    /// With `buffers`, a `handOver` body of a known length the pool takes is written into a pooled buffer.
    init(_ purpose: Purpose, limits: HTTPLimits, url: URL?, buffers: BodyBufferPool? = nil) {
        self.purpose = purpose
        self.limits = limits
        self.url = url
        self.buffers = purpose == .handOver ? buffers : nil
    }

    /// The body to hand over or store; nil once it was dropped.
    var collected: Data? {
        isDropped ? nil : pooled?.copy() ?? body
    }

    /// The bytes collected so far.
    private var collectedCount: Int {
        pooled?.count ?? body.count
    }

    // MARK: The response

    /// The response arrived announcing `length` bytes (-1: unknown) for a request with `method` and a
    /// response with `status`: refuses (`handOver`) or drops (`store`) an announced body over the limit,
    /// else notes the room the first piece allocates.
    mutating func expect(length: Int64, method: String?, status: Int?) throws(URLError) {
        guard length > 0, method != "HEAD", status != 204, status != 304, !isDropped else { return }
        guard length <= ceiling else {
            drop()
            guard purpose == .handOver else { return }
            throw tooLarge("the response announces \(length) bytes, more than "
                + "httpResponseLimits.maxCollectedBodySize (\(limits.maxCollectedBodySize))")
        }
        // A body of announced length is allocated once instead of regrown (which peaks at twice the body).
        reservation = Int(min(length, Self.maximumReservation))
        pooled = buffers?.take(length: reservation)
    }

    /// A piece of the (decoded) body arrived: kept while the body stays within the limit.
    mutating func append(_ bytes: some Collection<UInt8>) throws(URLError) {
        guard !isDropped else { return }
        guard Int64(collectedCount) + Int64(bytes.count) <= ceiling else {
            drop()
            guard purpose == .handOver else { return }
            throw tooLarge("the response body is larger than httpResponseLimits.maxCollectedBodySize "
                + "(\(limits.maxCollectedBodySize) bytes)")
        }
        if let pooled {
            if pooled.append(bytes) {
                if pooled.count == reservation { seal() }
                return
            }
            body = pooled.copy() // it outgrew the announced length: on in a `Data` of its own
            self.pooled = nil
        }
        guard body.isEmpty else {
            body.append(contentsOf: bytes)
            return
        }
        if bytes.count >= reservation {
            body = Data(bytes)
        } else {
            body.reserveCapacity(reservation)
            body.append(contentsOf: bytes)
        }
    }

    /// The body, which the collector lets go of (a finished task keeps none).
    mutating func take() -> Data? {
        defer {
            body = Data()
            pooled = nil
        }
        return collected
    }

    /// The pooled body is whole: it becomes `body`, the one `Data` that owns the buffer.
    private mutating func seal() {
        guard let pooled else { return }
        body = pooled.seal()
        self.pooled = nil
    }

    // MARK: Decoding

    /// Refuses a decoded body that grew past `maxDecompressionRatio` times the `received` encoded bytes (beyond
    /// `HTTPLimits.decompressionAllowance`; a ratio of 0 is no limit): a decompression bomb.
    static func checkDecodedGrowth(_ decoded: Int64, received: Int64, limits: HTTPLimits,
                                           url: URL?) throws(URLError) {
        let ratio = Int64(limits.maxDecompressionRatio)
        guard ratio > 0 else { return }
        let allowed = ratio.multipliedReportingOverflow(by: received)
        guard !allowed.overflow, decoded > allowed.partialValue + HTTPLimits.decompressionAllowance else { return }
        throw URLError(.dataLengthExceedsMaximum, url: url,
                       description: "the decoded body grew past \(ratio) times the \(received) bytes received "
                           + "(httpResponseLimits.maxDecompressionRatio): a decompression bomb?")
    }

    // MARK: Private

    /// The most the body may hold.
    private var ceiling: Int64 {
        switch purpose {
        case .handOver: limits.maxCollectedBodySize
        case .store(let ceiling): Int64(ceiling)
        }
    }

    private mutating func drop() {
        body = Data()
        pooled = nil
        isDropped = true
    }

    private func tooLarge(_ description: String) -> URLError {
        URLError(.dataLengthExceedsMaximum, url: url, description: description)
    }
}
