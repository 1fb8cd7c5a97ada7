import Foundation
import FWTLS
import FWTransport

// MARK: - RevocationListCache

/// The CRLs `RevocationListFetching` fetched, by distribution point URI, each kept until its nextUpdate.
///
/// A list without a nextUpdate, or one already past it, is not kept (it would be stale at once). The
/// clock is injected (seconds since 1970; the wall clock by default), so a test decides when a list goes
/// stale. At most `capacity` URIs are kept; storing one more drops the entry that goes stale first.
public final class RevocationListCache: Sendable {
    private struct Entry {
        var lists: CertificateRevocationLists
        var nextUpdate: Int64
    }

    /// The lists by URI, behind `withEntries`.
    private let entries = LockedBox<[String: Entry]>([:])
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

    /// The door to the entries: a read or change under the lock, calling nothing out.
    private func withEntries<Result>(_ body: (inout [String: Entry]) -> Result) -> Result {
        entries.withLock(body)
    }
}
