// MultipartBodyStream: the body of a multipart form as an InputStream that reads its parts while it is
// read. The parts are segments of known length — bytes (boundaries, part headers, data parts), files
// (opened when their turn comes, read straight into the reader's buffer) and streams — so the whole
// length is known before the first byte and memory stays constant whatever the files weigh.
//
// States: notOpen → open() → open → (last byte read) → atEnd; close() → closed from any state; a file
// or stream that fails, or yields fewer bytes than announced, → error (read returns -1, streamError
// says why). Extra bytes of a stream beyond its announced length are left unread.
//
// Throttling (`throttleBandwidth`): each read hands out at most `packetSize` bytes and then waits
// `delay` before returning; the wait is injectable for tests.
//
// Copying (NSCopying, as AFMultipartBodyStream): a copy is a new, unopened stream over the same parts, so a
// session manager can send the body again (seed 004). Bytes and files are read again from their start; a
// stream part is copied when its stream conforms to NSCopying, else the copy fails when it reaches it.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - MultipartSegment

/// A stretch of the body with its length.
struct MultipartSegment {
    /// Where the bytes come from.
    enum Source {
        case bytes(Data)
        case file(path: String)
        case stream(InputStream?)
        /// A stream part of a copied body whose stream could not be copied: reading it fails.
        case uncopiedStream
    }

    var source: Source
    var length: UInt64
}

// MARK: - MultipartBodyStream

/// The multipart body, read segment by segment. Used by one reader at a time, like any InputStream.
final class MultipartBodyStream: InputStream, NSCopying {
    /// The number of bytes the stream yields in all.
    let contentLength: UInt64
    private let segments: [MultipartSegment]
    private let packetSize: Int
    private let delay: TimeInterval
    private let pause: (TimeInterval) -> Void

    private var status = Stream.Status.notOpen
    private var error: (any Error)?
    /// The segment being read and how much of it was read.
    private var index = 0
    private var consumed: UInt64 = 0
    /// The open descriptor of the file segment being read, or -1.
    private var descriptor: Int32 = -1
    /// The stream segment that was opened and not yet closed.
    private var openedStream: InputStream?

    /// A stream over `segments`, handing out at most `packetSize` bytes per read and pausing `delay`
    /// seconds (through `pause`) after each read that returned bytes.
    init(segments: [MultipartSegment], packetSize: Int = .max, delay: TimeInterval = 0,
         pause: @escaping (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) }) {
        self.segments = segments
        contentLength = segments.reduce(0) { $0 + $1.length }
        self.packetSize = max(1, packetSize)
        self.delay = max(0, delay)
        self.pause = pause
        super.init(data: Data())
    }

    deinit {
        releaseSegment()
    }

    // MARK: NSCopying

    /// A new, unopened stream over the same parts (see the file's opening comment).
    func copy(with zone: NSZone? = nil) -> Any {
        let copied = segments.map { segment -> MultipartSegment in
            guard case .stream(let stream?) = segment.source else { return segment }
            let copy = (stream as? NSCopying)?.copy(with: zone) as? InputStream
            return MultipartSegment(source: copy.map { .stream($0) } ?? .uncopiedStream, length: segment.length)
        }
        return MultipartBodyStream(segments: copied, packetSize: packetSize, delay: delay, pause: pause)
    }

    // MARK: InputStream

    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { error }
    override var hasBytesAvailable: Bool { status == .open && index < segments.count }

    override func open() {
        guard status == .notOpen else { return }
        status = .open
        skipFinishedSegments()
    }

    override func close() {
        releaseSegment()
        status = .closed
    }

    // The superclass would answer these from the empty data stream it was made with: no buffer to
    // lend, and no run-loop events (reading is synchronous; a scheduled empty stream would report its end).

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                            length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}

    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}

    /// Up to `min(len, packetSize)` bytes of the body; 0 at the end; -1 on error or before `open()`.
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        switch status {
        case .open: break
        case .atEnd, .closed: return 0
        case .notOpen:
            error = HTTPRequestSerializer.serializationError(NSURLErrorCannotOpenFile, "The body stream is not open")
            return -1
        default: return -1
        }
        let limit = min(len, packetSize)
        var total = 0
        do {
            while total < limit, index < segments.count {
                total += try readSegment(into: buffer + total, count: limit - total)
                skipFinishedSegments()
            }
        } catch {
            releaseSegment()
            self.error = error
            status = .error
            return -1
        }
        if index == segments.count { status = .atEnd }
        if total > 0, delay > 0 { pause(delay) }
        return total
    }

    // MARK: Segments

    /// Moves past every segment read to its end, releasing what it held.
    private func skipFinishedSegments() {
        while index < segments.count, consumed == segments[index].length {
            releaseSegment()
            index += 1
            consumed = 0
        }
    }

    /// Closes the file or stream of the current segment, if open.
    private func releaseSegment() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
        openedStream?.close()
        openedStream = nil
    }

    /// Reads up to `count` bytes of the current (unfinished) segment into `buffer`; never 0.
    private func readSegment(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let segment = segments[index]
        let wanted = Int(min(UInt64(count), segment.length - consumed))
        let read: Int
        switch segment.source {
        case .bytes(let data):
            let start = data.startIndex + Int(consumed)
            data.copyBytes(to: buffer, from: start..<start + wanted)
            read = wanted
        case .file(let path):
            read = try readFile(path, into: buffer, count: wanted, segment: segment)
        case .stream(let stream):
            read = try readStream(stream, into: buffer, count: wanted, segment: segment)
        case .uncopiedStream:
            throw HTTPRequestSerializer.serializationError(
                NSURLErrorCannotOpenFile, "A part's input stream cannot be read again: the body was copied to be "
                    + "sent again, and the part's stream does not conform to NSCopying")
        }
        consumed += UInt64(read)
        return read
    }

    private func readFile(_ path: String, into buffer: UnsafeMutablePointer<UInt8>, count: Int,
                          segment: MultipartSegment) throws -> Int {
        if descriptor < 0 {
            descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Self.posixError("open \(path)") }
        }
        var read: Int
        repeat { read = Glibc.read(descriptor, buffer, count) } while read < 0 && errno == EINTR
        guard read >= 0 else { throw Self.posixError("read \(path)") }
        guard read > 0 else { throw shortSegment("The file \(path)", segment: segment) }
        return read
    }

    private func readStream(_ stream: InputStream?, into buffer: UnsafeMutablePointer<UInt8>, count: Int,
                            segment: MultipartSegment) throws -> Int {
        guard let stream else { throw shortSegment("A nil input stream", segment: segment) }
        if openedStream == nil {
            stream.open()
            openedStream = stream
        }
        let read = stream.read(buffer, maxLength: count)
        guard read >= 0 else {
            throw HTTPRequestSerializer.serializationError(
                NSURLErrorCannotOpenFile, "Reading a part's input stream failed", underlying: stream.streamError)
        }
        guard read > 0 else { throw shortSegment("An input stream", segment: segment) }
        return read
    }

    // MARK: Errors

    /// A part that ended before its announced length (the body's Content-Length would be a lie).
    private func shortSegment(_ what: String, segment: MultipartSegment) -> NSError {
        HTTPRequestSerializer.serializationError(
            NSURLErrorCannotOpenFile, "\(what) ended after \(consumed) of the \(segment.length) bytes announced")
    }

    private static func posixError(_ call: String) -> NSError {
        let code = errno
        return HTTPRequestSerializer.serializationError(
            NSURLErrorCannotOpenFile, "\(call): \(String(cString: strerror(code)))",
            underlying: NSError(domain: NSPOSIXErrorDomain, code: Int(code)))
    }
}
