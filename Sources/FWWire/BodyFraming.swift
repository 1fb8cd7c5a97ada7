// Body framing of a response as one pure function: RFC 9112 §6.3 applied in order, as CONFORMANCE.md
// "Message body framing" rules 1-5 state it; and the transfer codings besides chunked that the body carries
// (CONFORMANCE.md: "Transfer codings other than chunked are decoded or refused, never handed over encoded").

/// How a message body is delimited.
public enum BodyFraming: Hashable, Sendable {
    /// No body at all.
    case none
    /// Exactly this many bytes.
    case contentLength(Int64)
    /// The chunked transfer coding, ended by the last chunk and an optional trailer section.
    case chunked
    /// Everything until the peer closes the connection.
    case untilClose
}

/// RFC 9112 §6.3 as one pure function (CONFORMANCE.md "Message body framing", rules 1-5).
public enum ResponseFramingRules {
    /// The framing of a final (non-1xx) response, and whether it forbids reusing the connection
    /// (TE+CL together, TE in HTTP/1.0, TE whose final coding is not chunked, close-delimited). Throws for
    /// conflicting or invalid lengths, and for transfer codings that cannot be undone (`transferCodings(of:)`).
    public static func framing(requestMethod: String, head: HTTPResponseHead) throws(HTTPParseError)
        -> (framing: BodyFraming, forbidsReuse: Bool)
    {
        var deviations = HTTPDeviations()
        return try framing(requestMethod: requestMethod, head: head, deviations: &deviations, refusing: [])
    }

    /// `framing(requestMethod:head:)`, adding the named deviations the framing tolerated to `deviations`
    /// (`duplicate-identical-content-length`, `transfer-encoding-with-content-length`,
    /// `transfer-encoding-in-http10`); one that `refused` holds throws `HTTPParseError.refused(_:)`.
    public static func framing(
        requestMethod: String, head: HTTPResponseHead, deviations: inout HTTPDeviations,
        refusing refused: HTTPDeviations
    ) throws(HTTPParseError) -> (framing: BodyFraming, forbidsReuse: Bool) {
        // Rule 1: no body whatever the headers say; a 2xx answer to CONNECT turns the connection into a
        // tunnel right after the head (RFC 9112 §6.3 rule 2). (Rule 2, interim 1xx, is the parser's loop.)
        if requestMethod == "HEAD" || (100..<200).contains(head.status) || head.status == 204
            || head.status == 304 || (requestMethod == "CONNECT" && (200..<300).contains(head.status))
        {
            return (.none, false)
        }
        // Rule 3: Transfer-Encoding wins over Content-Length, which is then ignored.
        if head.headers.contains(name: "Transfer-Encoding") {
            // Every coding must be one we can undo (chunked twice or not last, an unknown coding: an error).
            let codings = try transferCodings(of: head)
            // In HTTP/1.0 Transfer-Encoding is ignored for framing (RFC 9112 §6.1: probably forwarded
            // without decoding); a coding still applied to what we read could never be undone.
            if head.version == .http1_0, !codings.isEmpty { throw .unsupportedTransferCoding }
            let withLength = head.headers.contains(name: "Content-Length")
            if withLength {
                try deviations.record(.transferEncodingWithContentLength, refusing: refused)
            }
            if head.version == .http1_0 {
                try deviations.record(.transferEncodingInHTTP10, refusing: refused)
                return (.untilClose, true)
            }
            if !finalCodingIsChunked(head.headers) {
                return (.untilClose, true)
            }
            return (.chunked, withLength)
        }
        // Rule 4.
        if let length = try contentLength(head.headers, deviations: &deviations, refusing: refused) {
            return (.contentLength(length), false)
        }
        // Rule 5.
        return (.untilClose, true)
    }

    /// The transfer codings other than `chunked` that `head`'s Transfer-Encoding fields name, in the order
    /// they were applied (decode them last to first, after de-chunking, then the Content-Encoding). Throws
    /// `invalidTransferEncoding` when `chunked` is named more than once, and `unsupportedTransferCoding` for
    /// a coding we cannot undo or a `chunked` before another coding (RFC 9112 §6.1 allows it with a
    /// close-delimited body; undoing it would mean de-chunking after decompressing: refused).
    public static func transferCodings(of head: HTTPResponseHead) throws(HTTPParseError) -> [TransferCoding] {
        // A sender must never apply chunked twice (RFC 9112 §6.1): no framing can be trusted.
        if chunkedCount(head.headers) > 1 { throw .invalidTransferEncoding }
        var codings: [TransferCoding] = []
        var chunkedSeen = false
        try head.headers.forEachElement(inField: "Transfer-Encoding") { (element) throws(HTTPParseError) in
            guard !element.isEmpty else { return }
            if chunkedSeen { throw .unsupportedTransferCoding }
            if isChunked(element) {
                chunkedSeen = true
            } else if let coding = TransferCoding(element: element) {
                codings.append(coding)
            } else {
                throw .unsupportedTransferCoding
            }
        }
        return codings
    }

    // MARK: Rule helpers

    /// How many times `chunked` is named over all Transfer-Encoding fields.
    private static func chunkedCount(_ headers: HTTPHeaders) -> Int {
        var count = 0
        headers.forEachElement(inField: "Transfer-Encoding") { element in
            if isChunked(element) { count += 1 }
        }
        return count
    }

    private static func isChunked(_ coding: ArraySlice<UInt8>) -> Bool {
        coding.withUnsafeBufferPointer { ASCII.equalIgnoringCase($0, "chunked") }
    }

    /// True when the last non-empty transfer coding over all Transfer-Encoding fields is `chunked`.
    private static func finalCodingIsChunked(_ headers: HTTPHeaders) -> Bool {
        var last: ArraySlice<UInt8> = []
        headers.forEachElement(inField: "Transfer-Encoding") { element in
            if !element.isEmpty {
                last = element
            }
        }
        return isChunked(last)
    }

    /// The one value of every Content-Length element (repeated fields and lists collapse when all are
    /// equal), or nil when there is no Content-Length field.
    /// More than one element is the deviation `duplicate-identical-content-length`.
    private static func contentLength(
        _ headers: HTTPHeaders, deviations: inout HTTPDeviations, refusing refused: HTTPDeviations
    ) throws(HTTPParseError) -> Int64? {
        var length: Int64?
        var duplicated = false
        try headers.forEachElement(inField: "Content-Length") { (element) throws(HTTPParseError) in
            let value = try decimal(element)
            if let length {
                guard length == value else { throw .conflictingContentLength }
                duplicated = true
            }
            length = value
        }
        if duplicated {
            try deviations.record(.duplicateIdenticalContentLength, refusing: refused)
        }
        return length
    }

    /// 1*DIGIT as an Int64, with checked arithmetic.
    private static func decimal(_ digits: ArraySlice<UInt8>) throws(HTTPParseError) -> Int64 {
        guard !digits.isEmpty else { throw .invalidContentLength }
        var value: Int64 = 0
        for byte in digits {
            guard let digit = ASCII.decimalDigitValue(byte) else { throw .invalidContentLength }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int64(digit))
            guard !overflowA, !overflowB else { throw .invalidContentLength }
            value = sum
        }
        return value
    }
}
