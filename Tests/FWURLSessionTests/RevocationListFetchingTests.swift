import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// CRLs fetched from the distribution point the server's own leaf names (`tlsRevocationListFetching`).
// The fixture leaves (Fixtures/tls/pinning/crl-dp*.pem) name http://crl.fwnetworking.test/intermediate-ca.crl,
// a reserved name that never resolves: each test runs `openssl s_server` with such a leaf and a python3 CRL
// server on 127.0.0.1 that the session reaches as its HTTP proxy (plain http:// only, so the https request
// to s_server goes direct). The CRL server counts the requests it gets. No date is compared with the
// wall clock: the cache's clock is injected from the CRL's own dates.

// MARK: - Harness

/// One s_server, one CRL server and a session that fetches through it.
private struct RevocationHarness {
    static let uri = "http://crl.fwnetworking.test/intermediate-ca.crl"

    let server: OpenSSLServer
    let distribution: PythonHTTPServer?
    let refusing: RefusingPort?

    /// s_server with `leaf` (from Fixtures/tls/pinning); the CRL server serves `files`, or with nil nothing
    /// listens on the proxy port.
    init(leaf: String, files: [String: [UInt8]]?) throws {
        server = try OpenSSLServer.start(certificate: "pinning/\(leaf).pem")
        if let files {
            distribution = try PythonHTTPServer.revocationListServer(files: files)
            refusing = nil
        } else {
            distribution = nil
            refusing = try RefusingPort()
        }
    }

    static func crl() throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: TLSFixtures.path("pinning/intermediate-ca.crl"))))
    }

    static func crlDates() throws -> (lastUpdate: Int64, nextUpdate: Int64) {
        let lists = try CertificateRevocationLists(file: TLSFixtures.path("pinning/intermediate-ca.crl"))
        let dates = try #require(lists.updateTimes.first)
        return (dates.lastUpdate, try #require(dates.nextUpdate))
    }

    func session(_ fetching: RevocationListFetching) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.tlsTrustRoots = .certificates(try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        configuration.tlsSessionResumption = false
        configuration.connectionProxyDictionary = [
            kCFNetworkProxiesHTTPEnable: 1, kCFNetworkProxiesHTTPProxy: "127.0.0.1",
            kCFNetworkProxiesHTTPPort: distribution?.port ?? refusing?.port ?? 0,
        ]
        configuration.tlsRevocationListFetching = fetching
        return URLSession(configuration: configuration)
    }

    /// The status of a GET to s_server, or the URLError it failed with.
    func fetch(_ fetching: RevocationListFetching) throws -> (status: Int?, error: URLError?) {
        let session = try session(fetching)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let result = LockedBox<(Int?, URLError?)?>(nil)
        session.dataTask(with: url) { _, response, error in
            result.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode, error as? URLError) }
        }.resume()
        #expect(waitUntil(timeout: 30) { result.withLock { $0 } != nil })
        let outcome = try #require(result.withLock { $0 })
        return (outcome.0, outcome.1)
    }

    func stop() {
        server.stop()
        distribution?.stop()
        refusing?.close()
    }
}

/// The failures a `failureHandler` heard.
private final class FailureLog: Sendable {
    let failures = LockedBox<[RevocationListFetchFailure]>([])

    var handler: @Sendable (RevocationListFetchFailure) -> Void {
        { failure in self.failures.withLock { $0.append(failure) } }
    }
}

// MARK: - Tests

@Suite struct RevocationListFetchingTests {
    @Test(arguments: [RevocationListFetching.FailurePolicy.softFail, .hardFail])
    func aRevokedLeafIsRefused(_ policy: RevocationListFetching.FailurePolicy) throws {
        let harness = try RevocationHarness(leaf: "crl-dp-revoked", files: ["intermediate-ca.crl": try RevocationHarness.crl()])
        defer { harness.stop() }
        let outcome = try harness.fetch(RevocationListFetching(failurePolicy: policy))
        let error = try #require(outcome.error)
        #expect(error.code == .serverCertificateUntrusted)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? TrustError)
        #expect(underlying.isRevoked, "\(underlying.reason)")
        #expect(harness.distribution?.requestTargets() == [RevocationHarness.uri])
    }

