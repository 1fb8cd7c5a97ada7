import CFWZlib
import FWWire

extension WebSocketDeflate {
    /// Compresses the messages a client sends: the result is the payload of a message whose first frame
    /// has RSV1 set (`WebSocketFrameEncoder.encodeMessage(_:payload:isCompressed:…)`).
    ///
    /// Not Sendable: it belongs to one connection's loop.
    final class Deflater {
        private let stream: UnsafeMutablePointer<z_stream>
        private let slice: UnsafeMutablePointer<Bytef>
        private let resetsAfterMessage: Bool

        /// A deflater compressing as `parameters` allow; nil when messages must go uncompressed (an agreed
        /// 256-byte window, which zlib cannot make) or zlib cannot start (no memory).
        init?(parameters: WebSocketDeflateParameters) {
            guard parameters.clientMaxWindowBits > 8 else { return nil }
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let status = fw_deflate_init(stream, Z_DEFAULT_COMPRESSION, -Int32(parameters.clientMaxWindowBits))
            guard status == Z_OK else {
                stream.deinitialize(count: 1)
                stream.deallocate()
                return nil
            }
            slice = .allocate(capacity: WebSocketDeflate.sliceSize)
            resetsAfterMessage = parameters.clientNoContextTakeover
        }

        deinit {
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
            slice.deallocate()
        }

        /// The compressed form of one message (RFC 7692 §7.2.1): deflated and flushed to a byte boundary,
        /// without the trailing `00 00 ff ff`; an empty message compresses to `00`. The stream is reset
        /// afterwards when we do not keep our context.
        func compress(_ message: UnsafeRawBufferPointer) -> [UInt8] {
            var compressed: [UInt8] = []
            stream.pointee.next_in = message.baseAddress.map {
                UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
            }
            stream.pointee.avail_in = uInt(message.count)
            repeat {
                stream.pointee.next_out = slice
                stream.pointee.avail_out = uInt(WebSocketDeflate.sliceSize)
                let status = deflate(stream, Z_SYNC_FLUSH)
                precondition(status == Z_OK || status == Z_BUF_ERROR, "deflate failed with zlib status \(status)")
                let produced = WebSocketDeflate.sliceSize - Int(stream.pointee.avail_out)
                compressed.append(contentsOf: UnsafeBufferPointer(start: slice, count: produced))
            } while stream.pointee.avail_out == 0
            stream.pointee.next_in = nil
            if compressed.isEmpty {
                // An empty message right after a flush: zlib has nothing to write and refuses a second
                // flush. The first byte of an empty stored block says the same (§7.2.3.6).
                compressed = [0x00] + WebSocketDeflate.tail
            }
            precondition(compressed.suffix(4).elementsEqual(WebSocketDeflate.tail), "Z_SYNC_FLUSH without its tail")
            compressed.removeLast(4)
            if resetsAfterMessage {
                deflateReset(stream)
            }
            return compressed
        }
    }
}
