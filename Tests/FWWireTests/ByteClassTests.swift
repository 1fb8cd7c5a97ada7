// The byte classes, checked over all 256 byte values through the public API: exactly the RFC 9110
// `tchar` bytes make a field name or a method, and exactly the allowed bytes pass in targets and values.

import FWWire
import Testing

private let tchars = Set(bytes("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))

/// Whether a response whose only field is named `name` (one byte) is accepted.
private func parsesFieldName(_ byte: UInt8) -> Bool {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 204 X\r\n") + [byte] + bytes(": v\r\n\r\n"))
    return (try? parser.next()) != nil
}

/// Encodes a request head, reporting the error or nil.
private func encodingError(_ head: HTTPRequestHead) -> HTTPRequestError? {
    var buffer: [UInt8] = []
    do {
        try HTTPRequestEncoder.encodeHead(head, into: &buffer)
        return nil
    } catch {
        return error
    }
}

// LF is left out: at the start of a line it is the blank line that ends the head. SP and HTAB start an
// obs-fold (rejected, as no field precedes it); CR starts a line end (rejected, as a bare CR).
@Test("field names in responses: exactly tchar", arguments: (0...255).filter { $0 != 0x0A })
func responseFieldNameByte(_ value: Int) {
    let byte = UInt8(value)
    #expect(parsesFieldName(byte) == tchars.contains(byte))
}

@Test("methods, names, targets and values in requests", arguments: 0..<128)
func requestBytes(_ value: Int) {
    let scalar = String(UnicodeScalar(UInt8(value)))
    let isToken = tchars.contains(UInt8(value))
    let method = encodingError(HTTPRequestHead(method: "G" + scalar, target: "/", headers: ["Host": "h"]))
    #expect((method == nil) == isToken)
    let name = encodingError(HTTPRequestHead(method: "GET", target: "/", headers: ["Host": "h", scalar: "v"]))
    #expect((name == nil) == isToken)

    let targetAllowed = value > 0x20 && value != 0x7F
    let target = encodingError(HTTPRequestHead(method: "GET", target: "/" + scalar, headers: ["Host": "h"]))
    #expect((target == nil) == targetAllowed)

    let valueAllowed = value != 0x00 && value != 0x0A && value != 0x0D
    let field = encodingError(HTTPRequestHead(method: "GET", target: "/", headers: ["Host": "h", "X": scalar]))
    #expect((field == nil) == valueAllowed)
}
