import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - OutputFile

/// A file descriptor a body is written into. `-o FILE` opens FILE in place (`open(2)` with `O_CREAT`),
/// as curl does: the path is never replaced by renaming a temporary file over it, so `/dev/null`, other
/// devices and FIFOs stay what they are, and a file's owner and mode survive.
struct OutputFile {
    /// How `open` treats what the file already holds.
    enum Mode {
        /// `O_TRUNC`: write from byte 0.
        case truncate
        /// `O_APPEND`: write after the bytes already there (`-C`).
        case append
    }

    /// stdout (never closed).
    static let standardOutput = OutputFile(descriptor: STDOUT_FILENO, path: "stdout", owned: false)

    private let descriptor: Int32
    private let path: String
    private let owned: Bool

    private init(descriptor: Int32, path: String, owned: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.owned = owned
    }

    /// Opens (creating with mode 0644 when missing) `path` for writing.
    static func open(_ path: String, mode: Mode) throws(URLError) -> OutputFile {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mode == .truncate ? O_TRUNC : O_APPEND)
        var descriptor: Int32
        repeat { descriptor = Glibc.open(path, flags, 0o644) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw URLError(.cannotCreateFile, message: "cannot open \(path) for writing: \(reason)")
        }
        return OutputFile(descriptor: descriptor, path: path, owned: true)
    }

    /// The size of the regular file at `path`; 0 when it is missing or not a regular file.
    static func size(atPath path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return Int64(info.st_size)
    }

    /// Writes all of `data` (short writes and EINTR are retried).
    func write(_ data: Data) throws(URLError) {
        let error: Int32? = data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += count
            }
            return nil
        }
        if let error {
            throw URLError(.cannotWriteToFile, message: "cannot write to \(path): \(String(cString: strerror(error)))")
        }
    }

    /// Closes the descriptor (not stdout's).
    func close() {
        if owned { _ = Glibc.close(descriptor) }
    }
}
