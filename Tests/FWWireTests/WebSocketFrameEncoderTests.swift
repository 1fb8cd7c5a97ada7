// WebSocketFrameEncoder: exact bytes for RFC 6455 §5.7's examples and every length form, a fresh key per
// frame, fragmentation, control frames, close reasons cut at scalar boundaries; and round trips through
// the state machine in both roles.

import FWWire
import TestSupport
import Testing

/// Masking keys from a fixed list (then zeros), so masked output is exact.
private struct FixedKeys: RandomNumberGenerator {
    var keys: [UInt32]

    mutating func next() -> UInt64 {
        guard !keys.isEmpty else { return 0 }
        return UInt64(keys.removeFirst())
    }
}

private let rfcMaskingKey: UInt32 = 0x37FA_213D

private func client(_ keys: UInt32...) -> WebSocketFrameEncoder<FixedKeys> {
    WebSocketFrameEncoder(role: .client, maskingKeys: FixedKeys(keys: keys))
}

private let server = WebSocketFrameEncoder(role: .server)

extension WebSocketFrameEncoder {
    /// `payload` encoded as a message into a fresh buffer.
    fileprivate mutating func message(
        _ opcode: WebSocketOpcode, _ payload: [UInt8], isCompressed: Bool = false, maxFramePayload: Int? = nil
    ) -> [UInt8] {
        var output: [UInt8] = []
        payload.withUnsafeBytes { bytes in
            encodeMessage(
                opcode, payload: bytes, isCompressed: isCompressed, maxFramePayload: maxFramePayload, into: &output)
        }
        return output
    }

    /// A close frame with `code` and `reason` in a fresh buffer.
    fileprivate mutating func close(_ code: WebSocketCloseCode?, _ reason: String = "") -> [UInt8] {
        var output: [UInt8] = []
        encodeClose(WebSocketCloseFrame(code: code, reason: reason), into: &output)
        return output
    }
}

/// What `body` appends to an empty buffer.
private func encoded(_ body: (inout [UInt8]) -> Void) -> [UInt8] {
    var output: [UInt8] = []
    body(&output)
    return output
}

@Suite struct WebSocketFrameEncoderTests {
    // MARK: RFC 6455 §5.7

    @Test func unmaskedHello() {
        var encoder = server
        #expect(encoded { encoder.encodeText("Hello", into: &$0) } == hex("81 05 48 65 6c 6c 6f"))
    }

    @Test func maskedHello() {
        var encoder = client(rfcMaskingKey)
        #expect(encoded { encoder.encodeText("Hello", into: &$0) } == hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
    }

