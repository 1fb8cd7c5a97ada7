// HTTPResponseParser's receive buffer: one `[UInt8]` holds the received bytes and `readIndex` marks what events
// consumed; consumed bytes are dropped when the next feed arrives, and large reads and body events move the
// array itself instead of copying it (see the opening comment of HTTPResponseParser.swift). The `feed` inputs
// that fill it are here; the rest is used only by the parser's own inputs and transitions.

// MARK: - Feeding

extension HTTPResponseParser {
    /// Appends received bytes (copied; `bytes` may be reused once this returns). Ignored after an error.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard acceptsInput else { return }
        append(bytes)
    }

    /// Appends received bytes. Ignored after an error.
    ///
    /// A large array fed when every earlier byte was consumed is kept as it is, without a copy (so a
    /// caller that reads into a fresh array per read gets body events that share its storage).
    public mutating func feed(_ bytes: [UInt8]) {
        guard acceptsInput else { return }
        if readIndex == buffer.count, bytes.count >= Self.zeroCopyMinimum {
            buffer = bytes
            readIndex = 0
        } else {
            bytes.withUnsafeBytes { append($0) }
        }
    }

    /// Reads received bytes straight into the parser: `read` writes up to `maxCount` bytes and returns
    /// how many it wrote. Returns that count.
    ///
    /// While a large body is expected, the bytes land in a fresh buffer with the few bytes not yet consumed
    /// moved to its front, so a body event that covers a whole read hands that buffer on without a copy: a
    /// socket read into it is the only copy a large body's bytes go through. (A long unfinished line is
    /// appended to instead, so a head arriving in small pieces is not moved again and again.) A head or a
    /// small body is read into the parser's reusable read area and copied into the buffer, which keeps its
    /// capacity: a small response makes no array per read (a fresh 64 KiB one, allocated and freed, cost
    /// a small GET about 1.5 k instructions). The bytes are ignored after an error (`read` still runs); when
    /// `read` throws, the parser is unchanged.
    @discardableResult
    public mutating func feed<Failure: Error>(
        upTo maxCount: Int,
        using read: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int
    ) throws(Failure) -> Int {
        let accepting = acceptsInput
        if accepting, !expectsLargeBody {
            return try readThroughArea(upTo: maxCount, read)
        }
        let unread = accepting ? bufferedByteCount : 0
        guard unread <= Self.zeroCopyMinimum else {
            let bytes = try filledPiece(prefix: UnsafeRawBufferPointer(start: nil, count: 0), room: maxCount, read)
            bytes.withUnsafeBytes { append($0) }
            return bytes.count
        }
        let start = buffer.count - unread
        let filled = try buffer.withBytes { (bytes) throws(Failure) in
            try filledPiece(prefix: bytes.suffix(from: start), room: maxCount, read)
        }
        if accepting {
            buffer = filled
            readIndex = 0
        }
        return filled.count - unread
    }
}

// MARK: - Buffer

extension HTTPResponseParser {
    /// Runs `body` on the unconsumed bytes.
    func withUnreadBytes<Value>(
        _ body: (UnsafeRawBufferPointer) throws(HTTPParseError) -> Value
    ) throws(HTTPParseError) -> Value {
        let start = readIndex
        return try buffer.withBytes { (bytes) throws(HTTPParseError) in try body(bytes.suffix(from: start)) }
    }

    /// An array holding `prefix`, then what `read` wrote into the `room` bytes after it: one from `pieceSupply`,
    /// written over and shortened to what it holds (its capacity kept), or a fresh one.
    func filledPiece<Failure: Error>(
        prefix: UnsafeRawBufferPointer,
        room: Int,
        _ read: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int
    ) throws(Failure) -> [UInt8] {
        let needed = prefix.count + room
        guard var piece = pieceSupply?.takePiece(count: needed), piece.count >= needed else {
            return try Self.filledArray(prefix: prefix, room: room, read)
        }
        let count: Int
        do {
            count = try piece.withUnsafeMutableBytes { raw in
                UnsafeMutableRawBufferPointer(rebasing: raw[..<prefix.count]).copyMemory(from: prefix)
                return Self.checked(try read(UnsafeMutableRawBufferPointer(rebasing: raw[prefix.count..<needed])),
                                    room: room)
            }
        } catch {
            throw Self.typed(error, as: Failure.self)
        }
        piece.removeLast(piece.count - prefix.count - count)
        return piece
    }

