import Foundation
import FWTLS
import FWTransport
@testable import FWURLSession
import Testing
import TestSupport

// URLError+TLS: every TLSError and TrustError kind maps to the code (and Apple's raw value) a
// URLSession user expects, directly and through the TransportError a failed connection carries; a refused
// trust's URLError carries the peer trust the failure brought (`NSURLErrorFailingURLPeerTrustErrorKey`).
@Suite struct URLErrorTLSTests {
    static let tlsCases: [(TLSError, URLError.Code, Int)] = [
        (.handshakeFailed(reason: "r"), .secureConnectionFailed, -1200),
        (.protocolError(reason: "r"), .secureConnectionFailed, -1200),
        (.unsupportedProtocolVersion(reason: "r"), .secureConnectionFailed, -1200),
        (.internalError(reason: "r"), .secureConnectionFailed, -1200),
        (.truncated(reason: "r"), .networkConnectionLost, -1005),
        (.clientCertificateRequired(reason: "r"), .clientCertificateRequired, -1206),
        (.clientCertificateRejected(reason: "r"), .clientCertificateRejected, -1205),
        (.decodingFailed(reason: "r"), .unknown, -1),
        (.wrongPassword(reason: "r"), .unknown, -1),
        (.keyMismatch(reason: "r"), .unknown, -1),
        (.fileUnreadable(reason: "r"), .unknown, -1),
    ]

    static let trustCases: [(TrustError, URLError.Code, Int)] = [
        (.expired(reason: "r"), .serverCertificateHasBadDate, -1201),
        (.untrusted(reason: "r"), .serverCertificateUntrusted, -1202),
        (.unknownRoot(reason: "r"), .serverCertificateHasUnknownRoot, -1203),
        (.notYetValid(reason: "r"), .serverCertificateNotYetValid, -1204),
        (.hostnameMismatch(reason: "r"), .serverCertificateUntrusted, -1202),
        (.pinMismatch(reason: "r"), .serverCertificateUntrusted, -1202),
        (.revoked(reason: "r"), .serverCertificateUntrusted, -1202),
        (.invalidPin(reason: "r"), .serverCertificateUntrusted, -1202),
    ]

    @Test(arguments: tlsCases)
    func tlsErrors(_ error: TLSError, _ code: URLError.Code, _ rawValue: Int) {
        #expect(URLError.Code(error) == code)
        #expect(URLError.Code(error).rawValue == rawValue, "Apple's raw value, not Linux's NSURLError constant")
        let url = URL(string: "https://example.test/")
        let mapped = URLError(TransportError.secureConnectionFailed(error), url: url)
        #expect(mapped.code == code)
        #expect(mapped.userInfo[NSUnderlyingErrorKey] as? TLSError == error)
        #expect(mapped.failingURL == url)
    }

    @Test(arguments: trustCases)
    func trustErrors(_ error: TrustError, _ code: URLError.Code, _ rawValue: Int) {
        #expect(URLError.Code(error) == code)
        #expect(URLError.Code(error).rawValue == rawValue, "Apple's raw value, not Linux's NSURLError constant")
        let mapped = URLError(TransportError.serverTrustRejected(error, peerTrust: Self.peer), url: nil)
        #expect(mapped.code == code)
        #expect(mapped.userInfo[NSUnderlyingErrorKey] as? TrustError == error)
        #expect((mapped.userInfo[NSURLErrorFailingURLPeerTrustErrorKey] as? SecTrust)?.serverTrust.host == "peer.test")
    }

    /// The trust of the refusals above.
    static let peer = ServerTrust(certificateChain: [], host: "peer.test", anchors: .system)

    @Test func theRefusedChainTravelsInTheError() throws {
        let url = try #require(URL(string: "https://peer.test/"))
        let chain = try Certificate.certificates(pemFile: TLSFixtures.path("self-signed.pem"))
        let peer = ServerTrust(certificateChain: chain, host: "peer.test", anchors: .system)
        let mapped = URLError(.serverTrustRejected(.unknownRoot(reason: "self-signed"), peerTrust: peer), url: url)
        let trust = try #require(mapped.userInfo[NSURLErrorFailingURLPeerTrustErrorKey] as? SecTrust)
        #expect(trust.serverTrust.certificateChain.map(\.derBytes) == chain.map(\.derBytes))
        #expect(mapped.failingURL == url)
        #expect(URLError(.timedOut("slow"), url: url).userInfo[NSURLErrorFailingURLPeerTrustErrorKey] == nil)
    }

    @Test func anythingElseUnderASecureConnectionFailureIsSecureConnectionFailed() {
        struct Other: Error {}
        #expect(URLError.Code(secureConnectionFailure: nil) == .secureConnectionFailed)
        #expect(URLError.Code(secureConnectionFailure: Other()) == .secureConnectionFailed)
    }
}
