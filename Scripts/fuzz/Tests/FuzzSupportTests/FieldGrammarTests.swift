// The restated token grammar, and the field checks on valid sections (invalid ones trap: see
// ResponseEventCheckerTests).

import FWWire
import Testing

@testable import FuzzSupport

@Suite struct FieldGrammarTests {
    @Test func tokenBytesAreExactlyTchar() {
        let tchar = Set(bytes("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"))
        for value in 0...255 {
            #expect(FieldGrammar.isTokenByte(UInt8(value)) == tchar.contains(UInt8(value)), "byte \(value)")
        }
    }

    @Test func whitespaceIsSpaceAndTab() {
        #expect((0...255).filter { FieldGrammar.isWhitespace(UInt8($0)) } == [0x09, 0x20])
    }

    @Test func validSectionsPass() {
        let fields: HTTPHeaders = ["Set-Cookie": "a=1", "X-Empty": "", "X-Inner": "a \t b"]
        FieldGrammar.checkFields(fields, limits: HTTPLimits(), section: "test")
        FieldGrammar.checkReason("Not Found \u{E9}\t")
        FieldGrammar.checkReason("")
    }
}
