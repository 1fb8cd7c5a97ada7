import FWTLS
import Testing

@Suite struct TLSErrorTests {
    @Test func predicatesAndURLErrorCodes() {
        let cases: [(TLSError, KeyPath<TLSError, Bool>, Int)] = [
            (.handshakeFailed(reason: "r"), \.isHandshakeFailure, -1200),
            (.protocolError(reason: "r"), \.isProtocolError, -1200),
            (.unsupportedProtocolVersion(reason: "r"), \.isUnsupportedProtocolVersion, -1200),
            (.truncated(reason: "r"), \.isTruncated, -1005),
            (.clientCertificateRequired(reason: "r"), \.isClientCertificateRequired, -1206),
            (.clientCertificateRejected(reason: "r"), \.isClientCertificateRejected, -1205),
            (.decodingFailed(reason: "r"), \.isDecodingFailure, -1),
            (.wrongPassword(reason: "r"), \.isWrongPassword, -1),
            (.keyMismatch(reason: "r"), \.isKeyMismatch, -1),
            (.fileUnreadable(reason: "r"), \.isFileUnreadable, -1),
            (.internalError(reason: "r"), \.isInternalError, -1200),
        ]
        let predicates = cases.map(\.1)
        for (error, predicate, code) in cases {
            #expect(error[keyPath: predicate])
            #expect(predicates.filter { error[keyPath: $0] }.count == 1, "\(error)")
            #expect(error.urlErrorCode == code)
            #expect(error.reason == "r")
        }
        #expect(TLSError.truncated(reason: "x") != .truncated(reason: "y"))
        #expect(String(describing: TLSError.truncated(reason: "cut")).contains("cut"))
    }
}
