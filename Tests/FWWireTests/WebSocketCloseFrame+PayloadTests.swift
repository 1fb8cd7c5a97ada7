// WebSocketCloseFrame's payload: parsing every shape RFC 6455 §5.5.1 allows or forbids, and the payload
// the encoder writes, parsed back.

@testable import FWWire
import Testing

@Suite struct WebSocketCloseFramePayloadTests {
    @Test func parsesEmptyCodeAndReason() throws {
        #expect(try WebSocketCloseFrame(payload: []) == WebSocketCloseFrame(code: nil))
        #expect(try WebSocketCloseFrame(payload: hex("03 e8")) == WebSocketCloseFrame(code: .normalClosure))
        let private4000 = WebSocketCloseFrame(code: WebSocketCloseCode(rawValue: 4000), reason: "é")
        #expect(try WebSocketCloseFrame(payload: hex("0f a0") + bytes("é")) == private4000)
    }

    @Test func rejectsWhatRFC6455Forbids() {
        #expect(throws: WebSocketError.invalidClosePayload) { try WebSocketCloseFrame(payload: [0x03]) }
        #expect(throws: WebSocketError.invalidCloseCode) { try WebSocketCloseFrame(payload: hex("03 ed")) }
        #expect(throws: WebSocketError.invalidCloseReason) { try WebSocketCloseFrame(payload: hex("03 e8 c0 80")) }
    }

    @Test func writtenPayloadsParseBack() throws {
        for frame in [
            WebSocketCloseFrame(code: nil), WebSocketCloseFrame(code: .goingAway),
            WebSocketCloseFrame(code: .policyViolation, reason: "too many requests 🙂"),
        ] {
            #expect(try WebSocketCloseFrame(payload: frame.payload) == frame)
        }
        #expect(WebSocketCloseFrame(code: .abnormalClosure, reason: "x").payload.isEmpty)
    }
}
