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
        appendHead(head, host: nil, into: &buffer)
    }

    /// `encodeHead(_:into:)` for a head without a `Host` field: "Host: `host`" is written as its first field
    /// (RFC 9110 §7.2), followed by ":`port`" when `port` is given, and `host` in brackets when it holds a
    /// colon (an IPv6 literal). The same as adding that field first and encoding, without building its value
    /// or moving the fields. `host` must be non-empty with no CR, LF or NUL (`invalidHeaderValue`); a head
    /// that has a `Host` field of its own is refused (`invalidHeaderName`: it would be sent twice).
    public static func encodeHead(_ head: HTTPRequestHead, host: String, port: Int?, into buffer: inout [UInt8])
        throws(HTTPRequestError)
    {
        try validate(head, hostGiven: true)
        guard !host.isEmpty, ByteClass.requestFieldValue.containsAll(host.utf8) else { throw .invalidHeaderValue }
        guard !head.headers.contains(name: "Host") else { throw .invalidHeaderName }
        appendHead(head, host: (host, port), into: &buffer)
    }

    /// Appends a validated head, with a `Host` field first when `host` is given.
    private static func appendHead(_ head: HTTPRequestHead, host: (name: String, port: Int?)?,
                                   into buffer: inout [UInt8]) {
        let method = head.method.utf8
        let target = head.target.utf8
        let version = head.version.description.utf8
        var size = method.count + target.count + version.count + 6
        if let host { size += host.name.utf8.count + 16 }
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
        if let host { appendHostField(host.name, port: host.port, into: &buffer) }
        // `validate` checked every field: none is skipped, so none is checked again.
        appendFields(head.headers, skippingInvalid: false, into: &buffer)
        buffer.append(contentsOf: ASCII.crlf)
    }

    /// Appends "Host: host[:port] CRLF", an IPv6 literal in brackets.
    private static func appendHostField(_ host: String, port: Int?, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: "Host: ".utf8)
        let bracketed = host.utf8.contains(ASCII.colon)
        if bracketed { buffer.append(UInt8(ascii: "[")) }
        buffer.append(contentsOf: host.utf8)
        if bracketed { buffer.append(UInt8(ascii: "]")) }
        if let port {
            buffer.append(ASCII.colon)
            appendDecimal(port, into: &buffer)
        }
        buffer.append(contentsOf: ASCII.crlf)
    }

    /// Appends the decimal digits of `value` (a sign first when negative).
    private static func appendDecimal(_ value: Int, into buffer: inout [UInt8]) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { room in
            repeat {
                room[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            buffer.append(contentsOf: room[(20 - count)...])
        }
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
        try validate(head, hostGiven: false)
    }

    /// `validate(_:)`; with `hostGiven`, the `Host` field is written apart from the head's fields.
    private static func validate(_ head: HTTPRequestHead, hostGiven: Bool) throws(HTTPRequestError) {
        let method = head.method.utf8
        guard !method.isEmpty, ByteClass.token.containsAll(method) else { throw .invalidMethod }
        let target = head.target.utf8
        guard !target.isEmpty, ByteClass.requestTarget.containsAll(target) else { throw .invalidTarget }
        guard head.version == .http1_1 || head.version == .http1_0 else { throw .unsupportedVersion }
        try validate(fields: head.headers)
        if !hostGiven, head.version == .http1_1, !head.headers.contains(name: "Host") {
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
