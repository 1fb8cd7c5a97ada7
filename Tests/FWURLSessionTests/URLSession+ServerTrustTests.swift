import Foundation
import FWURLSession
import Testing
import TestSupport

// Server-trust refusals end the task with the URLError a URLSession user reads: a delegate's
// `rejectProtectionSpace` is -1202 with the reason it put in `SecTrust.rejectionReason`, and every trust
// failure carries the failing URL and the peer trust. Real handshakes with `openssl s_server`.

// MARK: - Rejecting delegate

/// Rejects every server trust, with `reason` recorded on the trust when given; records the task the
/// challenge was raised for (`sessionTask`).
final class RejectingDelegate: NSObject, URLSessionDelegate, @unchecked Sendable { // `tasks` is a LockedBox
    let reason: TrustError?
    let tasks = LockedBox<[URLSessionTask?]>([])

    init(reason: TrustError?) {
        self.reason = reason
    }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        tasks.withLock { $0.append(challenge.sessionTask) }
        guard let trust = challenge.protectionSpace.serverTrust else {
            return completionHandler(.performDefaultHandling, nil)
        }
        trust.rejectionReason = reason
        completionHandler(.rejectProtectionSpace, nil)
    }
}

// MARK: - Tests

@Suite struct URLSessionServerTrustTests {
    private static func session(delegate: (any URLSessionDelegate)?, trustingFixtures: Bool) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        if trustingFixtures {
            let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
            configuration.tlsTrustRoots = .certificates(root)
        }
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    private static func failure(_ session: URLSession, _ url: URL) -> URLError? {
        let result = LockedBox<URLError??>(nil)
        session.dataTask(with: url) { _, _, error in result.withLock { $0 = .some(error as? URLError) } }.resume()
        _ = waitUntil(timeout: 20) { result.withLock { $0 } != nil }
        return result.withLock { $0 } ?? nil
    }

    private static func leaf(of error: URLError) -> [UInt8]? {
        guard let trust = error.userInfo[NSURLErrorFailingURLPeerTrustErrorKey] as? SecTrust else { return nil }
        return trust.serverTrust.certificateChain.first?.derBytes
    }

    @Test(arguments: [TrustError.pinMismatch(reason: "the key is not the one we pinned"), nil])
    func aDelegatesRejectionIsUntrustedWithItsReason(_ reason: TrustError?) throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { server.stop() }
        let delegate = RejectingDelegate(reason: reason)
        let session = try Self.session(delegate: delegate, trustingFixtures: true)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let error = try #require(Self.failure(session, url))
        #expect(error.code == .serverCertificateUntrusted)
        #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == url)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? TrustError)
        #expect(underlying.reason == (reason?.reason ?? "the delegate rejected the protection space"))
        #expect(error.localizedDescription.contains(underlying.reason))
        let served = try Certificate.certificates(pemFile: TLSFixtures.path("valid-ecdsa.pem"))[0]
        #expect(Self.leaf(of: error) == served.derBytes)
    }

    @Test func aDefaultHandlingFailureCarriesThePeerTrustToo() throws {
        let server = try OpenSSLServer.start(certificate: "self-signed.pem", chain: nil)
        defer { server.stop() }
        let session = try Self.session(delegate: nil, trustingFixtures: true)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let error = try #require(Self.failure(session, url))
        #expect(error.code == .serverCertificateHasUnknownRoot)
        let served = try Certificate.certificates(pemFile: TLSFixtures.path("self-signed.pem"))[0]
        #expect(Self.leaf(of: error) == served.derBytes)
    }

    @Test func theSessionLevelChallengeNamesTheTaskItIsFor() throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { server.stop() }
        let delegate = RejectingDelegate(reason: nil)
        let session = try Self.session(delegate: delegate, trustingFixtures: true)
        defer { session.invalidateAndCancel() }
        let done = LockedBox(false)
        let task = session.dataTask(with: try #require(URL(string: "https://127.0.0.1:\(server.port)/"))) { _, _, _ in
            done.withLock { $0 = true }
        }
        task.resume()
        #expect(waitUntil(timeout: 20) { done.withLock { $0 } })
        let asked = delegate.tasks.withLock { $0 }
        #expect(asked.count == 1)
        #expect(asked.first??.taskIdentifier == task.taskIdentifier)
        #expect(asked.first.flatMap { $0 } === task)
    }
}
