// BrotliTool: bodies encoded by Debian's `brotli` command (an encoder nobody here wrote), for the decoder's
// unit tests and the end-to-end tests of `Content-Encoding: br`.

import Foundation

// MARK: - BrotliTool

/// Runs `/usr/bin/brotli` (Scripts/install-deps.sh installs it).
public enum BrotliTool {
    /// The brotli encoding of `bytes`, at `quality` (0-11; the tool's default is 11).
    public static func encode(_ bytes: [UInt8], quality: Int = 11) throws -> [UInt8] {
        let folder = try TemporaryDirectory(prefix: "fw-brotli")
        let input = folder.file("body")
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["brotli", "-f", "-q", String(quality), "-o", input + ".br", input]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let encoded = FileManager.default.contents(atPath: input + ".br") else {
            throw TestSupportError.serverUnavailable("brotli could not encode a body: run Scripts/install-deps.sh")
        }
        return [UInt8](encoded)
    }

    /// A brotli stream of `mebibytes` MiB of zero bytes (a few dozen bytes: a decompression bomb).
    public static func bomb(decodedMebibytes mebibytes: Int) throws -> [UInt8] {
        try encode([UInt8](repeating: 0, count: mebibytes << 20))
    }
}
