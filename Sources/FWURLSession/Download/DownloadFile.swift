import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - DownloadFile

/// The temporary file a download task writes its body into, in constant memory: every piece goes
/// straight to the file descriptor.
///
/// Used by one task's delivery drain at a time (the drain is serialised per task), never concurrently.
final class DownloadFile: @unchecked Sendable { // touched only by its task's drain (one at a time)
    /// Where the file is.
    let url: URL
    /// The bytes in the file.
    private(set) var length: Int64
    private var descriptor: Int32

    private init(url: URL, descriptor: Int32, length: Int64) {
        self.url = url
        self.descriptor = descriptor
        self.length = length
    }

    deinit {
        close()
    }

    /// A new empty file in the temporary directory, named `FWNetworking-Download-XXXXXX.tmp`, or at
    /// `template` (a path ending in `XXXXXX` and a 5-character suffix: a durable session's partial file).
    static func create(template path: String? = nil) throws(URLError) -> DownloadFile {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array((path ?? "\(directory)/FWNetworking-Download-XXXXXX.tmp").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, path == nil ? 4 : 5) }
        guard descriptor >= 0 else {
            throw URLError(.cannotCreateFile, url: nil,
                           description: "cannot create a download file in \(directory): \(errnoDescription())")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return DownloadFile(url: URL(fileURLWithPath: path), descriptor: descriptor, length: 0)
    }

    /// The partial file of a download being resumed, cut to the `length` bytes the resume data vouches
    /// for (a crash may have left more); nil when it is missing or shorter.
    static func reopen(path: String, length: Int64) -> DownloadFile? {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int64(status.st_size) >= length,
              ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, off_t(length), SEEK_SET) == length else {
            Glibc.close(descriptor)
            return nil
        }
        return DownloadFile(url: URL(fileURLWithPath: path), descriptor: descriptor, length: length)
    }

    /// Appends `bytes`.
    func append(_ bytes: [UInt8]) throws(URLError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw URLError(.cannotWriteToFile, url: url,
                               description: "writing \(url.path) failed: \(Self.errnoDescription())")
            }
            written += result
        }
        length += Int64(bytes.count)
    }

    /// Empties the file (the server sent the whole resource instead of the requested range).
    func truncate() throws(URLError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw URLError(.cannotWriteToFile, url: url,
                           description: "truncating \(url.path) failed: \(Self.errnoDescription())")
        }
        length = 0
    }

    /// Flushes the file's bytes to the disk (before a journal record vouches for them).
    func sync() throws(URLError) {
        guard descriptor < 0 || fdatasync(descriptor) == 0 else {
            throw URLError(.cannotWriteToFile, url: url,
                           description: "syncing \(url.path) failed: \(Self.errnoDescription())")
        }
    }

    /// Closes the descriptor; the file stays.
    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// Closes and deletes the file.
    func remove() {
        close()
        unlink(url.path)
    }

    private static func errnoDescription() -> String {
        String(cString: strerror(errno))
    }
}
