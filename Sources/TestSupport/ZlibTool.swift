// ZlibTool: whole bodies compressed by python3's zlib (an implementation nobody here wrote), for the tests of
// gzip and deflate transfer codings.

import Foundation

// MARK: - ZlibTool

/// Runs python3's zlib (Scripts/install-deps.sh installs python3).
public enum ZlibTool {
    /// `bytes` compressed at level 6: the gzip format (`gzip`), else zlib-wrapped deflate.
    public static func compress(_ bytes: [UInt8], gzip: Bool) throws -> [UInt8] {
        let folder = try TemporaryDirectory(prefix: "fw-zlib")
        let input = folder.file("in"), output = folder.file("out")
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sys, zlib
            c = zlib.compressobj(6, zlib.DEFLATED, 31 if sys.argv[1] == "gzip" else 15)
            open(sys.argv[3], "wb").write(c.compress(open(sys.argv[2], "rb").read()) + c.flush())
            """, gzip ? "gzip" : "deflate", input, output]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let compressed = FileManager.default.contents(atPath: output) else {
            throw TestSupportError.serverUnavailable("python3 could not compress a body")
        }
        return [UInt8](compressed)
    }
}
