// Turning received bytes into Strings, only when a caller asks for one.

/// ISO-8859-1 decoding: each byte becomes the Unicode scalar of the same value, so no byte is lost.
enum Latin1 {
    /// The String whose scalars are `bytes`, one per byte.
    static func string<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            scalars.append(Unicode.Scalar(byte))
        }
        return String(scalars)
    }
}
