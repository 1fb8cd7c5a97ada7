// The `websocket-decoder` target: the input (WebSocketFuzzInput: control byte, then stream) goes through
// WebSocketConnectionStateMachine three times, fed whole, in two pieces and in small pieces, with every
// check of WebSocketStreamDriver; the runs must agree with each other and with WebSocketOracle's reading
// of the whole stream: the same events, the same error.

import FWWire

extension FuzzTargets {
    /// `websocket-decoder`: the stream is what a peer sends after the handshake, in the role, limits and
    /// extension state the control byte chooses. Traps on a finding; returns the whole-input trace.
    @discardableResult
    public static func websocketDecoder(_ data: UnsafeRawBufferPointer) -> WebSocketTrace {
        let input = WebSocketFuzzInput(data)
        let driver = WebSocketStreamDriver(input: input)
        let whole = driver.run(cuts: [])
        let split = driver.run(cuts: [input.splitOffset])
        fuzzCheck(whole == split, "split at \(input.splitOffset): whole \(whole), split \(split)")
        let pieces = driver.run(cuts: smallPieces(input.stream))
        fuzzCheck(whole == pieces, "in small pieces: whole \(whole), pieces \(pieces)")
        let oracle = WebSocketOracle(
            role: input.role, limits: input.limits, compression: input.compression, closeFirst: input.closeFirst)
        let reference = oracle.read(input.stream)
        fuzzCheck(whole == reference, "the oracle reads \(reference), the state machine \(whole)")
        return whole
    }

    /// Cuts into pieces of 1 to 8 bytes, the sizes taken from the stream's own bytes.
    static func smallPieces(_ stream: [UInt8]) -> [Int] {
        var cuts: [Int] = []
        var offset = 0
        while offset < stream.count {
            offset += Int(stream[offset] & 7) + 1
            cuts.append(min(offset, stream.count))
        }
        return cuts
    }
}
