import FWTLS
import Testing

@Suite struct TLSErrorTests {
    @Test func exactlyOnePredicateHoldsForEachKind() {
        let cases: [(TLSError, KeyPath<TLSError, Bool>)] = [
            (.handshakeFailed(reason: "r"), \.isHandshakeFailure),
            (.protocolError(reason: "r"), \.isProtocolError),
            (.unsupportedProtocolVersion(reason: "r"), \.isUnsupportedProtocolVersion),
            (.truncated(reason: "r"), \.isTruncated),
            (.clientCertificateRequired(reason: "r"), \.isClientCertificateRequired),
            (.clientCertificateRejected(reason: "r"), \.isClientCertificateRejected),
            (.decodingFailed(reason: "r"), \.isDecodingFailure),
            (.wrongPassword(reason: "r"), \.isWrongPassword),
            (.keyMismatch(reason: "r"), \.isKeyMismatch),
            (.fileUnreadable(reason: "r"), \.isFileUnreadable),
            (.internalError(reason: "r"), \.isInternalError),
        ]
        let predicates = cases.map(\.1)
        for (error, predicate) in cases {
            #expect(error[keyPath: predicate])
            #expect(predicates.filter { error[keyPath: $0] }.count == 1, "\(error)")
            #expect(error.reason == "r")
        }
        #expect(TLSError.truncated(reason: "x") != .truncated(reason: "y"))
        #expect(String(describing: TLSError.truncated(reason: "cut")).contains("cut"))
    }
}
