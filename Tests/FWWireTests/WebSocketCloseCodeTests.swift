// WebSocketCloseCode: every RFC 6455 §7.4.1 code and the IANA additions by value; which values a close
// frame may carry (§7.4.1-2), checked over the whole 16-bit range.

import FWWire
import Testing

@Suite struct WebSocketCloseCodeTests {
    @Test func namedCodesHaveTheirRegisteredValues() {
        let named: [(WebSocketCloseCode, UInt16)] = [
            (.normalClosure, 1000), (.goingAway, 1001), (.protocolError, 1002), (.unsupportedData, 1003),
            (.reserved, 1004), (.noStatusReceived, 1005), (.abnormalClosure, 1006),
            (.invalidFramePayloadData, 1007), (.policyViolation, 1008), (.messageTooBig, 1009),
            (.mandatoryExtensionMissing, 1010), (.internalServerError, 1011), (.serviceRestart, 1012),
            (.tryAgainLater, 1013), (.badGateway, 1014), (.tlsHandshakeFailure, 1015),
        ]
        for (code, value) in named {
            #expect(code.rawValue == value)
            #expect(code.description == String(value))
        }
    }

    @Test func validInACloseFrameOver16Bits() {
        let valid = (0...UInt16.max).filter { WebSocketCloseCode(rawValue: $0).isValidInCloseFrame }
        let expected = Array(1000...1003) + Array(1007...1014) + Array(3000...4999)
        #expect(valid == expected.map(UInt16.init))
    }

    @Test func aCloseFrameWithoutACodeHasNoReason() {
        #expect(WebSocketCloseFrame(code: nil, reason: "dropped").reason == "")
        #expect(WebSocketCloseFrame(code: .goingAway, reason: "kept").reason == "kept")
    }
}
