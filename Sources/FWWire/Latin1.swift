// Turning received bytes into Strings, only when a caller asks for one.

/// ISO-8859-1 decoding: each byte becomes the Unicode scalar of the same value, so no byte is lost.
enum Latin1 {
    /// The String whose scalars are `bytes`, one per byte.
    static func string<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        // Contiguous bytes (every field of a head) are checked and decoded in place.
        if let decoded = bytes.withContiguousStorageIfAvailable(asciiString) { return decoded ?? latin1String(bytes) }
        return asciiString(bytes) ?? latin1String(bytes)
    }

    /// The String of `bytes` when they are all ASCII (then UTF-8 and ISO-8859-1 agree), else nil.
    private static func asciiString<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The String whose scalars are `bytes`, one per byte, byte by byte (for bytes that are not all ASCII).
    private static func latin1String<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            scalars.append(Unicode.Scalar(byte))
        }
        return String(scalars)
    }
}
