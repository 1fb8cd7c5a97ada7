// WebSocketConnectionStateMachine: one row per message and close rule of RFC 6455 §5.4-5.5 and §7, each
// run the four ways with the exact error and close code; then the close handshake in both directions.

import FWWire
import Testing

// MARK: - Row builders

private func reads(
    _ name: String, _ input: [UInt8], _ events: [WebSocketEvent], role: WebSocketRole = .client,
    limits: WebSocketLimits = WebSocketLimits(), endOfStream: Bool = false
) -> ConnectionCase {
    ConnectionCase(name: name, input: input, role: role, limits: limits, endOfStream: endOfStream, events: events)
}

private func fails(
    _ name: String, _ input: [UInt8], _ error: WebSocketError, _ closeCode: WebSocketCloseCode,
    after events: [WebSocketEvent] = [], limits: WebSocketLimits = WebSocketLimits(), endOfStream: Bool = false
) -> ConnectionCase {
    ConnectionCase(
        name: name, input: input, limits: limits, endOfStream: endOfStream, events: events, error: error,
        closeCode: closeCode)
}

private func messages(upTo maxMessageSize: Int) -> WebSocketLimits {
    var limits = WebSocketLimits()
    limits.maxMessageSize = maxMessageSize
    return limits
}

private func closed(_ code: UInt16?, _ reason: String = "") -> WebSocketEvent {
    .closeReceived(WebSocketCloseFrame(code: code.map(WebSocketCloseCode.init(rawValue:)), reason: reason))
}

// MARK: - Messages

private let messageCases: [ConnectionCase] = [
    reads("a text message", frame(0x81, "Hello"), [.text("Hello")]),
    reads("a binary message", frame(0x82, [0, 1, 255]), [.binary([0, 1, 255])]),
    reads("an empty text message", frame(0x81, ""), [.text("")]),
    reads("an empty binary message", frame(0x82, []), [.binary([])]),
    reads("RFC 6455 §5.7 fragments", hex("01 03 48 65 6c 80 02 6c 6f"), [.text("Hello")]),
    reads(
        "three fragments, one empty", frame(0x02, [1]) + frame(0x00, []) + frame(0x80, [2, 3]),
        [.binary([1, 2, 3])]),
    reads(
        "a ping and a pong between fragments", frame(0x01, "Hel") + frame(0x89, "p") + frame(0x8a, "q")
            + frame(0x80, "lo"),
        [.ping(bytes("p")), .pong(bytes("q")), .text("Hello")]),
    reads("a ping: the pong to send carries its payload", frame(0x89, "Hello"), [.ping(bytes("Hello"))]),
    reads("an empty ping", frame(0x89, ""), [.ping([])]),
    reads("an unsolicited pong", frame(0x8a, [9]), [.pong([9])]),
    reads(
        "several messages in one read", frame(0x81, "a") + frame(0x82, [1]) + frame(0x81, "b"),
        [.text("a"), .binary([1]), .text("b")]),
    reads("masked frames read by a server", frame(0x01, "Hel", key: 0xA1B2_C3D4) + frame(0x80, "lo", key: 0x0102_0304),
          [.text("Hello")], role: .server),

    // MARK: Fragmentation errors (1002)
    fails("a continuation with no message", frame(0x80, "x"), .unexpectedContinuation, .protocolError),
    fails("a text frame inside a message", frame(0x01, "a") + frame(0x81, "b"), .expectedContinuation, .protocolError),
    fails("a binary frame inside a text message", frame(0x01, "a") + frame(0x82, [1]), .expectedContinuation,
          .protocolError),
    fails("a continuation after the message ended", frame(0x81, "a") + frame(0x80, "b"), .unexpectedContinuation,
          .protocolError, after: [.text("a")]),
    fails("a frame error inside a message", frame(0x01, "a") + hex("83 00"), .reservedOpcode, .protocolError),

    // MARK: Message size (1009)
    reads("a message at the size limit", frame(0x82, [1, 2, 3, 4, 5]), [.binary([1, 2, 3, 4, 5])],
          limits: messages(upTo: 5)),
    fails("a frame over the message limit, before its payload", hex("82 06"), .messageTooBig, .messageTooBig,
          limits: messages(upTo: 5)),
    fails("fragments over the message limit", frame(0x02, [1, 2, 3]) + hex("80 03"), .messageTooBig,
          .messageTooBig, limits: messages(upTo: 5)),
    reads("control frames do not count against the message limit", frame(0x02, [1, 2, 3]) + frame(0x89, "pingpong")
            + frame(0x80, [4, 5]),
          [.ping(bytes("pingpong")), .binary([1, 2, 3, 4, 5])], limits: messages(upTo: 5)),
]

