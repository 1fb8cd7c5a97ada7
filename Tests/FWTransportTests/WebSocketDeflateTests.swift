// permessage-deflate over zlib: RFC 7692 §7.2.3's examples byte for byte; messages Python's zlib
// compressed (fixtures below) inflated with and without context takeover and with a 512-byte window;
// Python inflating what we compress and compressing what we inflate, live; round trips over every
// window size; a deflate bomb stopped at the message limit; and compressed frames through the state
// machine, fed whole, byte by byte and split at every offset.
//
// The Python fixtures were made with python3's zlib (the system zlib 1.2/1.3) by:
//
//   c = zlib.compressobj(6, zlib.DEFLATED, wbits)           # wbits -15, or -9 for the 512-byte window
//   for i in (1, 2, 3):                                      # a fresh compressobj per message: no takeover
//       m = ('{"op":"subscribe","channel":"ticker","id":%d}' % i).encode()
//       print((c.compress(m) + c.flush(zlib.Z_SYNC_FLUSH))[:-4].hex())

import FWWire
import Foundation
import TestSupport
import Testing

@testable import FWTransport

// MARK: - Fixtures

private let tickerMessages = (1...3).map { Array("{\"op\":\"subscribe\",\"channel\":\"ticker\",\"id\":\($0)}".utf8) }
private let tickerFirst = "aa56ca2f50b2522a2e4d2a4e2eca4c4a55d2514ace48cccb4bcd018a96642667a7160185325394ac"
/// Python, context takeover, 32 KiB window (the same bytes with a 512-byte window: the messages are short).
private let pythonTakeover = [tickerFirst + "0c6b0100", "aa265aad512d00", "225ead712d00"]
/// Python, a fresh compressor per message.
private let pythonNoTakeover = [tickerFirst + "0c6b0100", tickerFirst + "8c6a0100", tickerFirst + "8c6b0100"]

private func parameters(
    serverNoTakeover: Bool = false, clientNoTakeover: Bool = false, serverBits: Int = 15, clientBits: Int = 15
) -> WebSocketDeflateParameters {
    WebSocketDeflateParameters(
        serverNoContextTakeover: serverNoTakeover, clientNoContextTakeover: clientNoTakeover,
        serverMaxWindowBits: serverBits, clientMaxWindowBits: clientBits)
}

// MARK: - Helpers

