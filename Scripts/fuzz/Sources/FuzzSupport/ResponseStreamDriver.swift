// Driving an HTTPResponseParser over a server's byte stream the way a connection would: expect a response,
// feed the bytes (whole, or in two pieces), feed end of stream, and pull events until the parser waits.
// With pipelining, every `.end` is followed by another `expectResponse` while bytes remain, buffered or
// still to be fed. Every event goes through a ResponseEventChecker; the run itself checks what only the
// run can see:
//
// - each run ends in a complete message or a thrown HTTPParseError: after end of stream the parser is
//   idle or has thrown, never waiting for more;
// - `.end` leaves the parser idle;
// - nothing after an error: `next()` rethrows the same error and bytes fed later are not buffered;
// - `next()` terminates: all calls of a run together stay under 2 × stream size + 16 (every event but
//   `.end` consumes a byte, and a response ends at most once), a hang inside one call is libFuzzer's
//   -timeout.

import FWWire

// MARK: - Trace

/// What one run reported: the events (consecutive `.body` events joined), the error, and the bytes left.
public struct ResponseTrace: Equatable, Sendable {
    /// The events in order; a body split over several `.body` events appears as one.
    public var events: [HTTPResponseEvent] = []
    /// The error the parser threw, or nil when every expected response ended.
    public var error: HTTPParseError?
    /// Bytes still buffered in the parser when the run stopped.
    public var unconsumedByteCount = 0

    mutating func append(_ event: HTTPResponseEvent) {
        if case .body(let more) = event, case .body(let earlier)? = events.last {
            events[events.count - 1] = .body(earlier + more)
        } else {
            events.append(event)
        }
    }
}

// MARK: - Driver

/// Runs a parser over a byte stream with the checks above.
struct ResponseStreamDriver {
    /// The method of the request the first response answers.
    var firstMethod: String
    /// The method of the requests later responses answer.
    var laterMethod: String
    var limits: HTTPLimits
    /// True to expect another response after each `.end` while bytes remain; false to expect one only.
    var pipelined: Bool

    /// Runs over `stream`, fed whole or, with `splitOffset`, as two pieces cut there; then end of stream.
    func run(_ stream: [UInt8], splitOffset: Int? = nil) -> ResponseTrace {
        var run = Run(driver: self, byteCount: stream.count)
        stream.withUnsafeBytes { bytes in
            let cut = splitOffset ?? bytes.count
            run.feed(UnsafeRawBufferPointer(rebasing: bytes[..<cut]), isLast: cut == bytes.count)
            if cut < bytes.count {
                run.feed(UnsafeRawBufferPointer(rebasing: bytes[cut...]), isLast: true)
            }
        }
        return run.finish()
    }
}

// MARK: - One run

/// The mutable state of one run.
private struct Run {
    private let driver: ResponseStreamDriver
    private var parser: HTTPResponseParser
    private var checker: ResponseEventChecker
    private var trace = ResponseTrace()
    /// Stream bytes not fed yet.
    private var unfed: Int
    private var endOfStreamFed = false
    /// Calls of `next()` left before the run counts as not terminating.
    private var callBudget: Int

    init(driver: ResponseStreamDriver, byteCount: Int) {
        self.driver = driver
        parser = HTTPResponseParser(limits: driver.limits)
        parser.expectResponse(requestMethod: driver.firstMethod)
        checker = ResponseEventChecker(requestMethod: driver.firstMethod, limits: driver.limits)
        unfed = byteCount
        callBudget = 2 * byteCount + 16
    }

    /// Feeds one piece (then end of stream when `isLast`) and pulls every event it completes.
    mutating func feed(_ piece: UnsafeRawBufferPointer, isLast: Bool) {
        let bufferedBefore = parser.bufferedByteCount
        parser.feed(piece)
        unfed -= piece.count
        if isLast {
            parser.feedEndOfStream()
            endOfStreamFed = true
        }
        if let error = trace.error {
            fuzzCheck(parser.bufferedByteCount == bufferedBefore, "bytes buffered after error \(error)")
            checkSticky(error)
        } else {
            drain()
        }
    }

    /// The trace, after the checks that need the whole run.
    mutating func finish() -> ResponseTrace {
        fuzzCheck(endOfStreamFed && unfed == 0, "run finished before the whole stream was fed")
        if trace.error == nil {
            fuzzCheck(parser.isIdle, "parser neither ended nor threw after end of stream: \(trace.events)")
            fuzzCheck(checker.isEnded, "parser idle but the response never ended: \(trace.events)")
        }
        trace.unconsumedByteCount = parser.bufferedByteCount
        return trace
    }

    // MARK: Pulling events

    /// Calls `next()` until it wants input, throws, or (without pipelining) the response ended.
    private mutating func drain() {
        while true {
            callBudget -= 1
            fuzzCheck(callBudget >= 0, "next() keeps returning events: \(trace.events.suffix(4))")
            let event: HTTPResponseEvent?
            do {
                event = try parser.next()
            } catch {
                trace.error = error
                checkSticky(error)
                return
            }
            guard let event else { return }
            checker.observe(event, endOfStreamFed: endOfStreamFed)
            trace.append(event)
            if case .end = event {
                fuzzCheck(parser.isIdle, "parser not idle after .end")
                guard driver.pipelined, parser.bufferedByteCount > 0 || unfed > 0 else { return }
                parser.expectResponse(requestMethod: driver.laterMethod)
                checker = ResponseEventChecker(requestMethod: driver.laterMethod, limits: driver.limits)
            }
        }
    }

    /// Errors are sticky: the next call throws the same error again.
    private mutating func checkSticky(_ error: HTTPParseError) {
        do {
            let event = try parser.next()
            fuzzFailure("next() after error \(error) returned \(String(describing: event))")
        } catch {
            fuzzCheck(error == trace.error, "next() after error \(String(describing: trace.error)) threw \(error)")
        }
    }
}
