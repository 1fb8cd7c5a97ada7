// InputBuffer: bytes received from a socket but not consumed yet.

// MARK: - InputBuffer

/// A FIFO of received bytes: appended at the back, taken from the front, compacted lazily so that
/// consuming a large body in pieces stays linear.
struct InputBuffer {
    private var storage: [UInt8] = []
    private var start = 0

    /// Number of unconsumed bytes.
    var count: Int { storage.count - start }

    /// Appends received bytes.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes)
    }

    /// Offset (from the front) of the first occurrence of `pattern` that starts at or after `offset`.
    func firstOffset(of pattern: [UInt8], from offset: Int) -> Int? {
        guard let first = pattern.first, count >= pattern.count else { return nil }
        let last = storage.count - pattern.count
        var index = start + max(0, offset)
        while index <= last {
            if storage[index] == first, storage[index..<(index + pattern.count)].elementsEqual(pattern) {
                return index - start
            }
            index += 1
        }
        return nil
    }

    /// Removes and returns the first `length` bytes.
    mutating func take(_ length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= count, "take(\(length)) with \(count) bytes buffered")
        let result = Array(storage[start..<(start + length)])
        start += length
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 64 * 1024, start >= storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
        return result
    }
}