    @Test(arguments: [RevocationListFetching.FailurePolicy.softFail, .hardFail])
    func aGoodLeafIsAccepted(_ policy: RevocationListFetching.FailurePolicy) throws {
        let harness = try RevocationHarness(leaf: "crl-dp", files: ["intermediate-ca.crl": try RevocationHarness.crl()])
        defer { harness.stop() }
        let log = FailureLog()
        let outcome = try harness.fetch(RevocationListFetching(failurePolicy: policy, failureHandler: log.handler))
        #expect(outcome.error == nil)
        #expect(outcome.status == 200)
        #expect(log.failures.withLock { $0 }.isEmpty)
        #expect(harness.distribution?.requestTargets().count == 1)
    }

    @Test func aDistributionPointThatIsDownSoftFailsAndIsRecorded() throws {
        let harness = try RevocationHarness(leaf: "crl-dp-revoked", files: nil)
        defer { harness.stop() }
        let log = FailureLog()
        let outcome = try harness.fetch(RevocationListFetching(failureHandler: log.handler))
        #expect(outcome.status == 200, "soft-fail proceeds without the list")
        let failures = log.failures.withLock { $0 }
        #expect(failures.map(\.uri) == [RevocationHarness.uri])
        #expect(failures.first?.host == "127.0.0.1")
    }

    @Test func aDistributionPointThatIsDownHardFails() throws {
        let harness = try RevocationHarness(leaf: "crl-dp", files: nil)
        defer { harness.stop() }
        let outcome = try harness.fetch(RevocationListFetching(failurePolicy: .hardFail))
        let error = try #require(outcome.error)
        #expect(error.code == .serverCertificateUntrusted)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? TrustError)
        #expect(underlying.isUntrusted)
        #expect(underlying.reason.contains(RevocationHarness.uri))
    }

    @Test func aMissingListIsAFailedFetch() throws {
        let harness = try RevocationHarness(leaf: "crl-dp", files: [:])
        defer { harness.stop() }
        let log = FailureLog()
        let outcome = try harness.fetch(RevocationListFetching(failurePolicy: .hardFail, failureHandler: log.handler))
        #expect(outcome.error?.code == .serverCertificateUntrusted)
        #expect(log.failures.withLock { $0 }.first?.reason.contains("404") == true)
    }

    @Test(arguments: [RevocationListFetching.FailurePolicy.softFail, .hardFail])
    func aListOverTheMaximumSizeIsNotUsed(_ policy: RevocationListFetching.FailurePolicy) throws {
        let crl = try RevocationHarness.crl()
        let harness = try RevocationHarness(leaf: "crl-dp-revoked", files: ["intermediate-ca.crl": crl])
        defer { harness.stop() }
        let log = FailureLog()
        let fetching = RevocationListFetching(failurePolicy: policy, maximumSize: crl.count - 1,
                                              failureHandler: log.handler)
        let outcome = try harness.fetch(fetching)
        #expect(log.failures.withLock { $0 }.first?.reason.contains("maximum of \(crl.count - 1) bytes") == true)
        if policy == .softFail {
            #expect(outcome.status == 200, "the revoking list was too large to use: soft-fail proceeds")
        } else {
            #expect(outcome.error?.code == .serverCertificateUntrusted)
        }
    }

    @Test func anEndlessBodyStopsAtTheBound() throws {
        let harness = try RevocationHarness(
            leaf: "crl-dp", files: ["intermediate-ca.crl": try RevocationHarness.crl(), "intermediate-ca.crl.endless": []]
        )
        defer { harness.stop() }
        let log = FailureLog()
        let fetching = RevocationListFetching(failurePolicy: .hardFail, maximumSize: 256 * 1024,
                                              failureHandler: log.handler)
        let outcome = try harness.fetch(fetching)
        #expect(outcome.error?.code == .serverCertificateUntrusted)
        #expect(log.failures.withLock { $0 }.first?.reason.contains("larger than the maximum") == true)
    }