// MARK: - Compressed messages and our close

private func compressed(
    _ name: String, _ input: [UInt8], _ events: [WebSocketEvent], _ error: WebSocketError? = nil,
    limits: WebSocketLimits = WebSocketLimits()
) -> ConnectionCase {
    ConnectionCase(
        name: name, input: input, limits: limits, compression: true, events: events, error: error,
        closeCode: error?.closeCode)
}

private func afterOurClose(_ name: String, _ input: [UInt8], _ events: [WebSocketEvent]) -> ConnectionCase {
    ConnectionCase(name: name, input: input, limits: messages(upTo: 4), closeFirst: true, events: events)
}

private let compressionCases: [ConnectionCase] = [
    compressed("a compressed text message", frame(0xC1, "Hello"), [.text("Hello")]),
    compressed("compressed fragments with a pong between", frame(0x42, [1, 2]) + frame(0x8a, []) + frame(0x80, [3]),
               [.pong([]), .binary([1, 2, 3])]),
    compressed("compressed at the size limit", frame(0xC2, [1, 2, 3, 4, 5]), [.binary([1, 2, 3, 4, 5])],
               limits: messages(upTo: 5)),
    compressed("compressed over the size limit, counted as it inflates", frame(0xC2, [1, 2, 3, 4, 5, 6]), [],
               .messageTooBig, limits: messages(upTo: 5)),
    compressed("invalid UTF-8 before the limit wins over the size", frame(0xC1, bytes("ab") + [0xFF] + bytes("cdef")),
               [], .invalidUTF8, limits: messages(upTo: 5)),
    compressed("the size wins over invalid UTF-8 after the limit", frame(0xC1, bytes("abcdef") + [0xFF]), [],
               .messageTooBig, limits: messages(upTo: 5)),
    compressed("a compressed text ending inside a scalar", frame(0xC1, hex("e2 82")), [], .invalidUTF8),
]

// The peer may still send what it sent before it saw our close (issue 28, item 5: fwcurl prints the echoes
// that arrive after the end of its input): messages are reported and checked as before; pings and pongs are not.
private let afterOurCloseCases: [ConnectionCase] = [
    afterOurClose("messages before the peer's close are reported", frame(0x81, "one") + frame(0x02, [1])
                  + frame(0x80, [2]) + frame(0x88, closePayload(1000)), [.text("one"), .binary([1, 2]), closed(1000)]),
    afterOurClose("pings and pongs are dropped", frame(0x89, "a") + frame(0x8a, "b") + frame(0x88, []), [closed(nil)]),
    ConnectionCase(
        name: "a message over the limit is still an error", input: frame(0x82, [1, 2, 3, 4, 5]),
        limits: messages(upTo: 4), closeFirst: true, events: [], error: .messageTooBig, closeCode: .messageTooBig),
    ConnectionCase(
        name: "invalid UTF-8 is still an error", input: frame(0x81, hex("ff")), closeFirst: true, events: [],
        error: .invalidUTF8, closeCode: .invalidFramePayloadData),
    ConnectionCase(
        name: "fragment order is still checked", input: frame(0x80, "x"), closeFirst: true, events: [],
        error: .unexpectedContinuation, closeCode: .protocolError),
    ConnectionCase(
        name: "the peer's close is still checked", input: frame(0x88, [3]), closeFirst: true, events: [],
        error: .invalidClosePayload, closeCode: .protocolError),
]

// MARK: - UTF-8

