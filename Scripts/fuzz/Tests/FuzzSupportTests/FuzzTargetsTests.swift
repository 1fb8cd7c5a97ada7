// The seed corpora run through their fuzz targets without a finding, and each seed ends the way its name
// says: `ok-…` seeds in complete messages, `err-…` seeds in a parse error.

import FWWire
import Glibc
import Testing

@testable import FuzzSupport

// MARK: - Seed corpora

/// One seed file of one target.
struct Seed: Sendable, CustomTestStringConvertible {
    var target: String
    var name: String
    var bytes: [UInt8]

    var testDescription: String {
        "\(target)/\(name)"
    }

    /// Every seed of `target` in Fixtures/fuzz, sorted by name.
    static func all(of target: String) -> [Seed] {
        let folder = fixturesFolder() + "/" + target
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var seeds: [Seed] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix("."), let bytes = LibFuzzerMain.readFile(folder + "/" + name) else { continue }
            seeds.append(Seed(target: target, name: name, bytes: bytes))
        }
        return seeds.sorted { $0.name < $1.name }
    }

    /// Fixtures/fuzz of the repository, found from this file's real path (the dev package links to it).
    private static func fixturesFolder() -> String {
        guard let resolved = realpath(#filePath, nil) else { return "" }
        defer { free(resolved) }
        // …/Scripts/fuzz/Tests/FuzzSupportTests/FuzzTargetsTests.swift → the repository root.
        let root = String(cString: resolved).split(separator: "/", omittingEmptySubsequences: false).dropLast(5)
        return root.joined(separator: "/") + "/Fixtures/fuzz"
    }
}

@Suite struct FuzzTargetsTests {
    static let responseParserSeeds = Seed.all(of: "response-parser")
    static let chunkedDecoderSeeds = Seed.all(of: "chunked-decoder")

    @Test func corporaHaveTwentyToFortySeedsOfBothOutcomes() {
        for seeds in [Self.responseParserSeeds, Self.chunkedDecoderSeeds] {
            #expect((20...40).contains(seeds.count))
            #expect(seeds.contains { $0.name.hasPrefix("ok-") })
            #expect(seeds.contains { $0.name.hasPrefix("err-") })
            #expect(seeds.allSatisfy { $0.name.hasPrefix("ok-") || $0.name.hasPrefix("err-") })
        }
    }

    @Test(arguments: responseParserSeeds)
    func responseParserSeed(_ seed: Seed) {
        let trace = seed.bytes.withUnsafeBytes { FuzzTargets.responseParser($0) }
        #expect((trace.error == nil) == seed.name.hasPrefix("ok-"), "\(String(describing: trace.error))")
        #expect(trace.events.count >= (seed.name.hasPrefix("ok-") ? 2 : 0))
    }

    @Test(arguments: chunkedDecoderSeeds)
    func chunkedDecoderSeed(_ seed: Seed) {
        let trace = seed.bytes.withUnsafeBytes { FuzzTargets.chunkedDecoder($0) }
        #expect((trace.error == nil) == seed.name.hasPrefix("ok-"), "\(String(describing: trace.error))")
    }

    // MARK: - Properties across runs

    @Test func chunkedTargetReportsTheDecodedBodyAndLeavesWhatFollows() {
        let trace = FuzzTargets.chunkedDecoder(bytes("H" + "3\r\nabc\r\n0\r\nX: y\r\n\r\nextra"))
        #expect(trace.error == nil)
        #expect(trace.events.dropFirst().first == .body(bytes("abc")))
        #expect(trace.events.last == .end(trailers: ["X": "y"], keepAlive: true))
        #expect(trace.unconsumedByteCount == 5)
    }

    @Test func toleratesTheSplitDependentLineError() {
        // Small limits (bit 2), split at 30/31 of the stream, right after the bare CR of an over-long line:
        // the split run says headerLineTooLong, the whole run invalidLineEnding (ResponseStreamDriverTests).
        let trace = FuzzTargets.responseParser([30 << 3 | 4] + overlongLineWithBareCR)
        #expect(trace.error == .invalidLineEnding)
    }
}

/// A head whose second line exceeds `FuzzInput.smallLimits.maxLineLength` and holds a bare CR.
let overlongLineWithBareCR = bytes("HTTP/1.1 200 OK\r\nX: " + String(repeating: "v", count: 120) + "\rz\r\n\r\n")

/// The UTF-8 bytes of `string`.
func bytes(_ string: String) -> [UInt8] {
    Array(string.utf8)
}

extension FuzzTargets {
    /// Runs the response-parser target on `data`.
    static func responseParser(_ data: [UInt8]) -> ResponseTrace {
        data.withUnsafeBytes { responseParser($0) }
    }

    /// Runs the chunked-decoder target on `data`.
    static func chunkedDecoder(_ data: [UInt8]) -> ResponseTrace {
        data.withUnsafeBytes { chunkedDecoder($0) }
    }
}