    @Test func aCachedListIsUsedUntilItsNextUpdate() throws {
        let harness = try RevocationHarness(leaf: "crl-dp-revoked", files: ["intermediate-ca.crl": try RevocationHarness.crl()])
        defer { harness.stop() }
        let dates = try RevocationHarness.crlDates()
        let now = LockedBox(dates.lastUpdate + 3_600)
        let cache = RevocationListCache(clock: { now.withLock { $0 } })
        let fetching = RevocationListFetching(cache: cache)
        for _ in 0..<2 {
            #expect(try harness.fetch(fetching).error?.code == .serverCertificateUntrusted)
        }
        #expect(harness.distribution?.requestTargets().count == 1, "the second connection used the cached list")
        #expect(cache.count == 1)
        now.withLock { $0 = dates.nextUpdate }
        #expect(cache.lists(for: RevocationHarness.uri) == nil, "stale at its nextUpdate")
        #expect(try harness.fetch(fetching).error?.code == .serverCertificateUntrusted)
        #expect(harness.distribution?.requestTargets().count == 2, "a stale list is fetched again")
    }

    /// Two handshakes (two sessions sharing one cache, two s_servers, since s_server serves one connection
    /// at a time) need the same uncached list at once: the CRL server holds its answer until both wait for
    /// the one fetch, and sees one request.
    @Test func concurrentHandshakesNeedingOneListFetchItOnce() throws {
        let files = ["intermediate-ca.crl": try RevocationHarness.crl(), "intermediate-ca.crl.gated": []]
        let harness = try RevocationHarness(leaf: "crl-dp-revoked", files: files)
        let second = try OpenSSLServer.start(certificate: "pinning/crl-dp-revoked.pem")
        defer { harness.stop(); second.stop() }
        let distribution = try #require(harness.distribution)
        let dates = try RevocationHarness.crlDates()
        let cache = RevocationListCache(clock: { dates.lastUpdate + 3_600 })
        let errors = LockedBox<[URLError?]>([])
        var sessions: [URLSession] = []
        defer { sessions.forEach { $0.invalidateAndCancel() } }
        for port in [harness.server.port, second.port] {
            let session = try harness.session(RevocationListFetching(cache: cache))
            sessions.append(session)
            let url = try #require(URL(string: "https://127.0.0.1:\(port)/"))
            session.dataTask(with: url) { _, _, error in errors.withLock { $0.append(error as? URLError) } }.resume()
        }
        #expect(waitUntil(timeout: 30) { cache.waitingCount(for: RevocationHarness.uri) == 2 })
        try distribution.release()
        #expect(waitUntil(timeout: 30) { errors.withLock { $0.count } == 2 })
        #expect(errors.withLock { $0 }.map { $0?.code } == [.serverCertificateUntrusted, .serverCertificateUntrusted])
        #expect(distribution.requestTargets() == [RevocationHarness.uri])
        #expect(cache.waitingCount(for: RevocationHarness.uri) == 0)
        #expect(cache.count == 1)
    }

    @Test func aStaleListIsNotCached() throws {
        let dates = try RevocationHarness.crlDates()
        let cache = RevocationListCache(clock: { dates.nextUpdate + 1 })
        cache.store(try CertificateRevocationLists(bytes: try RevocationHarness.crl()), for: RevocationHarness.uri)
        #expect(cache.count == 0)
    }

    @Test func aLeafWithoutADistributionPointPassesSoftFailsHard() throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        let harness = RevocationHarness(server: server)
        defer { harness.stop() }
        #expect(try harness.fetch(RevocationListFetching()).status == 200)
        let error = try #require(try harness.fetch(RevocationListFetching(failurePolicy: .hardFail)).error)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? TrustError)
        #expect(underlying.reason.contains("names no http:// CRL distribution point"))
    }
}

private extension RevocationHarness {
    init(server: OpenSSLServer) {
        self.server = server
        distribution = nil
        refusing = nil
    }
}