private let utf8Cases: [ConnectionCase] = [
    reads("two-, three- and four-byte scalars", frame(0x81, "é€𝄞"), [.text("é€𝄞")]),
    reads("U+10FFFF", frame(0x81, hex("f4 8f bf bf")), [.text("\u{10FFFF}")]),
    fails("a stray continuation byte", frame(0x81, hex("61 80")), .invalidUTF8, .invalidFramePayloadData),
    fails("0xFF", frame(0x81, hex("ff")), .invalidUTF8, .invalidFramePayloadData),
    fails("overlong two-byte NUL", frame(0x81, hex("c0 80")), .invalidUTF8, .invalidFramePayloadData),
    fails("overlong three-byte slash", frame(0x81, hex("e0 80 af")), .invalidUTF8, .invalidFramePayloadData),
    fails("overlong four-byte slash", frame(0x81, hex("f0 80 80 af")), .invalidUTF8, .invalidFramePayloadData),
    fails("surrogate U+D800", frame(0x81, hex("ed a0 80")), .invalidUTF8, .invalidFramePayloadData),
    fails("surrogate U+DFFF", frame(0x81, hex("ed bf bf")), .invalidUTF8, .invalidFramePayloadData),
    fails("U+110000", frame(0x81, hex("f4 90 80 80")), .invalidUTF8, .invalidFramePayloadData),
    fails("a five-byte form", frame(0x81, hex("f8 88 80 80 80")), .invalidUTF8, .invalidFramePayloadData),
    fails("a scalar cut by the message end", frame(0x81, hex("e2 82")), .invalidUTF8, .invalidFramePayloadData),
    fails("a scalar cut by the last fragment's end", frame(0x01, hex("f0 9d")) + frame(0x80, hex("84")),
          .invalidUTF8, .invalidFramePayloadData),
    fails("invalid byte in a later fragment", frame(0x01, hex("e2")) + frame(0x80, hex("28 a1")), .invalidUTF8,
          .invalidFramePayloadData),
    fails("reported before the frame ends", hex("81 0a 61 62 ff"), .invalidUTF8, .invalidFramePayloadData),
    fails("reported before the message ends", frame(0x01, "ok") + hex("00 05 ed a0"), .invalidUTF8,
          .invalidFramePayloadData),
    fails("a surrogate split across fragments",
          frame(0x01, hex("ed")) + frame(0x00, hex("a0")) + frame(0x80, hex("80")), .invalidUTF8,
          .invalidFramePayloadData),
    reads("binary messages are not UTF-8 checked", frame(0x82, hex("ff c0 80")), [.binary(hex("ff c0 80"))]),
]

/// Each scalar and each invalid sequence, split into two fragments at every point.
private let utf8SplitCases: [ConnectionCase] = {
    let valid: [(String, [UInt8])] = [
        ("é", hex("c3 a9")), ("€", hex("e2 82 ac")), ("𝄞", hex("f0 9d 84 9e")), ("U+10FFFF", hex("f4 8f bf bf")),
        ("U+E000", hex("ee 80 80")), ("U+D7FF", hex("ed 9f bf")),
    ]
    let invalid: [(String, [UInt8])] = [
        ("overlong é", hex("c1 a9")), ("overlong €", hex("e0 82 ac")), ("overlong 𝄞", hex("f0 8d 84 9e")),
        ("surrogate", hex("ed b0 80")), ("U+110000", hex("f4 90 80 80")), ("F5 lead", hex("f5 80 80 80")),
        ("missing continuation", hex("e2 28 a1")),
    ]
    var cases: [ConnectionCase] = []
    for (name, sequence) in valid + invalid {
        for cut in 1..<sequence.count {
            let input = frame(0x01, [0x61] + sequence[..<cut]) + frame(0x80, Array(sequence[cut...]) + [0x62])
            let name = "\(name) cut after byte \(cut)"
            let text = String(decoding: [0x61] + sequence + [0x62], as: UTF8.self)
            let isValid = valid.contains { $0.1 == sequence }
            cases.append(
                isValid
                    ? reads(name, input, [.text(text)])
                    : fails(name, input, .invalidUTF8, .invalidFramePayloadData))
        }
    }
    return cases
}()

// MARK: - Close frames

