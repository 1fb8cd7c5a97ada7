import CFWZlib

// MARK: - ContentDecoder

/// Undoes a response's `Content-Encoding` (gzip, x-gzip, deflate) as the body streams in, with zlib.
///
/// "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2) but some servers send raw deflate: the
/// first bytes decide. Decoding never grows without bound per call: output is produced in 64 KiB steps.
/// Not Sendable: it belongs to one connection's loop.
final class ContentDecoder {
    /// Why decoding stopped.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var initialised = false
    private var finished = false
    private let isDeflate: Bool
    private var output = [UInt8](repeating: 0, count: 64 * 1024)
    /// The first byte of a "deflate" body, kept until a second one tells zlib-wrapped from raw.
    private var prefix: [UInt8] = []

    /// A decoder for `encoding` (the whole Content-Encoding value), or nil when it is not one we decode
    /// (identity, several codings, br, zstd, ...): the body is then delivered as it is.
    init?(contentEncoding encoding: String) {
        switch encoding.lowercased().trimmingOWS {
        case "gzip", "x-gzip": isDeflate = false
        case "deflate": isDeflate = true
        default: return nil
        }
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if initialised { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decodes the next piece of the body.
    func decode(_ piece: [UInt8]) throws(Failure) -> [UInt8] {
        guard !piece.isEmpty else { return [] }
        var input = piece
        if !initialised {
            input = prefix + piece
            guard input.count >= 2 else {
                prefix = input
                return []
            }
            prefix = []
            try start(peeking: input)
        }
        guard !finished else {
            throw Failure(description: "bytes after the end of the compressed body")
        }
        var decoded: [UInt8] = []
        var unread = 0
        let status = input.withUnsafeBufferPointer { inputBuffer -> Int32 in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
            stream.pointee.avail_in = uInt(inputBuffer.count)
            var status = Z_OK
            repeat {
                status = output.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                    stream.pointee.next_out = outputBuffer.baseAddress
                    stream.pointee.avail_out = uInt(outputBuffer.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    let produced = outputBuffer.count - Int(stream.pointee.avail_out)
                    decoded.append(contentsOf: outputBuffer[..<produced])
                    return status
                }
            } while status == Z_OK && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
            unread = Int(stream.pointee.avail_in)
            stream.pointee.next_in = nil
            return status
        }
        switch status {
        case Z_STREAM_END:
            finished = true
            if unread > 0 { throw Failure(description: "bytes after the end of the compressed body") }
        case Z_OK, Z_BUF_ERROR:
            break
        default:
            throw Failure(description: "the compressed body is corrupt (zlib status \(status))")
        }
        return decoded
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

private extension String {
    var trimmingOWS: Substring {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return view
    }
}
