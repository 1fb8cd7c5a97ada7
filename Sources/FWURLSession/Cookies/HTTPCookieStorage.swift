// HTTPCookieStorage.swift
//
// The cookie storage, source-compatible with FoundationNetworking's `HTTPCookieStorage`. The cookies live
// in a `CookieJar` value behind one lock; every change computes, under the lock, what changed and (for a
// persistent storage) the snapshot to write, then writes the file and posts
// `NSHTTPCookieManagerCookiesChanged` after the lock is released. The shared storage (and a group
// container's) is persistent: `HTTPCookieStorage+Persistence.swift`. An ephemeral configuration's storage
// lives in memory only. Time comes from an injected clock.

import Foundation
import FWTransport

// MARK: - HTTPCookieStorage

/// A store of cookies: what requests send and what responses set.
///
/// `@unchecked Sendable`: the only mutable state is in `state`, a `LockedBox`; the other stored properties
/// are immutable (`file` guards its own writes).
open class HTTPCookieStorage: NSObject, @unchecked Sendable { // mutable state: `state` (LockedBox)
    /// The cookies and the accept policy.
    struct State {
        var jar: CookieJar
        var acceptPolicy = HTTPCookie.AcceptPolicy.always
        /// Counts changes, so that file writes land in order.
        var generation: UInt64 = 0
    }

    private let state: LockedBox<State>
    /// The file a persistent storage keeps its cookies in; nil for an in-memory storage.
    let file: PersistentFile?
    /// What "now" is.
    let clock: @Sendable () -> Date
    /// The rules that refuse cookies for public suffixes, read when first needed (a response sets a cookie
    /// or names a main document): the system list is a 240 KB file that a session without cookies never
    /// reads.
    var publicSuffixes: PublicSuffixList { publicSuffixSource() }
    private let publicSuffixSource: @Sendable () -> PublicSuffixList

    // MARK: Creation

    /// A storage kept in `file` (nil: in memory only), loading the cookies the file holds. `publicSuffixes`
    /// is evaluated at each use (`.system` is read once per process, at the first).
    init(file: PersistentFile?, clock: @escaping @Sendable () -> Date = { Date() },
         limits: CookieJar.Limits = CookieJar.Limits(),
         publicSuffixes: @autoclosure @escaping @Sendable () -> PublicSuffixList = .system) {
        self.file = file
        self.clock = clock
        self.publicSuffixSource = publicSuffixes
        var jar = CookieJar(limits: limits)
        if let file {
            let now = clock()
            for cookie in Self.load(from: file) { _ = jar.store(cookie, fromSecureScheme: nil, now: now) }
        }
        state = LockedBox(State(jar: jar))
        super.init()
    }

    private static let sharedStorage = HTTPCookieStorage(file: persistentFile(named: "cookies.json"))

    /// The shared cookie storage, kept in `$XDG_DATA_HOME/FWNetworking/cookies.json` (by default
    /// `~/.local/share/FWNetworking/cookies.json`); session-only cookies are not written.
    open class var shared: HTTPCookieStorage { sharedStorage }

    private static let groupStorages = LockedBox<[String: HTTPCookieStorage]>([:])

    /// The persistent storage of an application group: the same instance for the same identifier, kept
    /// in its own file beside the shared storage's.
    open class func sharedCookieStorage(forGroupContainerIdentifier identifier: String) -> HTTPCookieStorage {
        if let storage = groupStorages.withLock({ $0[identifier] }) { return storage }
        let safeName = String(identifier.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
        let loaded = HTTPCookieStorage(file: persistentFile(named: "cookies-\(safeName).json"))
        return groupStorages.withLock { storages in
            if let storage = storages[identifier] { return storage }
            storages[identifier] = loaded
            return loaded
        }
    }

    /// A new storage in memory only, for an ephemeral configuration.
    static func ephemeral() -> HTTPCookieStorage {
        HTTPCookieStorage(file: nil)
    }

    // MARK: Reading

    /// Every cookie in the storage (expired ones excluded), oldest first.
    open var cookies: [HTTPCookie]? {
        let now = clock()
        return state.withLock { $0.jar.cookies(now: now) }
    }

    /// The cookies a request to `url` sends, in RFC 6265's order (longer paths first, then older); nil
    /// when `url` has no host.
    open func cookies(for url: URL) -> [HTTPCookie]? {
        guard HTTPCookie.canonicalHost(of: url) != nil else { return nil }
        let now = clock()
        return state.withLock { $0.jar.cookies(for: url, now: now) }
    }

