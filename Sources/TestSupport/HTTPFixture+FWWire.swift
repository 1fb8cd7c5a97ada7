import FWWire

// MARK: - HTTPFixture in FWWire's terms

extension HTTPFixture {
    /// Every `HTTPParseError`, by the name fixtures use.
    public static let parseErrors: [String: HTTPParseError] = [
        "invalidStatusLine": .invalidStatusLine, "unsupportedVersion": .unsupportedVersion,
        "invalidStatusCode": .invalidStatusCode, "invalidHeaderName": .invalidHeaderName,
        "invalidHeaderValue": .invalidHeaderValue, "invalidLineEnding": .invalidLineEnding,
        "headerLineTooLong": .headerLineTooLong, "headTooLarge": .headTooLarge, "tooManyHeaders": .tooManyHeaders,
        "invalidContentLength": .invalidContentLength, "conflictingContentLength": .conflictingContentLength,
        "invalidTransferEncoding": .invalidTransferEncoding, "unsupportedTransferCoding": .unsupportedTransferCoding,
        "invalidChunkSize": .invalidChunkSize, "chunkSizeTooLarge": .chunkSizeTooLarge,
        "invalidChunkExtension": .invalidChunkExtension, "chunkExtensionTooLong": .chunkExtensionTooLong,
        "invalidChunkTerminator": .invalidChunkTerminator, "trailersTooLarge": .trailersTooLarge,
        "unsolicitedSwitchingProtocols": .unsolicitedSwitchingProtocols,
        "unexpectedEndOfStream": .unexpectedEndOfStream,
    ]

    /// The default limits with the fixture's `limit:` lines applied.
    public func httpLimits() throws -> HTTPLimits {
        let properties: [String: WritableKeyPath<HTTPLimits, Int>] = [
            "maxLineLength": \.maxLineLength, "maxHeadSize": \.maxHeadSize, "maxHeaderCount": \.maxHeaderCount,
            "maxChunkSizeDigits": \.maxChunkSizeDigits, "maxChunkExtensionLength": \.maxChunkExtensionLength,
            "maxTrailerSize": \.maxTrailerSize,
        ]
        var limits = HTTPLimits()
        for limit in self.limits {
            guard let property = properties[limit.name] else {
                throw TestSupportError.malformedRequest("fixture \(name): no HTTPLimits.\(limit.name)")
            }
            limits[keyPath: property] = limit.value
        }
        return limits
    }

    /// Fields as a fixture states them: exact bytes, in order.
    public static func fields(_ headers: HTTPHeaders) -> [Field] {
        (0..<headers.count).map {
            Field(name: Array(headers.rawName(at: $0)), value: Array(headers.rawValue(at: $0)))
        }
    }
}

extension HTTPFixture.Head {
    /// The head as a fixture states it (the reason is ISO-8859-1, so each scalar is one byte).
    public init(_ head: HTTPResponseHead) {
        self.init(version: head.version.description, status: head.status,
                  reason: head.reason.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) },
                  fields: HTTPFixture.fields(head.headers))
    }
}