private let closeCases: [ConnectionCase] = [
    reads("an empty close", frame(0x88, []), [closed(nil)]),
    reads("a close with a code", frame(0x88, closePayload(1000)), [closed(1000)]),
    reads("a close with a code and a reason", frame(0x88, closePayload(1001, bytes("bye é"))), [closed(1001, "bye é")]),
    reads("a close between fragments drops the message", frame(0x01, "a") + frame(0x88, closePayload(1000)),
          [closed(1000)]),
    reads("bytes after a close are not read", frame(0x88, []) + frame(0x81, "late") + hex("83 00"), [closed(nil)]),
    reads("a close, then the peer's end of stream", frame(0x88, closePayload(1000)), [closed(1000)],
          endOfStream: true),
    fails("a one-byte close payload", frame(0x88, [0x03]), .invalidClosePayload, .protocolError),
    fails("a close reason that is not UTF-8", frame(0x88, closePayload(1000, hex("ff"))), .invalidCloseReason,
          .invalidFramePayloadData),
    fails("a close reason cut inside a scalar", frame(0x88, closePayload(1000, hex("e2 82"))), .invalidCloseReason,
          .invalidFramePayloadData),
    fails("a close with a 126-byte payload", hex("88 7e 00 7e"), .controlFrameTooLong, .protocolError),
] + [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999].map { code in
    reads("valid close code \(code)", frame(0x88, closePayload(code)), [closed(code)])
} + [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535].map { code in
    fails("invalid close code \(code)", frame(0x88, closePayload(code)), .invalidCloseCode, .protocolError)
}

// MARK: - End of stream

private let endOfStreamCases: [ConnectionCase] = [
    fails("end of stream with no close", [], .unexpectedEndOfStream, .abnormalClosure, endOfStream: true),
    fails("end of stream after a message", frame(0x81, "a"), .unexpectedEndOfStream, .abnormalClosure,
          after: [.text("a")], endOfStream: true),
    fails("end of stream inside a frame", hex("81 05 48"), .unexpectedEndOfStream, .abnormalClosure,
          endOfStream: true),
    fails("end of stream inside a fragmented message", frame(0x01, "a"), .unexpectedEndOfStream, .abnormalClosure,
          endOfStream: true),
]

@Suite struct WebSocketConnectionStateMachineTests {
    @Test(arguments: messageCases)
    func messages(_ testCase: ConnectionCase) {
        testCase.check()
    }

    @Test(arguments: compressionCases + afterOurCloseCases)
    func compressionAndOurClose(_ testCase: ConnectionCase) {
        testCase.check()
    }

    @Test(arguments: utf8Cases + utf8SplitCases)
    func utf8(_ testCase: ConnectionCase) {
        testCase.check()
    }

    @Test(arguments: closeCases)
    func closeFrames(_ testCase: ConnectionCase) {
        testCase.check()
    }

    @Test(arguments: endOfStreamCases)
    func endOfStream(_ testCase: ConnectionCase) {
        testCase.check()
    }
}

// MARK: - Close handshake

@Suite struct WebSocketCloseHandshakeTests {
    /// Pulls every event the machine has.
    private func drain(_ machine: inout WebSocketConnectionStateMachine) throws -> [WebSocketEvent] {
        var events: [WebSocketEvent] = []
        while let event = try machine.next() {
            events.append(event)
        }
        return events
    }

    @Test func weCloseFirstThenMessagesAndTheirCloseAreRead() throws {
        var machine = WebSocketConnectionStateMachine()
        #expect(machine.isOpen && !machine.isClosed)
        machine.feed(frame(0x01, "half"))
        #expect(try drain(&machine).isEmpty)
        let sent = machine.close(WebSocketCloseFrame(code: .goingAway, reason: "bye"))
        #expect(sent == WebSocketCloseFrame(code: .goingAway, reason: "bye"))
        #expect(!machine.isOpen && !machine.isClosed)
        #expect(machine.close(WebSocketCloseFrame(code: .normalClosure)) == nil)
        machine.feed(frame(0x80, "-and-whole") + frame(0x89, "p") + frame(0x8a, "q") + frame(0x82, [1]))
        #expect(try drain(&machine) == [.text("half-and-whole"), .binary([1])])
        machine.feed(frame(0x88, closePayload(1001)))
        #expect(try drain(&machine) == [closed(1001)])
        #expect(machine.isClosed && !machine.isOpen)
        #expect(machine.close(WebSocketCloseFrame(code: .normalClosure)) == nil)
        machine.feedEndOfStream()
        #expect(try machine.next() == nil)
    }

    @Test func framingIsStillCheckedAfterOurClose() throws {
        var machine = WebSocketConnectionStateMachine()
        _ = machine.close(WebSocketCloseFrame(code: .normalClosure))
        machine.feed(frame(0x80, "no message"))
        #expect(throws: WebSocketError.unexpectedContinuation) { try machine.next() }
        #expect(machine.close(WebSocketCloseFrame(code: .protocolError)) == nil, "a close was already sent")
    }

