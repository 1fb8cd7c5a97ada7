// The `main` of every fuzz executable. In a `-sanitize=fuzzer` build libFuzzer is linked in and takes over
// (see CLibFuzzer.h for why its own main() cannot be used). In a plain build the executable replays the
// files named on its command line through the same callback, e.g. to debug a reproducer without the
// sanitizers.

import CLibFuzzer
import Glibc

/// Starts libFuzzer, or replays input files when libFuzzer is not linked in.
public enum LibFuzzerMain {
    /// libFuzzer's per-input callback (`LLVMFuzzerTestOneInput`).
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer with the process arguments, or replays `argv[1...]`; exits with their status.
    public static func run(_ testOneInput: TestOneInput) -> Never {
        guard CLibFuzzerIsLinked() != 0 else {
            exit(replay(CommandLine.arguments.dropFirst(), testOneInput))
        }
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = withUnsafeMutablePointer(to: &argv) { argvPointer in
            argvPointer.withMemoryRebound(to: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self, capacity: 1) {
                LLVMFuzzerRunDriver(&argc, $0, testOneInput)
            }
        }
        exit(status)
    }

    // MARK: Replay

    /// Feeds each file to `testOneInput`; returns the exit status (2 for usage or unreadable files).
    private static func replay(_ paths: ArraySlice<String>, _ testOneInput: TestOneInput) -> CInt {
        guard !paths.isEmpty else {
            report("usage: \(CommandLine.arguments[0]) FILE... (build with Scripts/fuzz.sh to fuzz)")
            return 2
        }
        for path in paths {
            guard let bytes = readFile(path) else {
                report("cannot read \(path)")
                return 2
            }
            _ = bytes.withUnsafeBufferPointer { testOneInput($0.baseAddress, $0.count) }
            report("replayed \(path) (\(bytes.count) bytes): no finding")
        }
        return 0
    }

    /// The contents of the file at `path`, or nil when it cannot be read.
    static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR {
                continue
            }
            guard count >= 0 else { return nil }
            guard count > 0 else { return contents }
            contents += chunk[..<count]
        }
    }

    /// Writes `message` and a newline to stderr.
    private static func report(_ message: String) {
        var line = message + "\n"
        line.withUTF8 { bytes in
            _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
    }
}
