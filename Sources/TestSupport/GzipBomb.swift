// GzipBomb: a small gzip body that inflates to a large one, for memory-bound tests.

import Foundation

// MARK: - GzipBomb

/// A gzip stream of zeros (zlib level 9, about 1000:1), made by Python's zlib.
public enum GzipBomb {
    /// The gzip encoding of `mebibytes` MiB of zero bytes.
    public static func bytes(decodedMebibytes mebibytes: Int) throws -> [UInt8] {
        let script = """
            import sys, zlib
            c = zlib.compressobj(9, zlib.DEFLATED, 31)
            block = bytes(1 << 20)
            out = [c.compress(block) for _ in range(\(mebibytes))]
            out.append(c.flush())
            sys.stdout.buffer.write(b"".join(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, !data.isEmpty else {
            throw TestSupportError.serverUnavailable("python3 could not make a gzip body")
        }
        return [UInt8](data)
    }
}
