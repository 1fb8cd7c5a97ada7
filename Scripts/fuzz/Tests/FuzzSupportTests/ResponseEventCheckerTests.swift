// The checker accepts consistent event sequences and traps on inconsistent ones (exit tests: a trap is
// what libFuzzer records as a finding).

import FWWire
import Testing

@testable import FuzzSupport

@Suite struct ResponseEventCheckerTests {
    /// Feeds `events` to a fresh checker; returns whether it ended.
    @discardableResult
    static func observe(_ events: [HTTPResponseEvent], method: String = "GET", endOfStream: Bool = false) -> Bool {
        var checker = ResponseEventChecker(requestMethod: method, limits: HTTPLimits())
        for event in events {
            checker.observe(event, endOfStreamFed: endOfStream)
        }
        return checker.isEnded
    }

    /// A final head.
    static func head(
        _ status: Int, _ headers: HTTPHeaders, version: HTTPVersion = .http1_1, framing: BodyFraming
    ) -> HTTPResponseEvent {
        .head(HTTPResponseHead(version: version, status: status, reason: "R", headers: headers), framing: framing)
    }

    // MARK: Consistent sequences

    @Test func acceptsConsistentSequences() {
        #expect(
            Self.observe([
                .informational(HTTPResponseHead(version: .http1_1, status: 100, reason: "", headers: [:])),
                Self.head(200, ["Content-Length": "5"], framing: .contentLength(5)),
                .body(bytes("he")), .body(bytes("llo")), .end(trailers: [:], keepAlive: true),
            ]))
        #expect(
            Self.observe([
                Self.head(200, ["Transfer-Encoding": "chunked"], framing: .chunked),
                .body(bytes("x")), .end(trailers: ["Expires": "never"], keepAlive: true),
            ]))
        #expect(
            Self.observe(
                [Self.head(200, [:], version: .http1_0, framing: .untilClose), .end(trailers: [:], keepAlive: false)],
                endOfStream: true))
        #expect(
            Self.observe(
                [Self.head(200, ["Content-Length": "9"], framing: .none), .end(trailers: [:], keepAlive: true)],
                method: "HEAD"))
        #expect(!Self.observe([Self.head(204, ["Content-Length": "3"], framing: .none)]))
    }

    // MARK: Inconsistent sequences trap

    @Test func bodyBeforeHeadTraps() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([.body(bytes("x"))])
        }
    }

    @Test func bodyPastContentLengthTraps() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(200, ["Content-Length": "1"], framing: .contentLength(1)),
                .body(bytes("xy")),
            ])
        }
    }

    @Test func endShortOfContentLengthTraps() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(200, ["Content-Length": "3"], framing: .contentLength(3)),
                .body(bytes("x")), .end(trailers: [:], keepAlive: true),
            ])
        }
    }

    @Test func wrongFramingTraps() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(204, ["Content-Length": "3"], framing: .contentLength(3))
            ])
        }
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(200, ["Content-Length": "+3"], framing: .contentLength(3))
            ])
        }
    }

    @Test func wrongKeepAliveTraps() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(
                    200, ["Connection": "close", "Content-Length": "0"], framing: .contentLength(0)),
                .end(trailers: [:], keepAlive: true),
            ])
        }
    }

    @Test func interimAfterHeadOrUnsolicited101Traps() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(200, [:], framing: .untilClose),
                .informational(HTTPResponseHead(version: .http1_1, status: 100, reason: "", headers: [:])),
            ])
        }
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                .informational(HTTPResponseHead(version: .http1_1, status: 101, reason: "", headers: [:]))
            ])
        }
    }

    @Test func badFieldsOrTrailersTrap() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(200, ["X": "a\0b"], framing: .untilClose)
            ])
        }
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(200, ["Content-Length": "0"], framing: .contentLength(0)),
                .end(trailers: ["X": "y"], keepAlive: true),
            ])
        }
    }

    @Test func closeDelimitedEndBeforeCloseTraps() async {
        await #expect(processExitsWith: .failure) {
            ResponseEventCheckerTests.observe([
                ResponseEventCheckerTests.head(200, [:], framing: .untilClose),
                .end(trailers: [:], keepAlive: false),
            ])
        }
    }
}
