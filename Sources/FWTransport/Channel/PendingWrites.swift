import FWLoop

// MARK: - PendingWrites

/// Bytes queued for a socket, written in order as the socket accepts them.
///
/// Each buffer may say how many request-body bytes (payload) it carries; once the socket took a whole
/// buffer, its payload counts as sent (`takeSentPayload`). That stays right when the buffer is
/// ciphertext or carries chunk framing, where written bytes are not payload bytes one for one.
struct PendingWrites {
    /// The result of one flush.
    enum FlushResult: Equatable {
        /// Everything queued was written.
        case flushed
        /// The socket is full; wait for writable and flush again.
        case wouldBlock
    }

    private var buffers: [(bytes: [UInt8], payload: Int)] = []
    /// How much of `buffers[0]` was already written.
    private var offset = 0
    /// Payload of the buffers written whole since the last `takeSentPayload`.
    private var sentPayload = 0
    /// Every byte queued so far, and every byte the socket took so far (a write completes once
    /// `writtenBytes` reaches the `queuedBytes` it was queued at).
    private(set) var queuedBytes = 0
    private(set) var writtenBytes = 0

    /// True when nothing waits to be written.
    var isEmpty: Bool { buffers.isEmpty }

    /// Queues bytes, `payload` of which are request-body bytes (empty input is ignored).
    mutating func append(_ bytes: [UInt8], payload: Int = 0) {
        guard !bytes.isEmpty else { return }
        queuedBytes += bytes.count
        buffers.append((bytes, payload))
    }

    /// Drops everything queued (what was not written whole is not counted as sent, nor as written).
    mutating func removeAll() {
        queuedBytes = writtenBytes
        buffers.removeAll()
        offset = 0
        sentPayload = 0
    }

    /// The payload of the buffers written whole since the last call.
    mutating func takeSentPayload() -> Int {
        defer { sentPayload = 0 }
        return sentPayload
    }

    /// Writes as much as the socket takes; `wrote` is shown the bytes each time some left.
    mutating func flush(to socket: Socket, wrote: (ArraySlice<UInt8>) -> Void) throws(IOError) -> FlushResult {
        while let first = buffers.first {
            let result = try first.bytes.withUnsafeBytes { bytes in
                Result { () throws(IOError) in try socket.write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            }.get()
            switch result {
            case .wouldBlock:
                return .wouldBlock
            case .processed(let count):
                wrote(first.bytes[offset..<offset + count])
                writtenBytes += count
                offset += count
                if offset == first.bytes.count {
                    sentPayload += first.payload
                    buffers.removeFirst()
                    offset = 0
                }
            }
        }
        return .flushed
    }
}