extension WebSocketDeflate.Inflater {
    /// Inflates one message given in `pieces`, collecting the output; throws `messageTooBig` past `limit`.
    fileprivate func message(_ pieces: [[UInt8]], limit: Int = .max) throws(WebSocketError) -> [UInt8] {
        var output: [UInt8] = []
        let collect = { (slice: UnsafeRawBufferPointer) throws(WebSocketError) in
            guard slice.count <= limit - output.count else { throw .messageTooBig }
            output += slice
        }
        for piece in pieces {
            var failure: WebSocketError?
            piece.withUnsafeBytes { bytes in
                do throws(WebSocketError) { try inflate(bytes, output: collect) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try finishMessage(output: collect)
        return output
    }
}

extension WebSocketDeflate.Deflater {
    /// `message` compressed.
    fileprivate func compress(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { compress($0) }
    }
}

private func hexBytes(_ text: String) -> [UInt8] {
    Hex.decode(Array(text.utf8))
}

private func inflater(_ parameters: WebSocketDeflateParameters = WebSocketDeflateParameters()) throws
    -> WebSocketDeflate.Inflater
{
    try #require(WebSocketDeflate.Inflater(parameters: parameters))
}

private func deflater(_ parameters: WebSocketDeflateParameters = WebSocketDeflateParameters()) throws
    -> WebSocketDeflate.Deflater
{
    try #require(WebSocketDeflate.Deflater(parameters: parameters))
}

/// Compressible test data: lines of text with numbers, or random bytes (incompressible).
private func sample(_ count: Int, compressible: Bool, using random: inout SplitMix64) -> [UInt8] {
    guard compressible else { return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
    var text: [UInt8] = []
    while text.count < count {
        text += Array("line \(UInt16.random(in: 0...999, using: &random)): the quick brown fox\n".utf8)
    }
    return Array(text.prefix(count))
}

@Suite struct WebSocketDeflateTests {
    // MARK: RFC 7692 §7.2.3

    @Test(arguments: [
        ("7.2.3.1 a message in one compressed block", ["f248cdc9c90700"]),
        ("7.2.3.1 the same message in two frames", ["f248cd", "c9c90700"]),
        ("7.2.3.3 a stored block", ["000500faff48656c6c6f00"]),
        ("7.2.3.4 a block with BFINAL set", ["f348cdc9c9070000"]),
        ("7.2.3.5 two blocks", ["f24805000000ffffcac9c90700"]),
    ])
    func rfcExamplesInflateToHello(_ name: String, _ pieces: [String]) throws {
        #expect(try inflater().message(pieces.map(hexBytes)) == Array("Hello".utf8), "\(name)")
    }

    @Test func rfcExampleOfContextTakeover() throws {
        let receiver = try inflater()
        #expect(try receiver.message([hexBytes("f248cdc9c90700")]) == Array("Hello".utf8))
        #expect(try receiver.message([hexBytes("f200110000")]) == Array("Hello".utf8))
    }

    @Test func weCompressLikeTheRFCExamples() throws {
        let hello = Array("Hello".utf8)
        let keeping = try deflater()
        #expect(keeping.compress(hello) == hexBytes("f248cdc9c90700"))
        #expect(keeping.compress(hello) == hexBytes("f200110000"), "context takeover (§7.2.3.2)")
        let resetting = try deflater(parameters(clientNoTakeover: true))
        #expect(resetting.compress(hello) == hexBytes("f248cdc9c90700"))
        #expect(resetting.compress(hello) == hexBytes("f248cdc9c90700"))
        #expect(keeping.compress([]) == [0x00], "an empty message (§7.2.3.6)")
        #expect(try deflater().compress([]) == [0x00], "an empty first message")
    }

    @Test func anEmptyMessageKeepsTheContext() throws {
        let sender = try deflater()
        let receiver = try inflater()
        for message in [Array("Hello".utf8), [], Array("Hello".utf8), [], [], Array("Hello!".utf8)] {
            let compressed = sender.compress(message)
            #expect(compressed.count <= max(message.count, 7))
            #expect(try receiver.message([compressed]) == message)
        }
    }

    // MARK: Python's zlib

    @Test func pythonMessagesWithContextTakeover() throws {
        for bits in [15, 9, 8] {
            let receiver = try inflater(parameters(serverBits: bits))
            for (compressed, message) in zip(pythonTakeover, tickerMessages) {
                #expect(try receiver.message([hexBytes(compressed)]) == message, "window bits \(bits)")
            }
        }
    }

    @Test func pythonMessagesWithoutContextTakeover() throws {
        let receiver = try inflater(parameters(serverNoTakeover: true))
        for (compressed, message) in zip(pythonNoTakeover, tickerMessages) {
            #expect(try receiver.message([hexBytes(compressed)]) == message)
        }
    }

    @Test func piecesOfEverySizeInflateLikeTheWhole() throws {
        let compressed = hexBytes(pythonTakeover[0])
        for cut in 0...compressed.count {
            let pieces = [Array(compressed[..<cut]), Array(compressed[cut...])]
            #expect(try inflater().message(pieces) == tickerMessages[0], "cut at \(cut)")
        }
        #expect(try inflater().message(compressed.map { [$0] }) == tickerMessages[0])
    }

    @Test(.timeLimit(.minutes(1)))
    func pythonInflatesWhatWeCompressAndWeInflateWhatItCompresses() throws {
        var random = SplitMix64(seed: 7692)
        let messages = [[], Array("Hello".utf8), sample(200_000, compressible: true, using: &random),
                        sample(70_000, compressible: false, using: &random)]
            + (0..<20).map { sample(Int($0) * 997, compressible: $0 % 3 != 0, using: &random) }
        for (bits, takeover) in [(15, true), (15, false), (9, true), (11, false)] {
            let ours = try deflater(parameters(clientNoTakeover: !takeover, clientBits: bits))
            let inflated = try PythonZlib.run("inflate", bits: bits, takeover: takeover, messages.map(ours.compress))
            #expect(inflated == messages, "Python inflating ours, window bits \(bits), takeover \(takeover)")

            let compressed = try PythonZlib.run("deflate", bits: bits, takeover: takeover, messages)
            let receiver = try inflater(parameters(serverNoTakeover: !takeover, serverBits: bits))
            for (payload, message) in zip(compressed, messages) {
                #expect(try receiver.message([payload]) == message, "ours inflating Python's, \(bits), \(takeover)")
            }
        }
    }

    // MARK: Round trips

    @Test(arguments: [9, 10, 12, 15])
    func roundTrips(_ bits: Int) throws {
        var random = SplitMix64(seed: UInt64(bits))
        for takeover in [true, false] {
            let sender = try deflater(parameters(clientNoTakeover: !takeover, clientBits: bits))
            let receiver = try inflater(parameters(serverNoTakeover: !takeover, serverBits: bits))
            for round in 0..<30 {
                let message = sample(Int.random(in: 0...5000, using: &random), compressible: round % 4 != 0,
                                     using: &random)
                let compressed = sender.compress(message)
                let cut = Int.random(in: 0...compressed.count, using: &random)
                #expect(try receiver.message([Array(compressed[..<cut]), Array(compressed[cut...])]) == message)
            }
        }
    }

    @Test func aWindowOf256BytesMeansSendingUncompressed() {
        #expect(WebSocketDeflate.Deflater(parameters: parameters(clientBits: 8)) == nil)
        #expect(WebSocketDeflate.Inflater(parameters: parameters(serverBits: 8)) != nil)
    }

    // MARK: Bad data and bombs

    @Test(arguments: [
        ("a reserved block type", "ff"), ("a stored block with a bad length", "000500ffff48656c6c6f"),
        ("a message cut inside a block", "f248cdc9"), ("a distance before the first byte", "020200"),
    ])
    func corruptMessagesAreInvalidData(_ name: String, _ compressed: String) throws {
        #expect(throws: WebSocketError.invalidCompressedData, "\(name)") {
            try inflater().message([hexBytes(compressed)])
        }
    }

    @Test func aDeflateBombStopsOneSliceAfterTheLimit() throws {
        // 64 MiB of zeros as one message: 1 MiB compressed 64 times with context takeover, each flush's tail
        // put back between the pieces (a valid deflate stream of about 64 KiB).
        let zeros = [UInt8](repeating: 0, count: 1024 * 1024)
        let sender = try deflater()
        var bomb = sender.compress(zeros)
        for _ in 1..<64 {
            bomb += WebSocketDeflate.tail + sender.compress(zeros)
        }
        #expect(bomb.count < 100_000)
        var produced = 0
        var slices = 0
        let receiver = try inflater()
        let limit = 1024 * 1024
        #expect(throws: WebSocketError.messageTooBig) {
            try bomb.withUnsafeBytes { bytes in
                try receiver.inflate(bytes) { (slice) throws(WebSocketError) in
                    #expect(slice.count <= WebSocketDeflate.sliceSize)
                    slices += 1
                    produced += slice.count
                    if produced > limit { throw .messageTooBig }
                }
            }
        }
        #expect(produced <= limit + WebSocketDeflate.sliceSize)
        #expect(slices == (produced + WebSocketDeflate.sliceSize - 1) / WebSocketDeflate.sliceSize)
    }
}

// MARK: - Through the state machine

/// Counts what the inflater it wraps produces, to see how far a bomb got.
private final class CountingInflater: WebSocketMessageInflater {
    let inflater: WebSocketDeflate.Inflater
    var produced = 0

    init(_ inflater: WebSocketDeflate.Inflater) {
        self.inflater = inflater
    }

    func inflate(
        _ compressed: UnsafeRawBufferPointer,
        output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void
    ) throws(WebSocketError) {
        try inflater.inflate(compressed) { (slice) throws(WebSocketError) in
            produced += slice.count
            try output(slice)
        }
    }

    func finishMessage(output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void) throws(WebSocketError) {
        try inflater.finishMessage { (slice) throws(WebSocketError) in
            produced += slice.count
            try output(slice)
        }
    }
}

/// What a state machine with a fresh inflater reports for `chunks`: the events, then the error if any.
private func receive(
    _ chunks: [[UInt8]], role: WebSocketRole = .client, limits: WebSocketLimits = WebSocketLimits(),
    counter: CountingInflater? = nil
) throws -> ([WebSocketEvent], WebSocketError?) {
    let inflater = try counter ?? CountingInflater(inflater())
    var machine = WebSocketConnectionStateMachine(role: role, limits: limits, inflater: inflater)
    var events: [WebSocketEvent] = []
    do {
        for chunk in chunks {
            machine.feed(chunk)
            while let event = try machine.next() {
                events.append(event)
            }
        }
    } catch {
        return (events, error)
    }
    return (events, nil)
}

/// A frame: first byte, then the payload with its 7-bit length.
private func frame(_ first: UInt8, _ payload: [UInt8]) -> [UInt8] {
    precondition(payload.count < 126, "test frames are short")
    return [first, UInt8(payload.count)] + payload
}

@Suite struct WebSocketDeflateStateMachineTests {
    private static let hello = hexBytes("f248cdc9c90700")

    /// Compressed-message cases: wire bytes, the events, the error.
    private static let cases: [(String, [UInt8], [WebSocketEvent], WebSocketError?)] = [
        ("a compressed text message", frame(0xC1, hello), [.text("Hello")], nil),
        ("a compressed binary message", frame(0xC2, hello), [.binary(Array("Hello".utf8))], nil),
        ("compressed fragments with a ping between",
         frame(0x41, Array(hello[..<3])) + frame(0x89, [1]) + frame(0x80, Array(hello[3...])),
         [.ping([1]), .text("Hello")], nil),
        ("context taken over between messages", frame(0xC1, hello) + frame(0xC1, hexBytes("f200110000")),
         [.text("Hello"), .text("Hello")], nil),
        ("an uncompressed message between compressed ones",
         frame(0xC1, hello) + frame(0x81, Array("plain".utf8)) + frame(0xC1, hexBytes("f200110000")),
         [.text("Hello"), .text("plain"), .text("Hello")], nil),
        ("Python's messages", pythonTakeover.flatMap { frame(0xC1, hexBytes($0)) },
         tickerMessages.map { .text(String(decoding: $0, as: UTF8.self)) }, nil),
        ("corrupt compressed data", frame(0xC1, [0xFF]), [], .invalidCompressedData),
        ("compressed text that is not UTF-8", frame(0xC1, hexBytes("faff0f00")), [], .invalidUTF8),
        ("RSV1 on a continuation", frame(0x41, Array(hello[..<3])) + frame(0xC0, Array(hello[3...])), [],
         .reservedBitsSet),
    ]

    @Test func compressedMessagesFedEveryWay() throws {
        for (name, wire, events, error) in Self.cases {
            var ways = [("whole", [wire]), ("byte by byte", wire.map { [$0] })]
            ways += (0...wire.count).map { ("split at \($0)", [Array(wire[..<$0]), Array(wire[$0...])]) }
            for (way, chunks) in ways {
                let outcome = try receive(chunks)
                #expect(outcome.0 == events && outcome.1 == error, "\(name), \(way): \(outcome)")
            }
        }
        #expect(WebSocketError.invalidCompressedData.closeCode == .invalidFramePayloadData)
    }

    @Test func maskedCompressedMessagesReadByAServer() throws {
        var encoder = WebSocketFrameEncoder(role: .client, maskingKeys: SplitMix64(seed: 9))
        let sender = try deflater()
        var wire: [UInt8] = []
        var random = SplitMix64(seed: 10)
        let messages = (0..<5).map { sample(3000 * $0, compressible: true, using: &random) }
        for message in messages {
            sender.compress(message).withUnsafeBytes {
                encoder.encodeMessage(.text, payload: $0, isCompressed: true, maxFramePayload: 500, into: &wire)
            }
        }
        let outcome = try receive([wire], role: .server)
        #expect(outcome.0 == messages.map { .text(String(decoding: $0, as: UTF8.self)) })
        #expect(outcome.1 == nil)
    }

    @Test func aDeflateBombEndsWith1009OneSliceAfterTheLimit() throws {
        let zeros = [UInt8](repeating: 0, count: 1024 * 1024)
        let sender = try deflater()
        var bomb = sender.compress(zeros)
        for _ in 1..<64 {
            bomb += WebSocketDeflate.tail + sender.compress(zeros)
        }
        var wire: [UInt8] = []
        var encoder = WebSocketFrameEncoder(role: .server)
        bomb.withUnsafeBytes { encoder.encodeMessage(.binary, payload: $0, isCompressed: true, into: &wire) }
        var limits = WebSocketLimits()
        limits.maxMessageSize = 1024 * 1024
        let counter = try CountingInflater(inflater())
        let outcome = try receive([wire], limits: limits, counter: counter)
        #expect(outcome.0.isEmpty)
        #expect(outcome.1 == .messageTooBig && outcome.1?.closeCode == .messageTooBig)
        #expect(counter.produced <= limits.maxMessageSize + WebSocketDeflate.sliceSize, "\(counter.produced)")
    }
}
