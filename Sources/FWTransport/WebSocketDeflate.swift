import FWWire

// permessage-deflate (RFC 7692 §7.2) over zlib's raw deflate, one instance per connection and direction:
//
//   sending    message ──deflate, Z_SYNC_FLUSH──▶ … 00 00 ff ff ──tail removed──▶ payload, RSV1 on frame 1
//   receiving  payload pieces ──inflate──▶ slices of ≤ 64 KiB, as they come
//              message end ──inflate 00 00 ff ff──▶ the last slices; the data must end on a block boundary
//   either side without context takeover resets its stream after every message
//
// Window sizes: we compress with the agreed client_max_window_bits, except that zlib cannot make a raw
// stream with a 256-byte window (8): then we send uncompressed messages, which RFC 7692 §6 allows (RSV1
// clear). We inflate with the agreed server_max_window_bits, but at least 9: a server built on zlib that
// agreed to 8 compresses with 9 (zlib raises it), and a larger window inflates any smaller one.

/// The two halves of permessage-deflate, made from the parameters the handshake agreed on.
enum WebSocketDeflate {
    /// The empty stored block's LEN/NLEN every compressed message ends with before it is sent.
    static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    /// The most bytes one inflate step produces: what a deflate bomb can cost before the limit stops it.
    static let sliceSize = 64 * 1024
}