    @Test func fragmentedUnmaskedHello() {
        var encoder = server
        #expect(encoded { encoder.encodeText("Hello", maxFramePayload: 3, into: &$0) }
            == hex("01 03 48 65 6c 80 02 6c 6f"))
    }

    @Test func pingAndMaskedPong() {
        var encoder = server
        #expect(encoded { encoder.encodePing(bytes("Hello"), into: &$0) } == hex("89 05 48 65 6c 6c 6f"))
        var masking = client(rfcMaskingKey)
        #expect(encoded { masking.encodePong(bytes("Hello"), into: &$0) } == hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"))
    }

    @Test(arguments: [
        (0, hex("82 00")), (125, hex("82 7d")), (126, hex("82 7e 00 7e")), (256, hex("82 7e 01 00")),
        (65535, hex("82 7e ff ff")), (65536, hex("82 7f 00 00 00 00 00 01 00 00")),
    ])
    func lengthForms(_ count: Int, _ head: [UInt8]) {
        var encoder = server
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
        let output = encoder.message(.binary, payload)
        #expect(Array(output.prefix(head.count)) == head)
        #expect(Array(output.dropFirst(head.count)) == payload)
    }

    @Test func maskedLongLengthsCarryTheKeyAfterTheLength() {
        var encoder = client(0x0102_0304)
        let payload = [UInt8](repeating: 0, count: 256)
        let output = encoder.message(.binary, payload)
        #expect(Array(output.prefix(8)) == hex("82 fe 01 00 01 02 03 04"))
        #expect(Array(output.dropFirst(8)) == (0..<256).map { UInt8($0 % 4 + 1) })
    }

    // MARK: Masking keys

    @Test func everyFrameGetsTheNextKey() {
        var encoder = client(0x1111_1111, 0x2222_2222, 0x3333_3333)
        let output = encoded { out in
            encoder.encodeText("abcdef", maxFramePayload: 4, into: &out)
            encoder.encodePing([], into: &out)
        }
        let expected = hex("01 84 11 11 11 11") + bytes("abcd").map { $0 ^ 0x11 }
            + hex("80 82 22 22 22 22") + bytes("ef").map { $0 ^ 0x22 } + hex("89 80 33 33 33 33")
        #expect(output == expected)
    }

    @Test func systemKeysDiffer() {
        var encoder = WebSocketFrameEncoder(role: .client)
        let output = encoded { out in
            for _ in 0..<4 {
                encoder.encodePing([], into: &out)
            }
        }
        let keys = stride(from: 2, to: output.count, by: 6).map { Array(output[$0..<$0 + 4]) }
        #expect(Set(keys).count == 4, "four fresh keys: \(keys)")
    }

    // MARK: Messages and control frames

    @Test func compressionSetsRSV1OnTheFirstFrameOnly() {
        var encoder = server
        let payload: [UInt8] = [1, 2, 3, 4, 5]
        let output = encoder.message(.binary, payload, isCompressed: true, maxFramePayload: 2)
        #expect(output == hex("42 02 01 02 00 02 03 04 80 01 05"))
    }

    @Test func anEmptyMessageIsOneEmptyFrame() {
        var encoder = server
        #expect(encoded { encoder.encodeText("", maxFramePayload: 10, into: &$0) } == hex("81 00"))
        #expect(encoder.message(.binary, []) == hex("82 00"))
    }

    @Test func closeFrames() {
        var encoder = server
        #expect(encoder.close(nil) == hex("88 00"))
        #expect(encoder.close(.normalClosure) == hex("88 02 03 e8"))
        #expect(encoder.close(.goingAway, "bye") == hex("88 05 03 e9") + bytes("bye"))
        #expect(encoder.close(WebSocketCloseCode(rawValue: 4000)) == hex("88 02 0f a0"))
    }

    @Test(arguments: [WebSocketCloseCode.noStatusReceived, .abnormalClosure, .tlsHandshakeFailure, .reserved])
    func codesThatMayNotBeSentGoAsAnEmptyClose(_ code: WebSocketCloseCode) {
        var encoder = client(rfcMaskingKey)
        #expect(encoder.close(code, "x") == hex("88 80 37 fa 21 3d"))
    }

    @Test(arguments: [
        (String(repeating: "a", count: 200), 123),
        (String(repeating: "a", count: 122) + "é", 122),
        (String(repeating: "a", count: 121) + "é", 123),
        (String(repeating: "a", count: 121) + "𝄞", 121),
        (String(repeating: "€", count: 41) + "x", 123),
        (String(repeating: "€", count: 42), 123),
    ])
    func longReasonsAreCutAtAScalarBoundary(_ reason: String, _ kept: Int) throws {
        var encoder = server
        let output = encoder.close(.normalClosure, reason)
        #expect(output.count == 2 + 2 + kept)
        #expect(output[1] == UInt8(2 + kept))
        let cut = try #require(String(validating: output.dropFirst(4), as: UTF8.self))
        #expect(reason.hasPrefix(cut))
    }

    // MARK: Round trips

    @Test(arguments: [WebSocketRole.client, .server])
    func messagesSurviveTheStateMachine(_ sender: WebSocketRole) throws {
        var random = SplitMix64(seed: sender == .client ? 1 : 2)
        var client = WebSocketFrameEncoder(role: .client, maskingKeys: SplitMix64(seed: 3))
        var server = WebSocketFrameEncoder(role: .server)
        var receiver = WebSocketConnectionStateMachine(role: sender == .client ? .server : .client)
        for round in 0..<200 {
            let count = Int.random(in: 0...(round % 10 == 0 ? 70_000 : 300), using: &random)
            let payload = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            let frameSize = Bool.random(using: &random) ? nil : Int.random(in: 1...(count + 1), using: &random)
            var wire: [UInt8] = []
            payload.withUnsafeBytes { bytes in
                if sender == .client {
                    client.encodeMessage(.binary, payload: bytes, maxFramePayload: frameSize, into: &wire)
                } else {
                    server.encodeMessage(.binary, payload: bytes, maxFramePayload: frameSize, into: &wire)
                }
            }
            let cut = Int.random(in: 0...wire.count, using: &random)
            receiver.feed(Array(wire[..<cut]))
            var events: [WebSocketEvent] = []
            while let event = try receiver.next() { events.append(event) }
            receiver.feed(Array(wire[cut...]))
            while let event = try receiver.next() { events.append(event) }
            #expect(events == [.binary(payload)], "round \(round)")
        }
    }
}
