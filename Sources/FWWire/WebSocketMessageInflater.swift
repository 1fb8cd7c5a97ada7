// The seam between the connection state machine and the permessage-deflate transform.

/// The receiving half of permessage-deflate (RFC 7692), as the connection state machine drives it: the
/// wire payload of each compressed message in, the message's bytes out in bounded slices.
///
/// The implementation lives with zlib in FWTransport; FWWire only calls it. Output goes to `output` in
/// slices small enough to bound memory (the state machine counts them against `maxMessageSize` and stops
/// with `messageTooBig` by throwing from `output`, which must end the call at once).
public protocol WebSocketMessageInflater: AnyObject {
    /// Inflates the next piece of the current compressed message's payload, passing what it produces to
    /// `output`; throws `invalidCompressedData` when the bytes do not inflate.
    func inflate(
        _ compressed: UnsafeRawBufferPointer,
        output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void
    ) throws(WebSocketError)

    /// The current message's payload is complete: inflates the `00 00 ff ff` tail RFC 7692 §7.2.2 strips,
    /// passes the rest of the output to `output`, and prepares for the next message (resetting the
    /// window when the server does not keep its context).
    func finishMessage(output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void) throws(WebSocketError)
}
