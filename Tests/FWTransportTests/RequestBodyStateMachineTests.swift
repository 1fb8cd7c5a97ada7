import Testing
@testable import FWTransport

// The body machine alone: slicing, asking, framing and length checks, with no socket.
@Suite struct RequestBodyStateMachineTests {
    private static func stream(length: Int64?) -> TransportRequestBody {
        .stream(TransportBodyStream(length: length) { nil })
    }

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func noBodyAndAnEmptyBodyAreCompleteAtOnce() {
        for body in [nil, TransportRequestBody.bytes([])] {
            var machine = RequestBodyStateMachine(body: body, waitsForContinue: true)
            #expect(machine.isComplete)
            #expect(machine.nextPiece() == .none)
        }
    }

    @Test func anInMemoryBodyGoesOutInSlices() {
        let size = RequestBodyStateMachine.pieceSize
        let body = (0..<(2 * size + 10)).map { UInt8(truncatingIfNeeded: $0) }
        var machine = RequestBodyStateMachine(body: .bytes(body), waitsForContinue: false)
        var sent: [UInt8] = []
        var sizes: [Int] = []
        while case .write(let slice, let payload) = machine.nextPiece() {
            #expect(payload == slice.count)
            sizes.append(slice.count)
            sent += slice
        }
        #expect(sizes == [size, size, 10])
        #expect(sent == body)
        #expect(machine.isComplete)
    }

    @Test func aBodyWaitsForContinue() {
        var machine = RequestBodyStateMachine(body: .bytes(Self.bytes("abc")), waitsForContinue: true)
        #expect(machine.nextPiece() == .none)
        machine.continueReceived()
        #expect(machine.nextPiece() == .write(Self.bytes("abc"), payload: 3))
        #expect(machine.isComplete)
        machine.continueReceived()
        #expect(machine.nextPiece() == .none)
    }

    @Test func aStreamOfKnownLengthIsAskedForWhatItStillNeedsAndSentUnframed() {
        var machine = RequestBodyStateMachine(body: Self.stream(length: 7), waitsForContinue: false)
        #expect(machine.nextPiece() == .produce(maxLength: 7))
        #expect(machine.nextPiece() == .none, "one produce outstanding at most")
        #expect(machine.produced(Self.bytes("abcd")) == .write(Self.bytes("abcd"), payload: 4))
        #expect(machine.nextPiece() == .produce(maxLength: 3))
        #expect(!machine.isComplete)
        #expect(machine.produced(Self.bytes("efg")) == .write(Self.bytes("efg"), payload: 3))
        // Fully framed now; the producer is still asked for its end (a longer stream fails).
        #expect(machine.isComplete)
        #expect(machine.nextPiece() == .produce(maxLength: RequestBodyStateMachine.pieceSize))
        #expect(machine.isComplete)
        #expect(machine.finished() == .finish([]))
        #expect(machine.isComplete)
    }

    @Test func aStreamOfUnknownLengthIsChunked() {
        var machine = RequestBodyStateMachine(body: Self.stream(length: nil), waitsForContinue: false)
        #expect(machine.nextPiece() == .produce(maxLength: RequestBodyStateMachine.pieceSize))
        #expect(machine.produced(Self.bytes("hello")) == .write(Self.bytes("5\r\nhello\r\n"), payload: 5))
        #expect(machine.nextPiece() == .produce(maxLength: RequestBodyStateMachine.pieceSize))
        let long = [UInt8](repeating: 0x78, count: 26)
        #expect(machine.produced(long) == .write(Self.bytes("1a\r\n") + long + Self.bytes("\r\n"), payload: 26))
        _ = machine.nextPiece()
        #expect(machine.finished() == .finish(Self.bytes("0\r\n\r\n")))
        #expect(machine.isComplete)
    }

    /// A producer answer that must fail the body, after `before` pieces were accepted.
    struct Violation: CustomTestStringConvertible, Sendable {
        let name: String
        let length: Int64?
        let before: [String]
        let answer: Answer
        enum Answer: Sendable {
            case piece(Int)
            case finish
            case fail
        }
        var testDescription: String { name }
    }

    @Test(arguments: [
        Violation(name: "longer than declared", length: 5, before: ["hello"], answer: .piece(1)),
        Violation(name: "more than the length still needs", length: 5, before: ["abc"], answer: .piece(3)),
        Violation(name: "shorter than declared", length: 10, before: ["hello"], answer: .finish),
        Violation(name: "empty piece", length: nil, before: [], answer: .piece(0)),
        Violation(name: "more than asked", length: nil, before: [], answer: .piece(64 * 1024 + 1)),
        Violation(name: "producer failure", length: nil, before: ["x"], answer: .fail),
    ])
    func aBrokenOrFailingStreamFailsTheBodyBeforeQueueingTheOffendingBytes(_ violation: Violation) {
        var machine = RequestBodyStateMachine(body: Self.stream(length: violation.length), waitsForContinue: false)
        for piece in violation.before {
            guard case .produce = machine.nextPiece() else {
                Issue.record("expected a produce")
                return
            }
            guard case .write = machine.produced(Self.bytes(piece)) else {
                Issue.record("expected a write")
                return
            }
        }
        guard case .produce = machine.nextPiece() else {
            Issue.record("expected a produce")
            return
        }
        let action: RequestBodyStateMachine.Action
        switch violation.answer {
        case .piece(let count):
            action = machine.produced([UInt8](repeating: 0x41, count: count))
        case .finish:
            action = machine.finished()
        case .fail:
            action = machine.failed("disk on fire")
        }
        guard case .fail(let reason) = action else {
            Issue.record("expected a failure, got \(action)")
            return
        }
        #expect(!reason.isEmpty)
        #expect(!machine.isComplete)
        #expect(machine.nextPiece() == .none)
    }

    @Test func stopEndsABodyInProgressButNotAFullyFramedOne() {
        var streaming = RequestBodyStateMachine(body: Self.stream(length: nil), waitsForContinue: true)
        streaming.stop()
        streaming.continueReceived()
        #expect(streaming.nextPiece() == .none)
        #expect(!streaming.isComplete)

        var complete = RequestBodyStateMachine(body: .bytes(Self.bytes("a")), waitsForContinue: false)
        _ = complete.nextPiece()
        complete.stop()
        #expect(complete.isComplete)

        // Every declared byte handed out, the end check pending: stopping ends the check, not the body.
        var framed = RequestBodyStateMachine(body: Self.stream(length: 1), waitsForContinue: false)
        _ = framed.nextPiece()
        _ = framed.produced([0x61])
        #expect(framed.nextPiece() == .produce(maxLength: RequestBodyStateMachine.pieceSize))
        framed.stop()
        #expect(framed.isComplete)
        #expect(framed.nextPiece() == .none)
    }
}
