// WebSocketUTF8Validator: UTF-8 (RFC 3629 §4) checked incrementally, so a text message split anywhere
// (across reads, frames or inflated slices) fails at the first byte that proves it invalid:
//
//   lead ──00-7F──▶ lead
//   lead ──C2-DF──▶ continuation(1, 80-BF)
//   lead ──E0──▶ continuation(2, A0-BF)        (no overlong 3-byte forms)
//   lead ──E1-EC, EE-EF──▶ continuation(2, 80-BF)
//   lead ──ED──▶ continuation(2, 80-9F)        (no surrogates D800-DFFF)
//   lead ──F0──▶ continuation(3, 90-BF)        (no overlong 4-byte forms)
//   lead ──F1-F3──▶ continuation(3, 80-BF)
//   lead ──F4──▶ continuation(3, 80-8F)        (nothing above U+10FFFF)
//   lead ──80-C1, F5-FF──▶ invalid             (stray continuations, overlong 2-byte forms, > 4 bytes)
//   continuation(n, lo-hi) ──lo-hi──▶ continuation(n - 1, 80-BF), or lead when n == 1;  ──other──▶ invalid
//
// The narrowed range of the first continuation byte is what makes every error certain at its byte
// rather than at the end of the scalar. Runs of ASCII are skipped eight bytes at a time.

/// Validates UTF-8 fed in pieces.
struct WebSocketUTF8Validator: Sendable {
    /// Continuation bytes still expected in the current scalar (0: at a scalar boundary).
    private var pending: UInt8 = 0
    /// The allowed range of the next continuation byte.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// True at a scalar boundary: everything fed so far is complete UTF-8.
    var isComplete: Bool {
        pending == 0
    }

    /// Checks the next piece; false as soon as a byte makes the text invalid (the validator must then be
    /// discarded).
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            if pending == 0 {
                while bytes.count - index >= 8,
                    bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < bytes.count else { return true }
                guard startScalar(bytes[index]) else { return false }
            } else {
                let byte = bytes[index]
                guard byte >= lower, byte <= upper else { return false }
                pending -= 1
                lower = 0x80
                upper = 0xBF
            }
            index += 1
        }
        return true
    }

    /// A byte at a scalar boundary; false when no scalar starts with it.
    @inline(__always)
    private mutating func startScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: expect(1, 0x80, 0xBF)
        case 0xE0: expect(2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
        case 0xED: expect(2, 0x80, 0x9F)
        case 0xF0: expect(3, 0x90, 0xBF)
        case 0xF1...0xF3: expect(3, 0x80, 0xBF)
        case 0xF4: expect(3, 0x80, 0x8F)
        default: return false
        }
        return true
    }

    @inline(__always)
    private mutating func expect(_ count: UInt8, _ lower: UInt8, _ upper: UInt8) {
        pending = count
        self.lower = lower
        self.upper = upper
    }
}
