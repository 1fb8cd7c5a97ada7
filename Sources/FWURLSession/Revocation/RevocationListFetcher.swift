import Foundation
import FWTLS
import FWTransport

// MARK: - RevocationListFetcher

/// The asynchronous step `RevocationListFetching` puts before a server-trust challenge.
///
/// Trust evaluators are synchronous and run on the loop thread, so the fetch cannot happen inside one.
/// The session's trust handler already answers through a `decide` callback (a delegate may answer later),
/// so the step runs there, in three parts:
///
/// 1. Evaluate, synchronously: verify the chain without lists. A chain that does not verify is left to
///    the challenge (`.proceed`); one that does names its distribution points.
/// 2. Suspend: the URIs not in the cache are fetched, each by its own `RevocationListDownload`, or joined
///    when another check is fetching them already (the cache merges them); the handshake waits (it is
///    bounded by the connect timeout, as a delegate's late answer is).
/// 3. Resume, when the last fetch ends: the cached and fetched lists check the chain
///    (`RevocationListTrustEvaluator`), and the outcome says whether to raise the challenge or refuse.
struct RevocationListFetcher: Sendable {
    /// What to do with the connection.
    enum Outcome: Sendable {
        /// Raise the server-trust challenge as usual.
        case proceed
        /// Refuse the server with this reason.
        case refuse(TrustError)
    }

    let fetching: RevocationListFetching
    /// The checking session's configuration (its proxies and roots serve the fetches).
    let parent: URLSessionConfiguration

    /// Checks `trust`; `completion` runs once, on the calling thread when nothing is fetched, else on a
    /// download's delegate queue.
    func check(_ trust: ServerTrust, completion: @escaping @Sendable (Outcome) -> Void) {
        guard let chain = try? trust.verifiedChain(), let leaf = chain.first else {
            completion(.proceed)
            return
        }
        let checked = fetching.check == .wholeChain && chain.count > 1 ? Array(chain.dropLast()) : [leaf]
        var uris: [String] = []
        for uri in checked.flatMap(\.crlDistributionPoints) where !uris.contains(uri) {
            uris.append(uri)
        }
        let gathered = Gathered(expected: uris.count)
        for uri in uris {
            if let cached = fetching.cache.lists(for: uri) {
                gathered.add(uri, .success(cached))
            }
        }
        let finish: @Sendable () -> Void = {
            completion(Self.judge(trust, gathered.results, fetching: fetching))
        }
        if gathered.isComplete {
            finish()
            return
        }
        for uri in uris where !gathered.has(uri) {
            fetching.cache.fetch(uri, start: { done in
                RevocationListDownload.start(uri, fetching: fetching, parent: parent, completion: done)
            }, completion: { result in
                if gathered.add(uri, result) { finish() }
            })
        }
    }

    /// The outcome once every URI has a result: refuse a revoked certificate; with hard-fail, refuse a
    /// certificate no list covers; report each failed fetch.
    private static func judge(
        _ trust: ServerTrust, _ results: [(String, Result<CertificateRevocationLists, RevocationListDownloadError>)],
        fetching: RevocationListFetching
    ) -> Outcome {
        var lists: [CertificateRevocationLists] = []
        var failures: [RevocationListFetchFailure] = []
        for (uri, result) in results {
            switch result {
            case .success(let fetched): lists.append(fetched)
            case .failure(let error): failures.append(RevocationListFetchFailure(host: trust.host, uri: uri,
                                                                                  reason: error.reason))
            }
        }
        if let handler = fetching.failureHandler { failures.forEach(handler) }
        let hardFail = fetching.failurePolicy.refuses
        let fetched = failures.map(\.description).joined(separator: "; ")
        guard let combined = CertificateRevocationLists(combining: lists) else {
            guard hardFail else { return .proceed }
            let why = results.isEmpty ? "the certificate names no http:// CRL distribution point" : fetched
            return .refuse(.untrusted(reason: "no certificate revocation list for \(trust.host): \(why)"))
        }
        let evaluator = RevocationListTrustEvaluator(
            revocationLists: combined, check: fetching.check, requiresCoverage: hardFail, validateHost: false
        )
        do throws(TrustError) {
            try evaluator.evaluate(trust)
            return .proceed
        } catch where error.isUntrusted && !failures.isEmpty {
            return .refuse(.untrusted(reason: "\(error.reason) (\(fetched))"))
        } catch {
            return .refuse(error)
        }
    }
}

// MARK: - Gathered

/// The results of one check's fetches, by URI, in the order they came.
private final class Gathered: Sendable {
    typealias Entry = (uri: String, result: Result<CertificateRevocationLists, RevocationListDownloadError>)

    private let entries = LockedBox<[Entry]>([])
    private let expected: Int

    init(expected: Int) {
        self.expected = expected
    }

    /// Adds the result for `uri`; true when it was the last one expected.
    @discardableResult
    func add(_ uri: String, _ result: Result<CertificateRevocationLists, RevocationListDownloadError>) -> Bool {
        withEntries { entries in
            entries.append((uri, result))
            return entries.count == expected
        }
    }

    func has(_ uri: String) -> Bool { withEntries { $0.contains { $0.uri == uri } } }

    var isComplete: Bool { withEntries { $0.count == expected } }

    var results: [Entry] { withEntries { $0 } }

    /// The door to the entries: a read or change under the lock, calling nothing out.
    private func withEntries<Result>(_ body: (inout [Entry]) -> Result) -> Result {
        entries.withLock(body)
    }
}
