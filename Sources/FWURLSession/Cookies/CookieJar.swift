// CookieJar.swift
//
// The cookies of one storage as a value type; `HTTPCookieStorage` keeps one behind its lock. It owns
// RFC 6265 §5.3 steps 10-12 and the storage limits:
// - A cookie is identified by name, domain (without Foundation's leading dot: a host-only and a domain
//   cookie for the same domain replace each other, as in RFC 6265) and path. Storing one replaces the
//   stored one and keeps its creation time (step 11); storing an expired one only removes the stored
//   one (how servers delete cookies).
// - RFC 6265bis §5.7 step 16 ("leave secure cookies alone"): a cookie from an insecure scheme cannot
//   replace or shadow a secure cookie of the same name whose domain and path overlap.
// - Limits (RFC 6265 §6.1 asks for at least 50 per domain and 3000 in all): 180 per domain and 3000 in
//   all by default; over a limit, expired cookies go first, then the oldest by creation time (this jar
//   does not track last access).
// Cookies created at the same instant keep the order they were stored in through a sequence number.
// Reads never return expired cookies; `removeExpired(now:)` forgets them.

import Foundation

// MARK: - CookieJar

/// A storage's cookies and the rules for changing them.
struct CookieJar: Sendable {
    /// What identifies a stored cookie.
    struct Key: Hashable, Sendable {
        var name: String
        var domain: String
        var path: String

        init(_ cookie: HTTPCookie) {
            name = cookie.name
            domain = cookie.bareDomain
            path = cookie.path
        }
    }

    /// A stored cookie and its place in storing order.
    struct Entry: Sendable {
        var cookie: HTTPCookie
        var sequence: UInt64
    }

    /// How many cookies the jar keeps.
    struct Limits: Sendable {
        var perDomain = 180
        var total = 3000
    }

    /// What a change did: anything at all, and anything to cookies that are written to disk.
    struct Change: Sendable, Equatable {
        var changed = false
        var persistentChanged = false

        /// Records that `cookie` was added, replaced or removed.
        mutating func record(_ cookie: HTTPCookie) {
            changed = true
            if !cookie.isSessionOnly { persistentChanged = true }
        }

        /// Adds what `other` did.
        mutating func merge(_ other: Change) {
            changed = changed || other.changed
            persistentChanged = persistentChanged || other.persistentChanged
        }
    }

    private(set) var entries: [Key: Entry] = [:]
    private var nextSequence: UInt64 = 0
    let limits: Limits

    /// An empty jar with the given limits.
    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    // MARK: Storing

    /// Stores `cookie` at `now` (§5.3 steps 11-12). `fromSecureScheme` is whether the response that set
    /// it came over https or wss; nil for a cookie set through the API, which no secure cookie blocks.
    mutating func store(_ cookie: HTTPCookie, fromSecureScheme: Bool?, now: Date) -> Change {
        if fromSecureScheme == false, !cookie.isSecure, shadowsSecureCookie(cookie) { return Change() }
        let key = Key(cookie)
        let existing = entries[key]
        var change = Change()
        let stored = existing.map { cookie.withCreationDate($0.cookie.creationDate) } ?? cookie
        if stored.isExpired(at: now) {
            if let existing, entries.removeValue(forKey: key) != nil { change.record(existing.cookie) }
            return change
        }
        if let existing, existing.cookie.isEqual(stored) { return change }
        if let existing { change.record(existing.cookie) }
        change.record(stored)
        entries[key] = Entry(cookie: stored, sequence: existing?.sequence ?? takeSequence())
        change.merge(evict(domain: key.domain, now: now))
        return change
    }

    /// True when a stored secure cookie has `cookie`'s name, a domain that domain-matches `cookie`'s (or
    /// the reverse) and a path that `cookie`'s path matches.
    private func shadowsSecureCookie(_ cookie: HTTPCookie) -> Bool {
        entries.values.contains { entry in
            let stored = entry.cookie
            return stored.isSecure && stored.name == cookie.name
                && (HTTPCookie.domainMatches(stored.bareDomain, cookie.bareDomain)
                    || HTTPCookie.domainMatches(cookie.bareDomain, stored.bareDomain))
                && HTTPCookie.pathMatches(cookie.path, stored.path)
        }
    }

    private mutating func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    // MARK: Removing

    /// Removes the stored cookie with `cookie`'s name, domain and path.
    mutating func remove(_ cookie: HTTPCookie) -> Change {
        var change = Change()
        if let removed = entries.removeValue(forKey: Key(cookie)) { change.record(removed.cookie) }
        return change
    }

    /// Removes the cookies for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (HTTPCookie) -> Bool) -> Change {
        var change = Change()
        for (key, entry) in entries where shouldRemove(entry.cookie) {
            entries.removeValue(forKey: key)
            change.record(entry.cookie)
        }
        return change
    }

    /// Forgets the cookies expired at `now`.
    mutating func removeExpired(now: Date) -> Change {
        removeAll { $0.isExpired(at: now) }
    }

    /// Enforces the limits after storing a cookie for `domain`: expired cookies first, then the oldest.
    private mutating func evict(domain: String, now: Date) -> Change {
        var change = Change()
        let inDomain = { (entry: Entry) in entry.cookie.bareDomain == domain }
        if entries.values.count(where: inDomain) > limits.perDomain || entries.count > limits.total {
            change.merge(removeExpired(now: now))
        }
        for entry in ordered(entries.values.filter(inDomain)).dropLast(limits.perDomain) {
            entries.removeValue(forKey: Key(entry.cookie))
            change.record(entry.cookie)
        }
        for entry in ordered(Array(entries.values)).dropLast(limits.total) {
            entries.removeValue(forKey: Key(entry.cookie))
            change.record(entry.cookie)
        }
        return change
    }

    // MARK: Reading

    /// The cookies not expired at `now`, oldest first.
    func cookies(now: Date) -> [HTTPCookie] {
        ordered(entries.values.filter { !$0.cookie.isExpired(at: now) }).map(\.cookie)
    }

    /// The cookies a request to `url` at `now` carries, in RFC 6265 §5.4's order.
    func cookies(for url: URL, now: Date) -> [HTTPCookie] {
        entries.values.filter { $0.cookie.isSent(to: url, now: now) }
            .map { ($0.cookie, $0.sequence) }
            .sorted(by: HTTPCookie.requestOrder)
            .map(\.cookie)
    }

    /// The cookies written to disk: neither session-only nor expired at `now`, oldest first.
    func persistentCookies(now: Date) -> [HTTPCookie] {
        cookies(now: now).filter { !$0.isSessionOnly && $0.expiresDate != nil }
    }

    /// `entries` by creation time, then storing order.
    private func ordered(_ entries: [Entry]) -> [Entry] {
        entries.sorted {
            ($0.cookie.creationDate, $0.sequence) < ($1.cookie.creationDate, $1.sequence)
        }
    }
}
