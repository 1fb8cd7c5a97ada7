// Request serialisation: the request head, chunks of a chunked request body and its last chunk. Every
// byte a caller controls is validated before anything is appended, so a rejected request leaves the
// output buffer untouched (no header injection, no half-written head).

/// Request serialisation.
public enum HTTPRequestEncoder {
    // MARK: Head

    /// Validates then appends "METHOD SP target SP HTTP/1.1 CRLF", each header "Name: value CRLF",
    /// and the final CRLF to `buffer`. Method must be a token; target non-empty with no CR, LF, SP,
    /// NUL (or other CTLs); names tokens; values no CR, LF, NUL. A `Host` field is required for
    /// HTTP/1.1. Nothing is appended when it throws.
    ///
    /// Also rejects versions other than HTTP/1.0 and HTTP/1.1 (`unsupportedVersion`) and a head with
    /// both Content-Length and Transfer-Encoding (`conflictingFraming`).
    public static func encodeHead(_ head: HTTPRequestHead, into buffer: inout [UInt8])
        throws(HTTPRequestError)
    {
        try writeHead(head, host: nil, into: &buffer)
    }

    /// `encodeHead(_:into:)` for a head without a `Host` field: "Host: `host`" is written as its first field
    /// (RFC 9110 §7.2), followed by ":`port`" when `port` is given, and `host` in brackets when it holds a
    /// colon (an IPv6 literal). The same as adding that field first and encoding, without building its value
    /// or moving the fields. `host` must be non-empty with no CR, LF or NUL (`invalidHeaderValue`); a head
    /// that has a `Host` field of its own is refused (`invalidHeaderName`: it would be sent twice).
    public static func encodeHead(_ head: HTTPRequestHead, host: String, port: Int?, into buffer: inout [UInt8])
        throws(HTTPRequestError)
    {
        try writeHead(head, host: (host, port), into: &buffer)
    }

    // MARK: Chunked body

    /// Appends one chunk (hex size CRLF data CRLF) of a chunked request body; empty input appends nothing.
    public static func encodeChunk(_ bytes: UnsafeRawBufferPointer, into buffer: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        let digits = (Int.bitWidth - bytes.count.leadingZeroBitCount + 3) / 4
        buffer.reserveCapacity(buffer.count + digits + bytes.count + 4)
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: bytes.count >> shift) & 0x0F
            buffer.append(digit < 10 ? 0x30 + digit : 0x57 + digit)
        }
        buffer.append(contentsOf: ASCII.crlf)
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: ASCII.crlf)
    }

    /// Appends the last chunk "0 CRLF", optional trailers, and the final CRLF.
    ///
    /// A trailer field that `validate(trailers:)` would reject is left out rather than written; call
    /// `validate(trailers:)` first to treat such fields as an error instead.
    public static func encodeLastChunk(trailers: HTTPHeaders, into buffer: inout [UInt8]) {
        buffer.append(0x30)
        buffer.append(contentsOf: ASCII.crlf)
        appendFields(trailers, skippingInvalid: true, into: &buffer)
        buffer.append(contentsOf: ASCII.crlf)
    }

    // MARK: Validation

    /// Throws the first reason `head` cannot be written as is.
    public static func validate(_ head: HTTPRequestHead) throws(HTTPRequestError) {
        _ = try checked(head, host: nil)
    }

    /// Throws when a trailer field has a name that is not a token or a value with CR, LF or NUL.
    public static func validate(trailers: HTTPHeaders) throws(HTTPRequestError) {
        try validate(fields: trailers)
    }

    private static func validate(fields: HTTPHeaders) throws(HTTPRequestError) {
        _ = try summarize(fields).get()
    }

    private static func validateField(_ fields: HTTPHeaders, at index: Int) throws(HTTPRequestError) {
        let name = fields.rawName(at: index)
        guard !name.isEmpty, ByteClass.token.containsAll(name) else { throw .invalidHeaderName }
        guard ByteClass.requestFieldValue.containsAll(fields.rawValue(at: index)) else {
            throw .invalidHeaderValue
        }
    }

    /// Appends "Name: value CRLF" for each field; with `skippingInvalid`, only for each valid one.
    private static func appendFields(_ fields: HTTPHeaders, skippingInvalid: Bool, into buffer: inout [UInt8]) {
        for index in 0..<fields.count {
            if skippingInvalid, (try? validateField(fields, at: index)) == nil { continue }
            buffer.append(contentsOf: fields.rawName(at: index))
            buffer.append(ASCII.colon)
            buffer.append(ASCII.space)
            buffer.append(contentsOf: fields.rawValue(at: index))
            buffer.append(contentsOf: ASCII.crlf)
        }
    }
}
