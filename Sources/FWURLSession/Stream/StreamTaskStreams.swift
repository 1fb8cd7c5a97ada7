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
private final class Reply<Value: Sendable>: Sendable {
    private let value = LockedBox<Value?>(nil)
    private let arrived = DispatchSemaphore(value: 0)

    func set(_ newValue: Value) {
        exchange(newValue)
        arrived.signal()
    }

    func wait() -> Value {
        arrived.wait()
        guard let value = exchange(nil) else { preconditionFailure("Reply.wait() without a value") }
        return value
    }

    /// Stores `newValue` and returns the value it replaces, under the lock.
    @discardableResult
    private func exchange(_ newValue: Value?) -> Value? {
        value.withLock { value in
            defer { value = newValue }
            return value
        }
    }
}

/// The input half of a captured stream task.
final class StreamTaskInputStream: InputStream {
    private let channel: StreamChannel
    private let state = CapturedStreamState()

    init(channel: StreamChannel) {
        self.channel = channel
        super.init(data: Data())
    }

    override var streamStatus: Stream.Status { state.input { $0.status } }
    override var streamError: (any Error)? { state.input { $0.failure } }
    override var hasBytesAvailable: Bool { state.input { $0.isOpen } }

    override func open() {
        state.input { $0.open() }
    }

    override func close() {
        if state.input({ $0.close() }) { channel.closeRead() }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        if let answer = state.input({ $0.transfer() }) { return answer }
        guard len > 0 else { return -1 }
        let reply = Reply<Result<StreamReadResult, TransportError>>()
        channel.read(minLength: 1, maxLength: len, timeout: nil) { reply.set($0) }
        switch reply.wait() {
        case .success(let read):
            read.bytes.withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { buffer.update(from: base, count: bytes.count) }
            }
            if read.atEOF { state.input { $0.readReachedEnd() } }
            return read.bytes.count
        case .failure(let error):
            state.input { $0.fail(error) }
            return -1
        }
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                            length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}

/// The output half of a captured stream task.
final class StreamTaskOutputStream: OutputStream {
    /// nil only for a stream made with `init(toMemory:)`, which writes nowhere (every write fails).
    private let channel: StreamChannel?
    private let state = CapturedStreamState()

    init(channel: StreamChannel) {
        self.channel = channel
        super.init(toMemory: ())
    }

    /// A stream over no connection (OutputStream requires this initializer): it fails every write.
    required init(toMemory: ()) {
        channel = nil
        super.init(toMemory: ())
    }

    override var streamStatus: Stream.Status { state.input { $0.status } }
    override var streamError: (any Error)? { state.input { $0.failure } }
    override var hasSpaceAvailable: Bool { state.input { $0.isOpen } }

    override func open() {
        state.input { $0.open() }
    }

    override func close() {
        if state.input({ $0.close() }) { channel?.closeWrite() }
    }

    override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        guard let channel, state.input({ $0.isOpen }) else { return -1 }
        guard len > 0 else { return 0 }
        let reply = Reply<TransportError?>()
        channel.write(Array(UnsafeBufferPointer(start: buffer, count: len)), timeout: nil) { reply.set($0) }
        guard let error = reply.wait() else { return len }
        state.input { $0.fail(error) }
        return -1
    }
}