    @Test func thePeerClosesFirstAndItsCodeIsEchoedOnce() throws {
        var machine = WebSocketConnectionStateMachine()
        machine.feed(frame(0x88, closePayload(1000, bytes("done"))))
        #expect(try drain(&machine) == [closed(1000, "done")])
        #expect(!machine.isOpen && !machine.isClosed)
        let echo = machine.close(WebSocketCloseFrame(code: .goingAway, reason: "ignored"))
        #expect(echo == WebSocketCloseFrame(code: .normalClosure))
        #expect(machine.isClosed)
        #expect(machine.close(WebSocketCloseFrame(code: .goingAway)) == nil)
    }

    @Test func anEmptyCloseIsEchoedEmpty() throws {
        var machine = WebSocketConnectionStateMachine()
        machine.feed(frame(0x88, []))
        #expect(try drain(&machine) == [closed(nil)])
        #expect(machine.close(WebSocketCloseFrame(code: .normalClosure)) == WebSocketCloseFrame(code: nil))
    }

    @Test func endOfStreamAfterOurCloseIsPremature() {
        var machine = WebSocketConnectionStateMachine()
        _ = machine.close(WebSocketCloseFrame(code: .normalClosure))
        machine.feedEndOfStream()
        #expect(throws: WebSocketError.unexpectedEndOfStream) { try machine.next() }
        #expect(machine.close(WebSocketCloseFrame(code: .abnormalClosure)) == nil)
    }

    @Test func aProtocolErrorGetsOneCloseCarryingItsCode() throws {
        var machine = WebSocketConnectionStateMachine()
        machine.feed(frame(0x81, "ok") + hex("83 00"))
        #expect(try machine.next() == .text("ok"))
        let error = try #require(throws: WebSocketError.self) { try machine.next() }
        #expect(error == .reservedOpcode && error.closeCode == .protocolError)
        let close = machine.close(WebSocketCloseFrame(code: error.closeCode))
        #expect(close == WebSocketCloseFrame(code: .protocolError))
        #expect(machine.close(WebSocketCloseFrame(code: error.closeCode)) == nil)
        let buffered = machine.bufferedByteCount
        machine.feed(frame(0x81, "ignored"))
        #expect(machine.bufferedByteCount == buffered, "bytes fed after an error are ignored")
        #expect(throws: error) { try machine.next() }
    }

    /// Fuzzing finding (Fixtures/fuzz/crashers/websocket-decoder-close-after-rethrow): rethrowing the error
    /// forgot that a close had been sent, and close(_:) offered a second one.
    @Test func aProtocolErrorAfterOurCloseGetsNoSecondCloseEvenOnceRethrown() {
        var machine = WebSocketConnectionStateMachine()
        _ = machine.close(WebSocketCloseFrame(code: .normalClosure))
        machine.feed(hex("ff"))
        #expect(throws: WebSocketError.reservedOpcode) { try machine.next() }
        #expect(throws: WebSocketError.reservedOpcode) { try machine.next() }
        #expect(machine.close(WebSocketCloseFrame(code: .protocolError)) == nil)
    }

    @Test func aPrematureEndSendsNoClose() {
        var machine = WebSocketConnectionStateMachine()
        machine.feedEndOfStream()
        #expect(throws: WebSocketError.unexpectedEndOfStream) { try machine.next() }
        #expect(machine.close(WebSocketCloseFrame(code: .abnormalClosure)) == nil)
    }

    @Test func everyFedByteIsDecodedWhenEventsAreDrained() throws {
        var machine = WebSocketConnectionStateMachine()
        machine.feed(frame(0x81, "one") + hex("82 7e 01"))
        machine.feed([0x00] + [UInt8](repeating: 1, count: 100))
        #expect(machine.bufferedByteCount == 109)
        #expect(try drain(&machine) == [.text("one")])
        #expect(machine.bufferedByteCount == 0)
        machine.feed([UInt8](repeating: 2, count: 156))
        #expect(try drain(&machine) == [.binary([UInt8](repeating: 1, count: 100) + [UInt8](repeating: 2, count: 156))])
    }
}
