// The two fuzz targets. Each decodes its input (FuzzInput: control byte, then stream), runs the parser
// twice over the same stream, once fed whole and once fed in two pieces, with every check of
// ResponseStreamDriver and ResponseEventChecker, and then compares the runs: an incremental parser must
// report the same events (bodies joined), the same error and the same leftover bytes however its input
// is split. The chunked target also compares the result with ChunkedBodyOracle.

import FWWire

/// Entry points of the fuzz targets; each traps on a finding and returns the whole-input trace otherwise.
public enum FuzzTargets {
    /// The head the `chunked-decoder` target puts in front of its stream.
    public static let chunkedHead = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)

    // MARK: Targets

    /// `response-parser`: the stream is any sequence of responses, pipelined (another response is expected
    /// after each `.end` while bytes remain), answering GET or HEAD as the control byte says.
    @discardableResult
    public static func responseParser(_ data: UnsafeRawBufferPointer) -> ResponseTrace {
        let input = FuzzInput(data)
        let driver = ResponseStreamDriver(
            firstMethod: input.firstMethod, laterMethod: input.laterMethod, limits: input.limits, pipelined: true)
        return runTwice(driver, stream: input.stream, splitOffset: input.splitOffset)
    }

    /// `chunked-decoder`: the stream is a chunked body (size lines, extensions, data, trailers) behind
    /// `chunkedHead`, answering GET; only that one response is expected, what follows it stays buffered.
    @discardableResult
    public static func chunkedDecoder(_ data: UnsafeRawBufferPointer) -> ResponseTrace {
        let input = FuzzInput(data)
        let driver = ResponseStreamDriver(
            firstMethod: "GET", laterMethod: "GET", limits: input.limits, pipelined: false)
        let trace = runTwice(
            driver, stream: chunkedHead + input.stream, splitOffset: chunkedHead.count + input.splitOffset)
        compareWithOracle(trace, body: input.stream, limits: input.limits)
        return trace
    }

    // MARK: Properties across runs

    /// Runs whole and split, and checks that both runs agree.
    private static func runTwice(_ driver: ResponseStreamDriver, stream: [UInt8], splitOffset: Int) -> ResponseTrace {
        let whole = driver.run(stream)
        let split = driver.run(stream, splitOffset: splitOffset)
        fuzzCheck(
            whole.events == split.events,
            "events differ when split at \(splitOffset): whole \(whole.events), split \(split.events)")
        fuzzCheck(
            sameError(whole.error, split.error),
            "errors differ when split at \(splitOffset): whole \(String(describing: whole.error)), "
                + "split \(String(describing: split.error))")
        if whole.error == nil {
            fuzzCheck(
                whole.unconsumedByteCount == split.unconsumedByteCount,
                "leftover bytes differ when split at \(splitOffset)")
        }
        return whole
    }

    /// Equal errors, or the one documented pair that depends on the split: a line that is too long and
    /// also holds a bare CR is `headerLineTooLong` when the bytes seen so far already exceed the limit
    /// (LineScanner checks the length of a pending line) and `invalidLineEnding` when the CR comes first.
    private static func sameError(_ whole: HTTPParseError?, _ split: HTTPParseError?) -> Bool {
        let lineErrors: Set<HTTPParseError> = [.headerLineTooLong, .invalidLineEnding]
        guard let whole, let split else { return whole == split }
        return whole == split || (lineErrors.contains(whole) && lineErrors.contains(split))
    }

    /// Accepted bodies decode like the oracle decodes them; plain complete bodies are accepted.
    private static func compareWithOracle(_ trace: ResponseTrace, body: [UInt8], limits: HTTPLimits) {
        let decoded = ChunkedBodyOracle(limits: limits).decode(body)
        guard trace.error == nil else {
            fuzzCheck(decoded?.isPlain != true, "plain chunked body rejected with \(String(describing: trace.error))")
            return
        }
        guard let decoded else {
            fuzzFailure("chunked body accepted that the oracle cannot decode: \(trace.events)")
        }
        guard case .head(_, .chunked)? = trace.events.first, case .end(let trailers, _)? = trace.events.last else {
            fuzzFailure("chunked response reported as \(trace.events)")
        }
        let bodyEvents: [HTTPResponseEvent] = decoded.body.isEmpty ? [] : [.body(decoded.body)]
        fuzzCheck(
            Array(trace.events.dropFirst().dropLast()) == bodyEvents,
            "de-chunked body differs from the oracle's \(decoded.body): \(trace.events)")
        fuzzCheck(
            trailers.count == decoded.trailerFieldCount,
            "\(trailers.count) trailer fields, the oracle counts \(decoded.trailerFieldCount)")
        fuzzCheck(
            trace.unconsumedByteCount == body.count - decoded.length,
            "\(trace.unconsumedByteCount) bytes left after the body, the oracle says \(body.count - decoded.length)")
    }
}
