import CFWZlib

// MARK: - ZlibDecoder

/// Undoes gzip (x-gzip) or deflate, as a content coding or a transfer coding, as the body streams in, with
/// zlib: one stage of a `ContentDecoder`.
///
/// "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2) but some servers send raw deflate: the
/// first bytes decide. Output comes in bounded slices: `push` takes an encoded piece, then each `nextSlice`
/// inflates at most `ContentDecoder.sliceSize` bytes of it, until `hasPendingOutput` says the piece is used
/// up — so a piece that inflates a thousandfold (a gzip bomb) never becomes one giant array. Not Sendable: it
/// belongs to one connection's loop.
final class ZlibDecoder: DecodingStage {
    typealias Failure = ContentDecoder.Failure

    private let stream: UnsafeMutablePointer<z_stream>
    private var initialised = false
    private var finished = false
    private let isDeflate: Bool
    /// The first byte of a "deflate" body, kept until a second one tells zlib-wrapped from raw.
    private var prefix: [UInt8] = []
    /// The encoded piece being inflated, and the output slice.
    private var buffers = StageBuffers()
    /// The last slice was full: zlib may hold more output even with no input left.
    private var outputWasFull = false

    /// A decoder of gzip (`deflate` false) or deflate.
    init(deflate: Bool) {
        isDeflate = deflate
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if initialised { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether the pushed pieces may still yield decoded bytes: call `nextSlice` until it is false, and only
    /// then `push` the next piece.
    var hasPendingOutput: Bool {
        initialised && (buffers.hasInput || (outputWasFull && !finished))
    }

    /// Takes the next encoded piece of the body (the previous one must be used up).
    func push(_ piece: [UInt8]) throws(Failure) {
        precondition(!hasPendingOutput, "push(\(piece.count) bytes) before the previous piece was decoded")
        guard !piece.isEmpty else { return }
        guard !finished else { throw Failure(description: "bytes after the end of the compressed body") }
        guard !initialised else { return buffers.take(piece) }
        let input = prefix + piece
        guard input.count >= 2 else {
            prefix = input
            return
        }
        prefix = []
        buffers.take(input)
        try start(peeking: input)
    }

    /// Inflates at most `ContentDecoder.sliceSize` bytes of the pushed input (possibly none).
    func nextSlice() throws(Failure) -> [UInt8] {
        guard hasPendingOutput else { return [] }
        let (status, slice) = buffers.step { input, output in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            stream.pointee.next_out = output.baseAddress
            stream.pointee.avail_out = uInt(output.count)
            let status = inflate(stream, Z_NO_FLUSH)
            stream.pointee.next_in = nil
            return (input.count - Int(stream.pointee.avail_in), output.count - Int(stream.pointee.avail_out), status)
        }
        outputWasFull = slice.count == ContentDecoder.sliceSize
        switch status {
        case Z_STREAM_END:
            finished = true
            if buffers.hasInput { throw Failure(description: "bytes after the end of the compressed body") }
        case Z_OK, Z_BUF_ERROR:
            break
        default:
            throw Failure(description: "the compressed body is corrupt (zlib status \(status))")
        }
        if !hasPendingOutput { buffers.release() }
        return slice
    }

    /// The body ended: it must have been a complete compressed stream.
    func finish() throws(Failure) {
        guard finished || (!initialised && prefix.isEmpty) else {
            throw Failure(description: "the compressed body ended early")
        }
    }

    private func start(peeking input: [UInt8]) throws(Failure) {
        // zlib-wrapped deflate starts with a CMF byte whose low nibble is 8 and a check value; anything
        // else labelled "deflate" is raw deflate.
        let header = input.count >= 2 ? UInt16(input[0]) << 8 | UInt16(input[1]) : 0
        let zlibWrapped = input.count >= 2 && input[0] & 0x0F == 8 && header % 31 == 0
        let windowBits: Int32 = isDeflate ? (zlibWrapped ? 15 : -15) : 15 + 16
        let status = fw_inflate_init(stream, windowBits)
        guard status == Z_OK else { throw Failure(description: "zlib could not start (status \(status))") }
        initialised = true
    }
}
