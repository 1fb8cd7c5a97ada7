// Driving a WebSocketConnectionStateMachine over a peer's byte stream the way a connection would: send a
// close first when the input says so, feed the bytes (whole, in two pieces, or in small pieces), feed end
// of stream, and pull events until the machine waits. The run checks what only a run can see:
//
// - the run ends in the peer's close or a thrown WebSocketError: after end of stream the machine has
//   reported `.closeReceived` (and nothing after it) or thrown;
// - each event is well-formed: messages within `maxMessageSize`, pings and pongs within 125 bytes, a
//   close with no code or one valid in a close frame and a reason of at most 123 bytes;
// - every error's close code is 1002, 1007 or 1009, or 1006 exactly for a premature end; errors are
//   sticky and bytes fed after one are not buffered;
// - `close(_:)` answers as documented: the echo of the peer's code once after its close (none when we
//   closed first), one close after a protocol error unless we closed first or the stream ended early;
// - `next()` terminates: every event but the last consumes at least a 2-byte header, so all calls of a
//   run together stay under stream size + 16 (a hang inside one call is libFuzzer's -timeout).

import FWWire

// MARK: - Trace

/// What one run reported: the events in order, then the error if the stream broke a rule.
public struct WebSocketTrace: Equatable, Sendable {
    /// The events in order.
    public var events: [WebSocketEvent] = []
    /// The error thrown, or nil when the run ended with the peer's close.
    public var error: WebSocketError?
}

// MARK: - Driver

/// Runs a state machine over a stream with the checks above.
struct WebSocketStreamDriver {
    var input: WebSocketFuzzInput

    /// Runs over the stream cut into pieces at `cuts` (offsets in increasing order); then end of stream.
    func run(cuts: [Int]) -> WebSocketTrace {
        var run = WebSocketRun(input: input)
        input.stream.withUnsafeBytes { bytes in
            var start = 0
            for end in cuts + [bytes.count] where end >= start {
                run.feed(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                start = end
            }
        }
        return run.finish()
    }
}

// MARK: - One run

/// The mutable state of one run.
private struct WebSocketRun {
    private let input: WebSocketFuzzInput
    private var machine: WebSocketConnectionStateMachine
    private var trace = WebSocketTrace()
    private var callBudget: Int

    init(input: WebSocketFuzzInput) {
        self.input = input
        machine = WebSocketConnectionStateMachine(
            role: input.role, limits: input.limits, inflater: input.compression ? PassThroughInflater() : nil)
        callBudget = input.stream.count + 16
        if input.closeFirst {
            let sent = machine.close(WebSocketCloseFrame(code: .normalClosure))
            fuzzCheck(
                sent == WebSocketCloseFrame(code: .normalClosure),
                "close(_:) while open returned \(String(describing: sent))")
            fuzzCheck(!machine.isOpen && !machine.isClosed, "not closing after close(_:)")
        }
    }

    /// Feeds one piece and pulls every event it completes.
    mutating func feed(_ piece: UnsafeRawBufferPointer) {
        let bufferedBefore = machine.bufferedByteCount
        machine.feed(piece)
        guard trace.error == nil, !closeReceived else {
            fuzzCheck(machine.bufferedByteCount == bufferedBefore, "bytes buffered after the end of reading")
            return
        }
        drain()
    }

    /// Feeds end of stream, then checks how the run ended and what `close(_:)` answers.
    mutating func finish() -> WebSocketTrace {
        machine.feedEndOfStream()
        if trace.error == nil, !closeReceived {
            drain()
        }
        if let error = trace.error {
            checkError(error)
        } else if case .closeReceived(let received)? = trace.events.last {
            checkEcho(of: received)
        } else {
            fuzzFailure("the run ended with neither the peer's close nor an error: \(trace.events.suffix(4))")
        }
        return trace
    }

    private var closeReceived: Bool {
        if case .closeReceived? = trace.events.last {
            return true
        }
        return false
    }

    // MARK: Pulling events

    private mutating func drain() {
        while true {
            callBudget -= 1
            fuzzCheck(callBudget >= 0, "next() keeps returning events: \(trace.events.suffix(4))")
            do {
                guard let event = try machine.next() else { return }
                check(event)
                trace.events.append(event)
                if case .closeReceived = event {
                    let after = try machine.next()
                    fuzzCheck(after == nil, "an event after the peer's close: \(String(describing: after))")
                    return
                }
            } catch {
                trace.error = error
                do {
                    let event = try machine.next()
                    fuzzFailure("next() after error \(error) returned \(String(describing: event))")
                } catch {
                    fuzzCheck(
                        error == trace.error, "next() after error \(String(describing: trace.error)) threw \(error)")
                }
                return
            }
        }
    }

    private func check(_ event: WebSocketEvent) {
        let maxMessage = input.limits.maxMessageSize
        switch event {
        case .text(let text):
            fuzzCheck(text.utf8.count <= maxMessage, "a text message of \(text.utf8.count) bytes")
        case .binary(let bytes):
            fuzzCheck(bytes.count <= maxMessage, "a binary message of \(bytes.count) bytes")
        case .ping(let payload), .pong(let payload):
            fuzzCheck(payload.count <= 125, "a control payload of \(payload.count) bytes")
        case .closeReceived(let frame):
            fuzzCheck(frame.code?.isValidInCloseFrame ?? frame.reason.isEmpty, "close \(frame)")
            fuzzCheck(frame.reason.utf8.count <= 123, "a close reason of \(frame.reason.utf8.count) bytes")
        }
    }

    // MARK: Endings

    private mutating func checkError(_ error: WebSocketError) {
        let codes: Set<UInt16> = error.isPrematureEnd ? [1006] : [1002, 1007, 1009]
        fuzzCheck(codes.contains(error.closeCode.rawValue), "\(error) carries close code \(error.closeCode)")
        fuzzCheck(error.isPrematureEnd == (error == .unexpectedEndOfStream), "\(error) and isPrematureEnd")
        let reply = machine.close(WebSocketCloseFrame(code: error.closeCode))
        let expected = input.closeFirst || error.isPrematureEnd ? nil : WebSocketCloseFrame(code: error.closeCode)
        fuzzCheck(reply == expected, "close(_:) after \(error) returned \(String(describing: reply))")
        fuzzCheck(machine.close(WebSocketCloseFrame(code: .normalClosure)) == nil, "a second close after \(error)")
    }

    private mutating func checkEcho(of received: WebSocketCloseFrame) {
        let reply = machine.close(WebSocketCloseFrame(code: .goingAway, reason: "ignored"))
        let expected = input.closeFirst ? nil : WebSocketCloseFrame(code: received.code)
        fuzzCheck(reply == expected, "close(_:) after the peer's \(received) returned \(String(describing: reply))")
        fuzzCheck(machine.isClosed && !machine.isOpen, "not closed after the close handshake")
        fuzzCheck(machine.close(WebSocketCloseFrame(code: .normalClosure)) == nil, "a second close")
    }
}
