// HTTPParseError: only a premature close is a premature end; every member is distinct and described.

import FWWire
import Testing

private let allParseErrors: [HTTPParseError] = [
    .invalidStatusLine, .unsupportedVersion, .invalidStatusCode, .invalidHeaderName, .invalidHeaderValue,
    .invalidLineEnding, .headerLineTooLong, .headTooLarge, .tooManyHeaders, .invalidContentLength,
    .conflictingContentLength, .invalidTransferEncoding, .unsupportedTransferCoding,
    .invalidChunkSize, .chunkSizeTooLarge, .invalidChunkExtension,
    .chunkExtensionTooLong, .invalidChunkTerminator, .trailersTooLarge, .unsolicitedSwitchingProtocols,
    .unexpectedEndOfStream,
]

@Test("only unexpectedEndOfStream is a premature end", arguments: allParseErrors)
func prematureEnd(_ error: HTTPParseError) {
    #expect(error.isPrematureEnd == (error == .unexpectedEndOfStream))
}

@Test("members are distinct, with distinct descriptions")
func distinctParseErrors() {
    #expect(Set(allParseErrors).count == allParseErrors.count)
    #expect(Set(allParseErrors.map(\.description)).count == allParseErrors.count)
    #expect(allParseErrors.allSatisfy { !$0.description.isEmpty })
}
