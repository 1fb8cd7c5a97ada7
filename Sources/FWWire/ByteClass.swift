// Byte-level building blocks of the HTTP/1.1 grammar: the byte values the grammar names and sets of
// bytes (character classes) as bit tables, so scanning never builds a Character or a String.

// MARK: - Named bytes

/// Byte values the HTTP/1.1 grammar refers to by name.
enum ASCII {
    static let nul: UInt8 = 0x00
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let comma: UInt8 = 0x2C
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let backslash: UInt8 = 0x5C

    /// The CRLF that ends every line we write.
    static let crlf: [UInt8] = [cr, lf]

    /// True for SP and HTAB (optional whitespace, OWS / BWS).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// `byte` with an ASCII upper-case letter mapped to lower case; every other byte unchanged.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether `bytes` spell `lowercase` (which must be lower case) in any ASCII case.
    static func equalIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let wanted = lowercase.utf8Start
        for index in 0..<bytes.count where lowercased(bytes[index]) != wanted[index] {
            return false
        }
        return true
    }

    /// Whether `bytes` and `other` are the same bytes in any ASCII case; the first `offset` bytes are taken as
    /// compared already (a lookup that checked the first byte first).
    @inline(__always)
    static func equalIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>,
                                  from offset: Int = 0) -> Bool {
        guard bytes.count == other.count else { return false }
        var index = offset
        while index < bytes.count {
            guard lowercased(bytes[index]) == lowercased(other[index]) else { return false }
            index += 1
        }
        return true
    }

    /// The value of a hexadecimal digit (either case), or nil for any other byte.
    @inline(__always)
    static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte &- 0x30
        case 0x41...0x46: return byte &- 0x41 &+ 10
        case 0x61...0x66: return byte &- 0x61 &+ 10
        default: return nil
        }
    }

    /// The value of a decimal digit, or nil for any other byte.
    @inline(__always)
    static func decimalDigitValue(_ byte: UInt8) -> UInt8? {
        byte &- 0x30 < 10 ? byte &- 0x30 : nil
    }
}

// MARK: - Byte classes

/// A set of byte values stored as a 256-bit table; membership is a word select, a shift and a mask.
struct ByteClass: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// The class whose table is `words`: bit `b % 64` of word `b / 64` is set for each member byte `b`.
    init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// The class of every byte for which `isMember` is true (evaluated once per byte value, at creation); the
    /// tests build the tables' definitions with it.
    init(_ isMember: (UInt8) -> Bool) {
        for value in 0...255 {
            let byte = UInt8(value)
            guard isMember(byte) else { continue }
            let bit = UInt64(1) << UInt64(byte & 63)
            switch byte >> 6 {
            case 0: words.0 |= bit
            case 1: words.1 |= bit
            case 2: words.2 |= bit
            default: words.3 |= bit
            }
        }
    }

    /// True when `byte` belongs to the class.
    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        // Selects (not a switch) so the word is picked without a jump table.
        let lowHalf = byte & 0x40 == 0 ? words.0 : words.1
        let highHalf = byte & 0x40 == 0 ? words.2 : words.3
        let word = byte & 0x80 == 0 ? lowHalf : highHalf
        return word & (UInt64(1) &<< UInt64(byte & 63)) != 0
    }

    /// True when every byte of `bytes` belongs to the class.
    func containsAll<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        // Contiguous bytes (a String's UTF-8, an array slice) are read in place, without an iterator.
        bytes.withContiguousStorageIfAvailable { $0.allSatisfy { contains($0) } } ?? bytes.allSatisfy { contains($0) }
    }
}

extension ByteClass {
    // The tables are written out as words: a class built by `init(_:)` at first use is a lazy global, and
    // every read of it (eight per response head) went through `swift_once`. Each comment gives the
    // definition, which `Tests/FWWireTests/ByteClassTableTests.swift` checks the words against.

    /// `tchar` (RFC 9110 §5.6.2): the bytes of methods, field names and chunk-extension names.
    /// Definition: digits, letters and ``!#$%&'*+-.^_`|~``.
    static let token = ByteClass(words: (0x03FF_6CFA_0000_0000, 0x57FF_FFFF_C7FF_FFFE, 0, 0))

    /// HTAB, SP, VCHAR and obs-text: reason phrases, quoted-string text and quoted pairs.
    /// Definition: HTAB, or 0x20 and above but DEL.
    static let text = ByteClass(words: (0xFFFF_FFFF_0000_0200, 0x7FFF_FFFF_FFFF_FFFF, ~0, ~0))

    /// Chunk extensions outside quoted strings: token characters, BWS, `;` and `=`.
    /// Definition: `token`, SP, HTAB, `;` and `=`.
    static let chunkExtension = ByteClass(words: (0x2BFF_6CFB_0000_0200, 0x57FF_FFFF_C7FF_FFFE, 0, 0))

    /// Bytes we put in a request target: anything but CTLs (NUL, CR, LF included), DEL and SP.
    /// Definition: above 0x20 but DEL.
    static let requestTarget = ByteClass(words: (0xFFFF_FFFE_0000_0000, 0x7FFF_FFFF_FFFF_FFFF, ~0, ~0))

    /// Bytes we put in a request field value: anything but NUL, CR and LF.
    static let requestFieldValue = ByteClass(words: (0xFFFF_FFFF_FFFF_DBFE, ~0, ~0, ~0))
}
