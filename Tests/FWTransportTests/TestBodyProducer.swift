import Foundation
import FWLoop
import FWTransport

// MARK: - Body producers for transport tests

/// A body producer for tests: serves `total` bytes of `TestBodyProducer.content` and then finishes
/// (or fails), answering from a dispatch thread, and records how the connection drove it.
final class TestBodyProducer: TransportBodyProducer, @unchecked Sendable { // `state` guards every var
    struct Record: Sendable {
        var asks = 0
        var outstanding = 0
        var maxOutstanding = 0
        var largestAsk = 0
        var largestPiece = 0
        var produced = 0
        var stops = 0
    }

    /// What comes after the `total` bytes.
    enum Ending: Sendable {
        case finish
        case fail(String)
    }

    private let total: Int
    private let maxPiece: Int
    private let ending: Ending
    private let delay: Double
    /// Pieces answered before the producer waits for `openGate()` (nil: never waits).
    private let gateAfter: Int?
    private let gate = DispatchSemaphore(value: 0)
    private let state = LockedBox(Record())

    init(total: Int, maxPiece: Int = .max, ending: Ending = .finish, delay: Double = 0, gateAfter: Int? = nil) {
        self.total = total
        self.maxPiece = maxPiece
        self.ending = ending
        self.delay = delay
        self.gateAfter = gateAfter
    }

    var record: Record { state.withLock { $0 } }

    /// Lets a producer waiting at its gate answer.
    func openGate() { gate.signal() }

    // MARK: Content

    private static let block: [UInt8] = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    /// `count` bytes of every test body, from `offset` on (a 64 KiB pattern, repeated).
    static func content(_ count: Int, from offset: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var position = offset % block.count
        while bytes.count < count {
            let end = min(block.count, position + count - bytes.count)
            bytes += block[position..<end]
            position = 0
        }
        return bytes
    }

    // MARK: TransportBodyProducer

    func produce(maxLength: Int, into sink: TransportBodySink) {
        let (offset, piece, mustWait) = state.withLock { record in
            record.asks += 1
            record.outstanding += 1
            record.maxOutstanding = max(record.maxOutstanding, record.outstanding)
            record.largestAsk = max(record.largestAsk, maxLength)
            let piece = min(maxLength, maxPiece, total - record.produced)
            let mustWait = gateAfter.map { record.asks > $0 } ?? false
            return (record.produced, piece, mustWait)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            if mustWait { _ = gate.wait(timeout: .now() + 5) }
            state.withLock { record in
                record.outstanding -= 1
                record.produced += max(0, piece)
                record.largestPiece = max(record.largestPiece, piece)
            }
            if piece > 0 {
                sink.write(Self.content(piece, from: offset))
            } else if case .fail(let reason) = ending {
                sink.fail(reason)
            } else {
                sink.finish()
            }
        }
    }

    func stop() {
        state.withLock { $0.stops += 1 }
    }
}

/// Makes `TestBodyProducer`s for a stream body and keeps them; `makeProducer` returns nil once
/// `available` producers were made.
final class TestBodySource: Sendable {
    private let producers = LockedBox<[TestBodyProducer]>([])
    private let make: @Sendable () -> TestBodyProducer
    private let available: Int
    private let calls = LockedBox(0)

    init(available: Int = .max, make: @escaping @Sendable () -> TestBodyProducer) {
        self.available = available
        self.make = make
    }

    /// The producers made so far, in order.
    var made: [TestBodyProducer] { producers.withLock { $0 } }
    /// How often `makeProducer` was called (including calls that returned nil).
    var makeCalls: Int { calls.withLock { $0 } }

    /// A stream body of declared `length` (nil: chunked) drawing on this source.
    func body(length: Int64?) -> TransportRequestBody {
        .stream(TransportBodyStream(length: length) { [self] in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            guard call <= available else { return nil }
            let producer = make()
            producers.withLock { $0.append(producer) }
            return producer
        })
    }
}

extension RecordingDelegate {
    /// The totals of every `bodyBytesSent` event, in order.
    var bodyBytesSentTotals: [Int64] {
        recorded.compactMap { event in
            if case .bodyBytesSent(let total) = event { return total }
            return nil
        }
    }
}
