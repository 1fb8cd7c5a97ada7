import FWLoop

// MARK: - PendingWrites

/// Bytes queued for a socket, written in order as the socket accepts them.
struct PendingWrites {
    /// The result of one flush.
    enum FlushResult: Equatable {
        /// Everything queued was written.
        case flushed
        /// The socket is full; wait for writable and flush again.
        case wouldBlock
    }

    private var buffers: [[UInt8]] = []
    /// How much of `buffers[0]` was already written.
    private var offset = 0

    /// True when nothing waits to be written.
    var isEmpty: Bool { buffers.isEmpty }

    /// Queues bytes (empty input is ignored).
    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        buffers.append(bytes)
    }

    /// Drops everything queued.
    mutating func removeAll() {
        buffers.removeAll()
        offset = 0
    }

    /// Writes as much as the socket takes; `wrote` is shown the bytes each time some left.
    mutating func flush(to socket: Socket, wrote: (ArraySlice<UInt8>) -> Void) throws(IOError) -> FlushResult {
        while let first = buffers.first {
            let result = try first.withUnsafeBytes { bytes in
                Result { () throws(IOError) in try socket.write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            }.get()
            switch result {
            case .wouldBlock:
                return .wouldBlock
            case .processed(let count):
                wrote(first[offset..<offset + count])
                offset += count
                if offset == first.count {
                    buffers.removeFirst()
                    offset = 0
                }
            }
        }
        return .flushed
    }
}
