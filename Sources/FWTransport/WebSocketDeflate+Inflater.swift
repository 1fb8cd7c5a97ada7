import CFWZlib
import FWWire

extension WebSocketDeflate {
    /// Inflates the compressed messages a server sends, for WebSocketConnectionStateMachine.
    ///
    /// Output goes to the caller in slices of at most `sliceSize` bytes; when the caller throws (the state
    /// machine's `messageTooBig`), inflating stops at once, so a deflate bomb costs one slice beyond the
    /// limit. Not Sendable: it belongs to one connection's loop.
    final class Inflater: WebSocketMessageInflater {
        private let stream: UnsafeMutablePointer<z_stream>
        private let slice: UnsafeMutablePointer<Bytef>
        private let resetsAfterMessage: Bool

        /// An inflater for a server compressing as `parameters` say; nil when zlib cannot start (no memory).
        init?(parameters: WebSocketDeflateParameters) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let windowBits = max(parameters.serverMaxWindowBits, 9)
            guard fw_inflate_init(stream, -Int32(windowBits)) == Z_OK else {
                stream.deinitialize(count: 1)
                stream.deallocate()
                return nil
            }
            slice = .allocate(capacity: WebSocketDeflate.sliceSize)
            resetsAfterMessage = parameters.serverNoContextTakeover
        }

        deinit {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
            slice.deallocate()
        }

        // MARK: WebSocketMessageInflater

        /// Inflates the next piece of the current message's payload.
        func inflate(
            _ compressed: UnsafeRawBufferPointer,
            output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void
        ) throws(WebSocketError) {
            try run(compressed, output)
        }

        /// Inflates the tail RFC 7692 §7.2.2 has the receiver append, checks that the message ended on a
        /// deflate block boundary, and resets the stream when the server does not keep its context.
        func finishMessage(output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void) throws(WebSocketError) {
            var failure: WebSocketError?
            WebSocketDeflate.tail.withUnsafeBytes { tail in
                do throws(WebSocketError) {
                    try run(tail, output)
                } catch {
                    failure = error
                }
            }
            if let failure {
                throw failure
            }
            // zlib's data_type has 128 set when inflate stopped between blocks (after the tail's empty
            // stored block); anything else means the message was cut inside a block.
            guard stream.pointee.data_type & 128 != 0 else { throw .invalidCompressedData }
            if resetsAfterMessage {
                inflateReset(stream)
            }
        }

        // MARK: Inflating

        /// Inflates all of `input`, slice by slice. A deflate stream that ends (a block with BFINAL set,
        /// RFC 7692 §7.2.3.4) is reset so that the bytes after it start a new one.
        private func run(
            _ input: UnsafeRawBufferPointer,
            _ output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void
        ) throws(WebSocketError) {
            guard let base = input.baseAddress, !input.isEmpty else { return }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(input.count)
            defer {
                stream.pointee.next_in = nil
                stream.pointee.avail_in = 0
            }
            while true {
                let unread = stream.pointee.avail_in
                stream.pointee.next_out = slice
                stream.pointee.avail_out = uInt(WebSocketDeflate.sliceSize)
                let status = CFWZlib.inflate(stream, Z_SYNC_FLUSH)
                let produced = WebSocketDeflate.sliceSize - Int(stream.pointee.avail_out)
                switch status {
                case Z_OK, Z_BUF_ERROR: break
                case Z_STREAM_END: inflateReset(stream)
                default: throw .invalidCompressedData
                }
                if produced > 0 {
                    try output(UnsafeRawBufferPointer(start: slice, count: produced))
                }
                guard stream.pointee.avail_in > 0 || produced == WebSocketDeflate.sliceSize else { return }
                // zlib always moves with input and room left; a step that does not would loop forever.
                let stalled = status != Z_STREAM_END && produced == 0 && stream.pointee.avail_in == unread
                guard !stalled else { throw .invalidCompressedData }
            }
        }
    }
}
