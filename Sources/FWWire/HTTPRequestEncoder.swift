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
        try validate(head)
        let method = head.method.utf8
        let target = head.target.utf8
        let version = head.version.description.utf8
        var size = method.count + target.count + version.count + 6
        for index in 0..<head.headers.count {
            size += head.headers.rawName(at: index).count + head.headers.rawValue(at: index).count + 4
        }
        buffer.reserveCapacity(buffer.count + size)

        buffer.append(contentsOf: method)
        buffer.append(ASCII.space)
        buffer.append(contentsOf: target)
        buffer.append(ASCII.space)
        buffer.append(contentsOf: version)
        buffer.append(contentsOf: ASCII.crlf)
        // `validate` checked every field: none is skipped, so none is checked again.
        appendFields(head.headers, skippingInvalid: false, into: &buffer)
        buffer.append(contentsOf: ASCII.crlf)
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
        let method = head.method.utf8
        guard !method.isEmpty, ByteClass.token.containsAll(method) else { throw .invalidMethod }
        let target = head.target.utf8
        guard !target.isEmpty, ByteClass.requestTarget.containsAll(target) else { throw .invalidTarget }
        guard head.version == .http1_1 || head.version == .http1_0 else { throw .unsupportedVersion }
        try validate(fields: head.headers)
        if head.version == .http1_1, !head.headers.contains(name: "Host") {
            throw .missingHost
        }
        if head.headers.contains(name: "Content-Length"), head.headers.contains(name: "Transfer-Encoding") {
            throw .conflictingFraming
        }
    }

    /// Throws when a trailer field has a name that is not a token or a value with CR, LF or NUL.
    public static func validate(trailers: HTTPHeaders) throws(HTTPRequestError) {
        try validate(fields: trailers)
    }

    private static func validate(fields: HTTPHeaders) throws(HTTPRequestError) {
        for index in 0..<fields.count {
            try validateField(fields, at: index)
        }
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