    /// Every cookie, sorted by `sortOrder` (descriptors made with `NSSortDescriptor(keyPath:ascending:)`
    /// on `HTTPCookie` properties); cookies the descriptors consider equal stay oldest first.
    open func sortedCookies(using sortOrder: [NSSortDescriptor]) -> [HTTPCookie] {
        let cookies = cookies ?? []
        return cookies.enumerated().sorted { lhs, rhs in
            for descriptor in sortOrder {
                switch descriptor.compare(lhs.element, to: rhs.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// Which cookies `setCookie(_:)` and `setCookies(_:for:mainDocumentURL:)` accept; `.always` by
    /// default. Changing it posts `NSHTTPCookieManagerAcceptPolicyChanged`.
    open var cookieAcceptPolicy: HTTPCookie.AcceptPolicy {
        get { state.withLock { $0.acceptPolicy } }
        set {
            let changed = state.withLock { state in
                defer { state.acceptPolicy = newValue }
                return state.acceptPolicy != newValue
            }
            if changed { NotificationCenter.default.post(name: .NSHTTPCookieManagerAcceptPolicyChanged, object: self) }
        }
    }

    // MARK: Changing

    /// Stores `cookie`, replacing the one with the same name, domain and path (and keeping that one's
    /// creation time); an expired cookie removes it. Ignored when the accept policy is `.never`.
    open func setCookie(_ cookie: HTTPCookie) {
        guard cookieAcceptPolicy != .never else { return }
        mutate { jar, now in jar.store(cookie, fromSecureScheme: nil, now: now) }
    }

    /// Stores the cookies a response from `url` set, by the accept policy: none for `.never`; for
    /// `.onlyFromMainDocumentDomain`, only when `url` is on the same site (registrable domain) as
    /// `mainDocumentURL` (a nil `mainDocumentURL` accepts). Cookies whose domain does not match `url`'s host
    /// are left out.
    open func setCookies(_ cookies: [HTTPCookie], for url: URL?, mainDocumentURL: URL?) {
        setCookies(cookies, for: url, mainDocumentURL: mainDocumentURL, policy: cookieAcceptPolicy)
    }

    /// Removes the stored cookie with `cookie`'s name, domain and path.
    open func deleteCookie(_ cookie: HTTPCookie) {
        mutate { jar, _ in jar.remove(cookie) }
    }

    /// Removes the cookies created at or after `date`.
    open func removeCookies(since date: Date) {
        mutate { jar, _ in jar.removeAll { $0.creationDate >= date } }
    }

    /// "<NSHTTPCookieStorage cookies count:N>", with "Ephemeral" before it for an in-memory storage.
    open override var description: String {
        "\(file == nil ? "Ephemeral" : "")<NSHTTPCookieStorage cookies count:\(cookies?.count ?? 0)>"
    }

    // MARK: For the session

    /// `setCookies(_:for:mainDocumentURL:)` under `policy` (a session passes its configuration's
    /// `httpCookieAcceptPolicy`, which overrides the storage's).
    func setCookies(_ cookies: [HTTPCookie], for url: URL?, mainDocumentURL: URL?, policy: HTTPCookie.AcceptPolicy) {
        guard policy != .never, !cookies.isEmpty, let url, let host = HTTPCookie.canonicalHost(of: url) else {
            return
        }
        if policy == .onlyFromMainDocumentDomain, let mainDocumentURL {
            guard let mainHost = HTTPCookie.canonicalHost(of: mainDocumentURL),
                  publicSuffixes.registrableDomain(of: host) == publicSuffixes.registrableDomain(of: mainHost)
            else { return }
        }
        let accepted = cookies.filter { cookie in
            cookie.isHostOnly ? cookie.domain == host : HTTPCookie.domainMatches(host, cookie.bareDomain)
        }
        let secureScheme = HTTPCookie.isSecureScheme(url)
        mutate { jar, now in
            var change = CookieJar.Change()
            for cookie in accepted { change.merge(jar.store(cookie, fromSecureScheme: secureScheme, now: now)) }
            return change
        }
    }

    /// Stores the cookies of the Set-Cookie field values (one cookie each, as received) of a response
    /// from `url`, under `policy`.
    func setCookies(fromSetCookieFields fields: [String], for url: URL, mainDocumentURL: URL?,
                    policy: HTTPCookie.AcceptPolicy) {
        guard policy != .never, !fields.isEmpty else { return }
        let cookies = HTTPCookie.cookies(fromSetCookieFields: fields, for: url, now: clock(),
                                         publicSuffixes: publicSuffixes)
        setCookies(cookies, for: url, mainDocumentURL: mainDocumentURL, policy: policy)
    }

    /// The Cookie field value a request to `url` sends, nil when it sends no cookie.
    func cookieFieldValue(for url: URL) -> String? {
        // An empty jar (the usual case for a service) answers before the URL's host is parsed or the clock read.
        guard !state.withLock({ $0.jar.entries.isEmpty }) else { return nil }
        return cookies(for: url).flatMap(HTTPCookie.cookieFieldValue)
    }

    // MARK: Changing under the lock

    /// Applies `body` to the jar (after forgetting expired cookies) under the lock; then, outside it,
    /// writes the file when persistent cookies changed and posts the change notification.
    private func mutate(_ body: (inout CookieJar, Date) -> CookieJar.Change) {
        let now = clock()
        let (change, snapshot) = state.withLock { state -> (CookieJar.Change, (UInt64, [HTTPCookie])?) in
            var change = state.jar.removeExpired(now: now)
            change.merge(body(&state.jar, now))
            guard change.changed else { return (change, nil) }
            state.generation += 1
            guard change.persistentChanged, file != nil else { return (change, nil) }
            return (change, (state.generation, state.jar.persistentCookies(now: now)))
        }
        if let file, let snapshot { Self.save(snapshot.1, to: file, generation: snapshot.0) }
        if change.changed { NotificationCenter.default.post(name: .NSHTTPCookieManagerCookiesChanged, object: self) }
    }
}
