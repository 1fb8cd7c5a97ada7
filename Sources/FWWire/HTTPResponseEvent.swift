// What the response parser reports, in order: any interim heads, the final head, body bytes, the end.

/// What the parser reports.
public enum HTTPResponseEvent: Sendable, Equatable {
    /// An interim 1xx response other than 101 (skipped over; reported for observers).
    case informational(HTTPResponseHead)
    /// The final response head and its body framing.
    case head(HTTPResponseHead, framing: BodyFraming)
    /// Body bytes (already de-chunked; the data of chunks that arrived together comes as one event).
    /// Never empty.
    case body([UInt8])
    /// The size line of one chunk of a chunked body (`size` 0 for the last-chunk), before that chunk's data;
    /// `extensions` is the text after the size up to the line end, as received (ISO-8859-1), empty if none.
    /// Only from a parser told to report chunks (`expectResponse(requestMethod:reportsChunks:)`): then each
    /// chunk's data comes as its own `body` events, right after its `chunk`.
    case chunk(size: Int64, extensions: String)
    /// End of the message. `keepAlive` is derived: true only when the version allows it
    /// (1.1 without `Connection: close`, 1.0 with `Connection: keep-alive`), the framing was not
    /// close-delimited and nothing forbade reuse. Trailers are empty unless chunked trailers arrived.
    case end(trailers: HTTPHeaders, keepAlive: Bool)
}
