import Foundation
import FWTransport

// MARK: - The streams of `captureStreams()`
//
// swift-corelibs-foundation has no bound stream pair (`Stream.getBoundStreams` does not exist there) and no
// socket streams a connection could be handed to, so the captured connection is wrapped: an `InputStream`
// and an `OutputStream` subclass over the task's `StreamChannel`. They are synchronous, as a blocking socket
// is: `read(_:maxLength:)` waits until at least one byte (or the end) arrived, `write(_:maxLength:)` until
// the connection took the bytes. Foundation on Linux gives custom streams no run-loop events, so `delegate`
// and `schedule(in:forMode:)` do nothing. Closing the input stops reading, closing the output shuts the write
// side down; the connection closes when both are closed.

/// Waits for one reply of the channel on the calling thread.
private final class Reply<Value: Sendable>: @unchecked Sendable { // `value` is under `lock`
    private let lock = NSCondition()
    private var value: Value?

    func set(_ newValue: Value) {
        lock.lock()
        value = newValue
        lock.signal()
        lock.unlock()
    }

    func wait() -> Value {
        lock.lock()
        defer { lock.unlock() }
        while value == nil { lock.wait() }
        guard let value else { preconditionFailure("Reply.wait() without a value") }
        return value
    }
}

/// The input half of a captured stream task.
final class StreamTaskInputStream: InputStream { // mutable state under `lock`
    private let channel: StreamChannel
    private let lock = NSLock()
    private var status = Stream.Status.notOpen
    private var failure: (any Error)?

    init(channel: StreamChannel) {
        self.channel = channel
        super.init(data: Data())
    }

    override var streamStatus: Stream.Status { lock.withLock { status } }
    override var streamError: (any Error)? { lock.withLock { failure } }
    override var hasBytesAvailable: Bool { lock.withLock { status == .open } }

    override func open() {
        lock.withLock { if status == .notOpen { status = .open } }
    }

    override func close() {
        let wasOpen = lock.withLock { () -> Bool in
            defer { status = .closed }
            return status != .closed
        }
        if wasOpen { channel.closeRead() }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard lock.withLock({ status == .open }), len > 0 else { return lock.withLock { status == .atEnd } ? 0 : -1 }
        let reply = Reply<Result<StreamReadResult, TransportError>>()
        channel.read(minLength: 1, maxLength: len, timeout: nil) { reply.set($0) }
        switch reply.wait() {
        case .success(let read):
            read.bytes.withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { buffer.update(from: base, count: bytes.count) }
            }
            if read.atEOF { lock.withLock { status = .atEnd } }
            return read.bytes.count
        case .failure(let error):
            lock.withLock {
                status = .error
                failure = URLError(error, url: nil)
            }
            return -1
        }
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                            length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}

/// The output half of a captured stream task.
final class StreamTaskOutputStream: OutputStream { // mutable state under `lock`
    /// nil only for a stream made with `init(toMemory:)`, which writes nowhere (every write fails).
    private let channel: StreamChannel?
    private let lock = NSLock()
    private var status = Stream.Status.notOpen
    private var failure: (any Error)?

    init(channel: StreamChannel) {
        self.channel = channel
        super.init(toMemory: ())
    }

    /// A stream over no connection (OutputStream requires this initializer): it fails every write.
    required init(toMemory: ()) {
        channel = nil
        super.init(toMemory: ())
    }

    override var streamStatus: Stream.Status { lock.withLock { status } }
    override var streamError: (any Error)? { lock.withLock { failure } }
    override var hasSpaceAvailable: Bool { lock.withLock { status == .open } }

    override func open() {
        lock.withLock { if status == .notOpen { status = .open } }
    }

    override func close() {
        let wasOpen = lock.withLock { () -> Bool in
            defer { status = .closed }
            return status != .closed
        }
        if wasOpen { channel?.closeWrite() }
    }

    override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        guard let channel, lock.withLock({ status == .open }) else { return -1 }
        guard len > 0 else { return 0 }
        let reply = Reply<TransportError?>()
        channel.write(Array(UnsafeBufferPointer(start: buffer, count: len)), timeout: nil) { reply.set($0) }
        guard let error = reply.wait() else { return len }
        lock.withLock {
            status = .error
            failure = URLError(error, url: nil)
        }
        return -1
    }
}
