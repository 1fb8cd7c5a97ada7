import Foundation
@testable import FWURLSession
import Testing

// The one bounded body collector as tables, no server: what each purpose keeps, refuses or drops for an
// announced length, a response without a body and pieces that grow past the limit; the errors' codes,
// descriptions and failing URL; the decompression ratio rule at its edges.
@Suite struct BodyCollectorTests {
    static let url = URL(string: "http://example.test/body")!

    /// The session's limits with a collected-body limit of `limit` bytes.
    static func limits(_ limit: Int64 = 10, ratio: Int = 100) -> HTTPLimits {
        var limits = HTTPLimits()
        limits.maxCollectedBodySize = limit
        limits.maxDecompressionRatio = ratio
        return limits
    }

    /// How a collection ends.
    enum Ending: Equatable {
        /// The body as collected, this many bytes.
        case collected(Int)
        /// Dropped without an error (`store` past its ceiling).
        case dropped
        /// `dataLengthExceedsMaximum` with this description.
        case refused(String)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var purpose = BodyCollector.Purpose.handOver
        var announced: Int64 = -1
        var method = "GET"
        var status = 200
        var pieces: [Int] = []
        var ending: Ending

        static let announcedOver = "the response announces 11 bytes, more than "
            + "httpResponseLimits.maxCollectedBodySize (10)"
        static let grownOver = "the response body is larger than httpResponseLimits.maxCollectedBodySize (10 bytes)"
    }

    static let rows: [Row] = [
        Row(testDescription: "announced, within", announced: 5, pieces: [3, 2], ending: .collected(5)),
        Row(testDescription: "exactly the limit", pieces: [4, 6], ending: .collected(10)),
        Row(testDescription: "announced over", announced: 11, ending: .refused(Row.announcedOver)),
        Row(testDescription: "grown over", pieces: [6, 5], ending: .refused(Row.grownOver)),
        Row(testDescription: "announced within, grown over", announced: 8, pieces: [8, 3],
            ending: .refused(Row.grownOver)),
        Row(testDescription: "HEAD announces no body", announced: 11, method: "HEAD", ending: .collected(0)),
        Row(testDescription: "204 has no body", announced: 11, status: 204, ending: .collected(0)),
        Row(testDescription: "304 has no body", announced: 11, status: 304, ending: .collected(0)),
        Row(testDescription: "store, within", purpose: .store(ceiling: 10), pieces: [4, 6], ending: .collected(10)),
        Row(testDescription: "store, announced over", purpose: .store(ceiling: 10), announced: 11, pieces: [1],
            ending: .dropped),
        Row(testDescription: "store, grown over, later pieces ignored", purpose: .store(ceiling: 10),
            pieces: [6, 5, 1], ending: .dropped),
        Row(testDescription: "store, its ceiling not the session's limit", purpose: .store(ceiling: 20),
            pieces: [15], ending: .collected(15)),
    ]

    @Test(arguments: rows)
    func whatEachPurposeKeepsRefusesOrDrops(_ row: Row) throws {
        var collector = BodyCollector(row.purpose, limits: Self.limits(), url: Self.url)
        var refusal: URLError?
        do throws(URLError) {
            try collector.expect(length: row.announced, method: row.method, status: row.status)
            for piece in row.pieces { try collector.append([UInt8](repeating: 0x61, count: piece)) }
        } catch {
            refusal = error
        }
        let ending: Ending
        if let refusal {
            #expect(refusal.code == .dataLengthExceedsMaximum)
            #expect(refusal.userInfo[NSURLErrorFailingURLErrorKey] as? URL == Self.url)
            #expect(collector.body.isEmpty, "a refused body is let go of at once")
            ending = .refused(refusal.localizedDescription)
        } else if let collected = collector.collected {
            #expect(collected == Data(repeating: 0x61, count: collected.count))
            ending = .collected(collected.count)
        } else {
            #expect(collector.body.isEmpty && collector.isDropped)
            ending = .dropped
        }
        #expect(ending == row.ending)
    }

    @Test func takingTheBodyLeavesNoneBehind() throws {
        var collector = BodyCollector(.handOver, limits: Self.limits(), url: Self.url)
        try collector.append(Array("hello".utf8))
        #expect(collector.take() == Data("hello".utf8))
        #expect(collector.body.isEmpty)
        #expect(collector.take() == Data())
    }

    struct Growth: Sendable, CustomTestStringConvertible {
        var ratio: Int
        var decoded: Int64
        var received: Int64
        var refused: Bool
        var testDescription: String { "ratio \(ratio): \(decoded) from \(received)" }
    }

    @Test(arguments: [
        Growth(ratio: 100, decoded: 100 * 1000 + HTTPLimits.decompressionAllowance, received: 1000, refused: false),
        Growth(ratio: 100, decoded: 100 * 1000 + HTTPLimits.decompressionAllowance + 1, received: 1000, refused: true),
        Growth(ratio: 100, decoded: HTTPLimits.decompressionAllowance, received: 0, refused: false),
        Growth(ratio: 0, decoded: .max, received: 1, refused: false),
        Growth(ratio: 100, decoded: .max, received: .max, refused: false),
    ])
    func aDecodedBodyMayGrowByTheRatioBeyondTheAllowance(_ row: Growth) {
        do throws(URLError) {
            try BodyCollector.checkDecodedGrowth(row.decoded, received: row.received,
                                                 limits: Self.limits(ratio: row.ratio), url: Self.url)
            #expect(!row.refused)
        } catch {
            #expect(row.refused)
            #expect(error.code == .dataLengthExceedsMaximum)
            #expect(error.localizedDescription == "the decoded body grew past \(row.ratio) times the \(row.received) "
                + "bytes received (httpResponseLimits.maxDecompressionRatio): a decompression bomb?")
            #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == Self.url)
        }
    }
}
