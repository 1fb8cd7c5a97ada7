// Python's zlib as the reference implementation of permessage-deflate's compression: it compresses or
// inflates a list of messages the way RFC 7692 §7.2 says, with the given window and context takeover.

import Foundation
import Testing

/// Runs python3's zlib over messages (python3 is a test dependency, Scripts/install-deps.sh).
enum PythonZlib {
    /// The script: `python3 -c SCRIPT MODE BITS TAKEOVER IN OUT`, one message per line in hex.
    private static let script = """
        import sys, zlib
        mode, bits, takeover, src, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4], sys.argv[5]
        messages = [bytes.fromhex(line) for line in open(src).read().split("\\n")[:-1]]
        out = []
        if mode == "deflate":
            c = zlib.compressobj(6, zlib.DEFLATED, -bits)
            for m in messages:
                if not takeover:
                    c = zlib.compressobj(6, zlib.DEFLATED, -bits)
                # An empty message after another: zlib writes nothing (a second flush in a row is a no-op),
                # so write the empty stored block RFC 7692 §7.2.3.6 shows.
                data = c.compress(m) + c.flush(zlib.Z_SYNC_FLUSH) or b"\\x00\\x00\\x00\\xff\\xff"
                assert data.endswith(b"\\x00\\x00\\xff\\xff")
                out.append(data[:-4])
        else:
            d = zlib.decompressobj(-bits)
            for m in messages:
                if not takeover:
                    d = zlib.decompressobj(-bits)
                out.append(d.decompress(m + b"\\x00\\x00\\xff\\xff"))
        open(dst, "w").write("".join(m.hex() + "\\n" for m in out))
        """

    /// `mode` ("deflate" or "inflate") applied to each message in order, with a window of 2^`bits` bytes,
    /// one compressor or decompressor for all messages when `takeover`, a fresh one per message otherwise.
    static func run(_ mode: String, bits: Int, takeover: Bool, _ messages: [[UInt8]]) throws -> [[UInt8]] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fw-zlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in")
        let output = folder.appendingPathComponent("out")
        try Data(messages.flatMap { Hex.encode($0) + [UInt8(ascii: "\n")] }).write(to: input)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, mode, String(bits), takeover ? "1" : "0", input.path, output.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 zlib \(mode) failed")
        let text = [UInt8](try Data(contentsOf: output))
        return text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map(Hex.decode)
    }
}

/// Lowercase hexadecimal, a byte at a time (no Foundation formatting: messages are hundreds of KiB).
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The hex digits of `bytes`.
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }
    }

    /// The bytes of hex digits (lowercase or uppercase); a pair that is not hex decodes as 0.
    static func decode<Digits: Collection<UInt8>>(_ text: Digits) -> [UInt8] {
        let values = text.map { digit -> UInt8 in
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: 0
            }
        }
        return stride(from: 0, to: values.count - 1, by: 2).map { values[$0] << 4 | values[$0 + 1] }
    }
}
