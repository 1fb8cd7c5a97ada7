#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - Output

/// Where body bytes go: standard output, or a file made (truncated) on the first write, or nothing (the
/// body is kept for `--json`). Writes everything or reports the failure.
final class Output {
    /// The open descriptor; nil before `open` (a file) or after `close`. Used by fwget's one task only.
    private var descriptor: Int32?
    private let path: String?

    /// Standard output when `path` is nil, else the file at `path`.
    init(path: String?) {
        self.path = path
        self.descriptor = path == nil ? STDOUT_FILENO : nil
    }

    /// Opens the file now (so an unwritable path fails before the transfer, as curl's does).
    func open() -> Bool {
        guard descriptor == nil, let path else { return true }
        let fd = Glibc_open(path)
        guard fd >= 0 else { return false }
        descriptor = fd
        return true
    }

    /// Writes all of `bytes`; false when the system refused.
    func write(_ bytes: [UInt8]) -> Bool {
        guard let descriptor else { return false }
        return Self.writeAll(bytes, to: descriptor)
    }

    /// Closes a file (not standard output); false when the last writes failed.
    func close() -> Bool {
        guard let descriptor, path != nil else { return true }
        self.descriptor = nil
        #if canImport(Glibc)
        return Glibc.close(descriptor) == 0
        #else
        return Musl.close(descriptor) == 0
        #endif
    }

    /// Writes all of `bytes` to `descriptor`, retrying after interruptions and short writes.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                #if canImport(Glibc)
                Glibc.write(descriptor, raw.baseAddress! + written, raw.count - written)
                #else
                Musl.write(descriptor, raw.baseAddress! + written, raw.count - written)
                #endif
            }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += count
        }
        return true
    }

    /// A line on standard error.
    static func error(_ text: String) {
        _ = writeAll(Array((text + "\n").utf8), to: STDERR_FILENO)
    }
}

/// open(2) for writing: created 0666 (less the umask), truncated.
private func Glibc_open(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
}

/// Reads a whole file (for `-d @FILE`); nil when it cannot be read.
func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { _ = close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { return bytes }
        bytes += buffer[0..<count]
    }
}
