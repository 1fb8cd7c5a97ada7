// WebSocketError: each error's close code is the one RFC 6455 §7.4.1 names; only a premature end is one;
// members are distinct and described.

import FWWire
import Testing

private let allErrors: [(WebSocketError, WebSocketCloseCode)] = [
    (.reservedBitsSet, .protocolError), (.reservedOpcode, .protocolError), (.fragmentedControlFrame, .protocolError),
    (.controlFrameTooLong, .protocolError), (.unexpectedMask, .protocolError), (.missingMask, .protocolError),
    (.nonMinimalLength, .protocolError), (.invalidLength, .protocolError), (.frameTooLarge, .messageTooBig),
    (.messageTooBig, .messageTooBig), (.unexpectedContinuation, .protocolError),
    (.expectedContinuation, .protocolError), (.invalidUTF8, .invalidFramePayloadData),
    (.invalidCompressedData, .invalidFramePayloadData), (.invalidClosePayload, .protocolError),
    (.invalidCloseCode, .protocolError), (.invalidCloseReason, .invalidFramePayloadData),
    (.unexpectedEndOfStream, .abnormalClosure),
]

@Suite struct WebSocketErrorTests {
    @Test func closeCodes() {
        for (error, code) in allErrors {
            #expect(error.closeCode == code, "\(error)")
            #expect(error.isPrematureEnd == (error == .unexpectedEndOfStream))
        }
    }

    @Test func membersAreDistinctWithDistinctDescriptions() {
        let errors = allErrors.map(\.0)
        #expect(Set(errors).count == errors.count)
        #expect(Set(errors.map(\.description)).count == errors.count)
    }
}
