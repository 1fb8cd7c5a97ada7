// The `websocket-decoder` target: its control byte, its oracle's own rules, and its seed corpus: every seed
// runs through the target without a finding and ends the way its name says (`ok-…` in the peer's close,
// `err-…` in the error named here).

import FWWire
import Testing

@testable import FuzzSupport

@Suite struct WebSocketFuzzTests {
    static let seeds = Seed.all(of: "websocket-decoder")

    /// The error each `err-…` seed must end in.
    static let expectedErrors: [String: WebSocketError] = [
        "err-reserved-opcode": .reservedOpcode, "err-rsv2": .reservedBitsSet,
        "err-rsv1-without-compression": .reservedBitsSet, "err-rsv1-on-continuation": .reservedBitsSet,
        "err-fragmented-ping": .fragmentedControlFrame, "err-control-too-long": .controlFrameTooLong,
        "err-masked-server-frame": .unexpectedMask, "err-unmasked-client-frame": .missingMask,
        "err-nonminimal-16bit-length": .nonMinimalLength, "err-nonminimal-64bit-length": .nonMinimalLength,
        "err-64bit-length-top-bit": .invalidLength, "err-frame-too-large": .frameTooLarge,
        "err-message-too-big": .messageTooBig, "err-compressed-too-big": .messageTooBig,
        "err-unexpected-continuation": .unexpectedContinuation, "err-expected-continuation": .expectedContinuation,
        "err-utf8-overlong": .invalidUTF8, "err-utf8-surrogate": .invalidUTF8,
        "err-utf8-cut-at-message-end": .invalidUTF8, "err-close-one-byte": .invalidClosePayload,
        "err-close-code-1005": .invalidCloseCode, "err-close-reason-not-utf8": .invalidCloseReason,
        "err-end-without-close": .unexpectedEndOfStream, "err-end-inside-header": .unexpectedEndOfStream,
    ]

    @Test func corpusHasTwentyToFortySeedsOfBothOutcomes() {
        #expect((20...40).contains(Self.seeds.count))
        #expect(Self.seeds.allSatisfy { $0.name.hasPrefix("ok-") || Self.expectedErrors[$0.name] != nil })
        #expect(Set(Self.expectedErrors.keys).isSubset(of: Self.seeds.map(\.name)))
    }

    @Test(arguments: seeds)
    func seedEndsAsItsNameSays(_ seed: Seed) throws {
        let trace = seed.bytes.withUnsafeBytes { FuzzTargets.websocketDecoder($0) }
        if seed.name.hasPrefix("ok-") {
            #expect(trace.error == nil)
            let last = try #require(trace.events.last)
            guard case .closeReceived = last else {
                Issue.record("ends with \(last)")
                return
            }
        } else {
            #expect(trace.error == Self.expectedErrors[seed.name])
        }
    }

    // MARK: Control byte

    @Test func controlByte() {
        let plain = WebSocketFuzzInput([0x00] + [UInt8](repeating: 0x41, count: 30))
        #expect(plain.role == .client && plain.limits == WebSocketLimits())
        #expect(!plain.compression && !plain.closeFirst && plain.splitOffset == 0 && plain.stream.count == 30)
        let everything = WebSocketFuzzInput([0xFF] + [UInt8](repeating: 0x41, count: 30))
        #expect(everything.role == .server && everything.limits == WebSocketFuzzInput.smallLimits)
        #expect(everything.compression && everything.closeFirst && everything.splitOffset == 30)
        #expect(WebSocketFuzzInput([0x70] + [UInt8](repeating: 0, count: 30)).splitOffset == 14)
        #expect(WebSocketFuzzInput([UInt8]()).stream.isEmpty)
    }

    @Test func smallPiecesCoverTheStream() {
        let stream: [UInt8] = [7, 0, 1, 2, 3, 4, 5, 6, 0, 3, 9, 9, 9]
        #expect(FuzzTargets.smallPieces(stream) == [8, 9, 13])
        #expect(FuzzTargets.smallPieces([]).isEmpty)
    }

    // MARK: Oracle rules

    @Test(arguments: [
        ([0x61], 0, 1), ([0x61, 0xE2, 0x82], 0, 1), ([0xF0, 0x9D, 0x84, 0x9E], 0, 4), ([0xC3], 0, 0),
        ([0x61, 0xF4, 0x8F], 1, 1),
    ] as [([UInt8], Int, Int)])
    func validPrefixes(_ bytes: [UInt8], _ start: Int, _ boundary: Int) {
        #expect(WebSocketOracle.validPrefix(bytes, from: start) == boundary)
    }

    @Test(arguments: [[0x80], [0xC0, 0x80], [0xE0, 0x80], [0xED, 0xA0], [0xF4, 0x90], [0xF5], [0xE2, 0x28]]
        as [[UInt8]])
    func invalidPrefixes(_ bytes: [UInt8]) {
        #expect(WebSocketOracle.validPrefix(bytes, from: 0) == nil)
    }

    @Test func oracleCloseFrames() throws {
        #expect(try WebSocketOracle.closeFrame([]) == WebSocketCloseFrame(code: nil))
        #expect(try WebSocketOracle.closeFrame([0x0F, 0xA0, 0x61]) == WebSocketCloseFrame(
            code: WebSocketCloseCode(rawValue: 4000), reason: "a"))
        #expect(throws: WebSocketError.invalidClosePayload) { try WebSocketOracle.closeFrame([0x03]) }
        #expect(throws: WebSocketError.invalidCloseCode) { try WebSocketOracle.closeFrame([0x03, 0xEE]) }
        #expect(throws: WebSocketError.invalidCloseReason) { try WebSocketOracle.closeFrame([0x03, 0xE8, 0xFF]) }
    }
}