    /// A fresh array holding `prefix`, then what `read` wrote into the `room` bytes after it.
    static func filledArray<Failure: Error>(
        prefix: UnsafeRawBufferPointer,
        room: Int,
        _ read: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int
    ) throws(Failure) -> [UInt8] {
        do {
            return try [UInt8](unsafeUninitializedCapacity: prefix.count + room) { storage, initialized in
                let raw = UnsafeMutableRawBufferPointer(storage)
                raw.copyMemory(from: prefix)
                initialized = prefix.count
                let after = UnsafeMutableRawBufferPointer(rebasing: raw[prefix.count..<prefix.count + room])
                initialized += checked(try read(after), room: room)
            }
        } catch {
            throw typed(error, as: Failure.self)
        }
    }

    // The unsafe-buffer closures `read` runs in throw untyped errors, so its typed failure comes back as `any
    // Error` and is cast back (`typed`); the cast costs only when a read fails. A `Result<Int, Failure>` made
    // this generic code (the transport's `Failure` is not known here) look up `Result`'s metadata for its type
    // twice per read and move the result through value witnesses: about 1,000 instructions per small request.

    /// The count a `read` reported, checked against the room it had.
    @inline(__always)
    static func checked(_ count: Int, room: Int) -> Int {
        precondition((0...room).contains(count), "feed(upTo:using:): read reported \(count) bytes")
        return count
    }

    /// `error`, which a `read` closure typed `Failure` threw.
    static func typed<Failure: Error>(_ error: any Error, as _: Failure.Type) -> Failure {
        guard let error = error as? Failure else {
            preconditionFailure("feed(upTo:using:): a read threw \(error), which is not a \(Failure.self)")
        }
        return error
    }

    /// Whether the body under way may still bring a read's worth of bytes that a body event can take whole
    /// (`feed(upTo:using:)` then reads into a fresh array rather than through the read area).
    var expectsLargeBody: Bool {
        switch state {
        case .contentLength(let remaining, _): remaining >= Self.zeroCopyMinimum
        case .untilClose, .chunked: true
        case .idle, .statusLine, .headerFields, .ending, .failed: false
        }
    }

    /// `feed(upTo:using:)` through the reusable read area: `read` fills it, and what it wrote is appended.
    mutating func readThroughArea<Failure: Error>(
        upTo maxCount: Int,
        _ read: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int
    ) throws(Failure) -> Int {
        // Moved out while in use, so that writing into it never copies it.
        var area: [UInt8] = []
        swap(&area, &readArea)
        defer { swap(&area, &readArea) }
        if area.count < maxCount { area = Self.unwrittenArea(count: maxCount) }
        let count: Int
        do {
            count = try area.withUnsafeMutableBytes { all in
                Self.checked(try read(UnsafeMutableRawBufferPointer(rebasing: all[..<maxCount])), room: maxCount)
            }
        } catch {
            throw Self.typed(error, as: Failure.self)
        }
        area.withUnsafeBytes { append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        return count
    }

    /// A read area of `count` bytes left as the allocator returned them. Nothing reads a byte of it that `read`
    /// did not write first: `readThroughArea` copies out only the count `read` returned. Zeroing it, as
    /// `[UInt8](repeating:count:)` does, wrote 64 KiB per connection: about a third of a new connection's
    /// instructions under callgrind, and a sweep that evicted the L1 data cache.
    static func unwrittenArea(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// Drops the consumed bytes, then appends `bytes`.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if readIndex > 0 {
            buffer.removeSubrange(0..<readIndex)
        }
        readIndex = 0
        buffer.append(contentsOf: bytes)
    }

    /// Marks `count` bytes consumed (they are dropped when the next feed arrives).
    mutating func consume(_ count: Int) {
        readIndex += count
    }

    /// Consumes the next `count` bytes and returns them: the buffer itself when they are all of it and
    /// fill at least half its capacity (no copy), else a copy.
    mutating func takeBytes(_ count: Int) -> [UInt8] {
        if readIndex == 0, count == buffer.count, count >= Self.zeroCopyMinimum, count * 2 >= buffer.capacity {
            defer {
                buffer = []
            }
            return buffer
        }
        let bytes = Array(buffer[readIndex..<readIndex + count])
        consume(count)
        return bytes
    }

    /// Consumes the next `count` bytes, appending them to `body`.
    mutating func appendBytes(_ count: Int, to body: inout [UInt8]) {
        let start = readIndex
        buffer.withUnsafeBytes { bytes in
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]))
        }
        consume(count)
    }
}
