// Percent-escaping of query fields and values, RFC 3986 style as AFNetworking does it: the unreserved
// characters (ALPHA, DIGIT, "-", ".", "_", "~") and "/" and "?" stay (RFC 3986 §3.4 allows both in a
// query), every other byte of the UTF-8 form becomes %XX with upper-case hex digits, including the
// general delimiters ":#[]@" and the sub-delimiters "!$&'()*+,;=".
//
// AFNetworking and the port escape in batches of 50 characters (to dodge an NSString bug with long
// strings of emoji) and must take care not to cut a surrogate pair or a grapheme in two. Escaping the
// UTF-8 bytes in one pass has no batch boundary at all: every byte of every scalar is escaped on its
// own, so no character can be split, and the cost is linear in the length.

// MARK: - Percent-escaping

extension QueryString {
    /// `bytes` with every byte outside the unreserved set, "/" and "?" escaped as %XX.
    static func percentEscaped(_ bytes: some Sequence<UInt8>) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes {
            if allowed[Int(byte)] {
                escaped.append(byte)
            } else {
                escaped.append(UInt8(ascii: "%"))
                escaped.append(hexDigits[Int(byte >> 4)])
                escaped.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// For each byte, whether it stays as it is.
    private static let allowed: [Bool] = (0...255).map { byte in
        let scalar = Unicode.Scalar(UInt8(byte))
        return ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-._~/?".unicodeScalars.contains(scalar)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
