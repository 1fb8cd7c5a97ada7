import Foundation
import FWTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - FileBodyProducer

/// Produces a request body from a file, in constant memory: each piece is one read(2) on a private
/// serial queue, through one descriptor opened on the first piece and closed by `stop()`.
///
/// The producer reads until the end of the file; the transport checks the total against the length
/// the body declared, so a file that shrinks or grows while it is sent fails the request instead of
/// putting a mis-framed request on the wire.
final class FileBodyProducer: TransportBodyProducer, @unchecked Sendable { // vars: `queue` only
    private let path: String
    private let queue = DispatchQueue(label: "FWURLSession.FileBodyProducer")
    /// The open file, or -1. `queue` only.
    private var descriptor: Int32 = -1
    /// Set by `stop()`: later pieces are never read. `queue` only.
    private var stopped = false

    /// A producer that reads the file at `path` from its first byte.
    init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// A streamed body of the file at `url`: its current size is the length (sent as Content-Length),
    /// and every attempt (a resend, too) reads it again from the start. Throws `fileDoesNotExist`,
    /// `noPermissionsToReadFile`, `fileIsDirectory` or `cannotOpenFile` when the file cannot be read.
    static func bodyStream(contentsOf url: URL) throws(URLError) -> TransportBodyStream {
        let path = url.path
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let urlCode: URLError.Code = switch code {
            case ENOENT, ENOTDIR: .fileDoesNotExist
            case EACCES, EPERM: .noPermissionsToReadFile
            default: .cannotOpenFile
            }
            throw URLError(urlCode, url: url, description: "cannot open \(path): \(Self.describe(code))")
        }
        defer { Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw URLError(.cannotOpenFile, url: url, description: "cannot stat \(path): \(Self.describe(errno))")
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            throw URLError(.fileIsDirectory, url: url, description: "\(path) is a directory")
        }
        return TransportBodyStream(length: Int64(status.st_size)) { FileBodyProducer(path: path) }
    }

    // MARK: TransportBodyProducer

    /// Reads the next piece on the producer's queue; after `stop()` nothing is read or answered.
    func produce(maxLength: Int, into sink: TransportBodySink) {
        queue.async { [self] in
            guard !stopped else { return }
            if descriptor < 0 {
                descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    sink.fail("cannot open \(path): \(Self.describe(errno))")
                    return
                }
            }
            switch readPiece(maxLength: maxLength) {
            case .bytes(let piece) where piece.isEmpty:
                sink.finish()
            case .bytes(let piece):
                sink.write(piece)
            case .failed(let code):
                sink.fail("cannot read \(path): \(Self.describe(code))")
            }
        }
    }

    /// Closes the file (on the producer's queue, after a read in progress).
    func stop() {
        queue.async { [self] in
            stopped = true
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }

    // MARK: Queue only

    private enum ReadResult {
        /// The bytes read; none at the end of the file.
        case bytes([UInt8])
        /// read(2) failed with this errno.
        case failed(Int32)
    }

    /// One read(2) of at most `maxLength` bytes, retried on EINTR.
    private func readPiece(maxLength: Int) -> ReadResult {
        var failure: Int32 = 0
        let piece = [UInt8](unsafeUninitializedCapacity: maxLength) { buffer, count in
            count = 0
            while true {
                let result = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
                if result >= 0 {
                    count = result
                    return
                }
                guard errno == EINTR else {
                    failure = errno
                    return
                }
            }
        }
        return failure == 0 ? .bytes(piece) : .failed(failure)
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
