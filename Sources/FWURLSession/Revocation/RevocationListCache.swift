import Foundation
import FWTLS
import FWTransport

// MARK: - RevocationListCache

/// The CRLs `RevocationListFetching` fetched, by distribution point URI, each kept until its nextUpdate.
///
/// A list without a nextUpdate, or one already past it, is not kept (it would be stale at once). The
/// clock is injected (seconds since 1970; the wall clock by default), so a test decides when a list goes
/// stale. At most `capacity` URIs are kept; storing one more drops the entry that goes stale first.
///
/// It also merges fetches: while a URI is being fetched, a second handshake needing it waits for that
/// fetch instead of starting another (`fetch(_:start:completion:)`), so the distribution point sees one
/// request however many connections need its list at once.
public final class RevocationListCache: Sendable {
    typealias FetchResult = Result<CertificateRevocationLists, RevocationListDownloadError>

    private struct Entry {
        var lists: CertificateRevocationLists
        var nextUpdate: Int64
    }

    /// The lists by URI, behind `withEntries`.
    private let entries = LockedBox<[String: Entry]>([:])
    /// The completions waiting for each URI being fetched (the key exists while its fetch runs).
    private let inFlight = LockedBox<[String: [@Sendable (FetchResult) -> Void]]>([:])
    private let clock: @Sendable () -> Int64
    /// The most URIs kept.
    public let capacity: Int

    /// An empty cache reading `clock` (default: the wall clock) and keeping at most `capacity` URIs.
    public init(capacity: Int = 64, clock: @escaping @Sendable () -> Int64 = RevocationListCache.wallClock) {
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// The wall clock, in whole seconds since 1970.
    public static let wallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// The lists fetched from `uri`, while the clock is before their nextUpdate; nil otherwise.
    public func lists(for uri: String) -> CertificateRevocationLists? {
        let now = clock()
        return withEntries { entries in
            guard let entry = entries[uri] else { return nil }
            guard now < entry.nextUpdate else {
                entries[uri] = nil
                return nil
            }
            return entry.lists
        }
    }

    /// Keeps `lists` for `uri` until their earliest nextUpdate; lists that are stale now, or say no
    /// nextUpdate, are not kept.
    public func store(_ lists: CertificateRevocationLists, for uri: String) {
        guard let nextUpdate = lists.earliestNextUpdate, clock() < nextUpdate else { return }
        withEntries { entries in
            if entries[uri] == nil, entries.count >= capacity,
               let soonest = entries.min(by: { $0.value.nextUpdate < $1.value.nextUpdate })?.key {
                entries[soonest] = nil
            }
            entries[uri] = Entry(lists: lists, nextUpdate: nextUpdate)
        }
    }

    /// How many URIs are kept (stale ones included until looked up).
    public var count: Int { withEntries { $0.count } }

    /// Forgets every list.
    public func removeAll() {
        withEntries { $0.removeAll() }
    }

    /// Hands `completion` the result of fetching `uri`: joins the fetch in flight for it, or, when there is
    /// none, calls `start` (outside the lock) with a completion that stores a fetched list and hands the
    /// result to every waiter, once.
    func fetch(_ uri: String, start: (@escaping @Sendable (FetchResult) -> Void) -> Void,
               completion: @escaping @Sendable (FetchResult) -> Void) {
        let isFirst = inFlight.withLock { waiting in
            let first = waiting[uri] == nil
            waiting[uri, default: []].append(completion)
            return first
        }
        guard isFirst else { return }
        start { [self] result in
            if case .success(let lists) = result { store(lists, for: uri) }
            let waiters = inFlight.withLock { $0.removeValue(forKey: uri) } ?? []
            waiters.forEach { $0(result) }
        }
    }

    /// How many checks wait for the fetch of `uri` in flight (0: none runs).
    func waitingCount(for uri: String) -> Int {
        inFlight.withLock { $0[uri]?.count ?? 0 }
    }

    /// The door to the entries: a read or change under the lock, calling nothing out.
    private func withEntries<Result>(_ body: (inout [String: Entry]) -> Result) -> Result {
        entries.withLock(body)
    }
}
