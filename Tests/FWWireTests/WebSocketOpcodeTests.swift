// WebSocketOpcode: exactly the six opcodes of RFC 6455 §5.2 exist; 0x8-0xF are control frames.

import FWWire
import Testing

@Suite struct WebSocketOpcodeTests {
    @Test func onlyDefinedOpcodesExist() {
        let defined = (0...255).compactMap { WebSocketOpcode(rawValue: UInt8($0)) }
        #expect(defined == [.continuation, .text, .binary, .close, .ping, .pong])
        #expect(defined.map(\.rawValue) == [0x0, 0x1, 0x2, 0x8, 0x9, 0xA])
        #expect(defined.map(\.description) == ["continuation", "text", "binary", "close", "ping", "pong"])
    }

    @Test func controlOpcodesAreClosePingAndPong() {
        let opcodes: [WebSocketOpcode] = [.continuation, .text, .binary, .close, .ping, .pong]
        #expect(opcodes.map { $0.isControl } == [false, false, false, true, true, true])
    }
}
