// The driver feeds whole or split, pipelines while bytes remain, and records what a run reported.

import FWWire
import Testing

@testable import FuzzSupport

@Suite struct ResponseStreamDriverTests {
    static let pipelined = ResponseStreamDriver(
        firstMethod: "GET", laterMethod: "GET", limits: HTTPLimits(), pipelined: true)
    static let stream = bytes(
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\nConnection: close\r\n\r\nrest")

    @Test(arguments: [nil, 0, 1, 20, 38, 39, 60, stream.count])
    func pipelinesAndJoinsBodies(_ splitOffset: Int?) {
        let trace = Self.pipelined.run(Self.stream, splitOffset: splitOffset)
        let first = HTTPResponseHead(version: .http1_1, status: 200, reason: "OK", headers: ["Content-Length": "3"])
        let second = HTTPResponseHead(version: .http1_1, status: 200, reason: "OK", headers: ["Connection": "close"])
        #expect(
            trace.events == [
                .head(first, framing: .contentLength(3)), .body(bytes("abc")), .end(trailers: [:], keepAlive: true),
                .head(second, framing: .untilClose), .body(bytes("rest")), .end(trailers: [:], keepAlive: false),
            ])
        #expect(trace.error == nil)
        #expect(trace.unconsumedByteCount == 0)
    }

    @Test func withoutPipeliningLeavesTheRestBuffered() {
        var driver = Self.pipelined
        driver.pipelined = false
        let trace = driver.run(Self.stream, splitOffset: 10)
        #expect(trace.events.count == 3)
        #expect(trace.unconsumedByteCount == Self.stream.count - 41)
    }

    @Test(arguments: [nil, 5, 30])
    func recordsTheErrorAndNothingAfterIt(_ splitOffset: Int?) {
        let stream = bytes("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc")
        let trace = Self.pipelined.run(stream, splitOffset: splitOffset)
        #expect(trace.error == .unexpectedEndOfStream)
        #expect(trace.events.last == .body(bytes("abc")))
    }

    @Test func emptyStreamIsAPrematureEnd() {
        #expect(Self.pipelined.run([]).error == .unexpectedEndOfStream)
    }

    @Test func lineErrorDependsOnTheSplit() {
        var driver = Self.pipelined
        driver.limits = FuzzInput.smallLimits
        let cut = overlongLineWithBareCR.firstIndex(of: 0x0D, after: 20)
        #expect(driver.run(overlongLineWithBareCR).error == .invalidLineEnding)
        #expect(driver.run(overlongLineWithBareCR, splitOffset: cut + 1).error == .headerLineTooLong)
    }
}

extension [UInt8] {
    /// The index of the first `byte` at or after `start`.
    func firstIndex(of byte: UInt8, after start: Int) -> Int {
        self[start...].firstIndex(of: byte) ?? count
    }
}
