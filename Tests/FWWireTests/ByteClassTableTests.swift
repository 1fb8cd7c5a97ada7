// The byte classes' tables are written out as words (`ByteClass.swift`); each must hold exactly the bytes
// of the definition its comment gives, built here byte by byte.

@testable import FWWire
import Testing

private func isTChar(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
}

private let definitions: [(name: String, table: ByteClass, definition: ByteClass)] = [
    ("token", .token, ByteClass(isTChar)),
    ("text", .text, ByteClass { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }),
    ("chunkExtension", .chunkExtension,
     ByteClass { isTChar($0) || $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "=") }),
    ("requestTarget", .requestTarget, ByteClass { $0 > 0x20 && $0 != 0x7F }),
    ("requestFieldValue", .requestFieldValue, ByteClass { $0 != 0x00 && $0 != 0x0D && $0 != 0x0A }),
]

@Test("each written-out table holds exactly its definition's bytes", arguments: definitions.indices)
func tableMatchesDefinition(_ index: Int) {
    let entry = definitions[index]
    let differing = (0...255).map(UInt8.init).filter { entry.table.contains($0) != entry.definition.contains($0) }
    #expect(differing.isEmpty, "\(entry.name) differs at \(differing)")
}
