// HTTPCookieStorage.swift
//
// The cookie storage, source-compatible with FoundationNetworking's `HTTPCookieStorage`. Its whole state is
// one `CookieStorageState` value (the jar, the accept policy, the write generation) behind one lock, reached
// through one door (`access`): a read or a change of the value runs under the lock, and the effects a change
// returns (the snapshot to write, the notifications to post) are performed after the lock is released. The shared storage (and a group
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
    private let state: LockedBox<CookieStorageState>
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
        state = LockedBox(CookieStorageState(jar: jar, isPersistent: file != nil))
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
        // Made (its file read) under the registry's lock, so that one identifier never loads its file twice;
        // the initialiser calls nothing outside this module.
        groupStorages.withLock { storages in
            if let storage = storages[identifier] { return storage }
            let safeName = String(identifier.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
            let made = HTTPCookieStorage(file: persistentFile(named: "cookies-\(safeName).json"))
            storages[identifier] = made
            return made
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
        return read { $0.jar.cookies(now: now) }
    }

    /// The cookies a request to `url` sends, in RFC 6265's order (longer paths first, then older); nil
    /// when `url` has no host.
    open func cookies(for url: URL) -> [HTTPCookie]? {
        guard HTTPCookie.canonicalHost(of: url) != nil else { return nil }
        let now = clock()
        return read { $0.jar.cookies(for: url, now: now) }
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
        get { read { $0.acceptPolicy } }
        set { access { ((), $0.setAcceptPolicy(newValue)) } }
    }

    // MARK: Changing

    /// Stores `cookie`, replacing the one with the same name, domain and path (and keeping that one's
    /// creation time); an expired cookie removes it. Ignored when the accept policy is `.never`.
    open func setCookie(_ cookie: HTTPCookie) {
        guard cookieAcceptPolicy != .never else { return }
        change { state, now in state.store(cookie, now: now) }
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
        change { state, now in state.change(now: now) { jar, _ in jar.remove(cookie) } }
    }

    /// Removes the cookies created at or after `date`.
    open func removeCookies(since date: Date) {
        change { state, now in state.change(now: now) { jar, _ in jar.removeAll { $0.creationDate >= date } } }
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
        change { state, now in state.store(accepted, fromSecureScheme: secureScheme, now: now) }
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
        guard !read({ $0.jar.entries.isEmpty }) else { return nil }
        return cookies(for: url).flatMap(HTTPCookie.cookieFieldValue)
    }

    // MARK: The door

    /// Runs `body` on the state under the lock, then performs the effects it returned (writes the file,
    /// posts the notifications) after the lock is released.
    private func access<Result>(_ body: (inout CookieStorageState) -> (Result, CookieStorageEffects)) -> Result {
        let (result, effects) = state.withLock(body)
        if let file, let snapshot = effects.snapshot {
            Self.save(snapshot.cookies, to: file, generation: snapshot.generation)
        }
        if effects.cookiesChanged {
            NotificationCenter.default.post(name: .NSHTTPCookieManagerCookiesChanged, object: self)
        }
        if effects.acceptPolicyChanged {
            NotificationCenter.default.post(name: .NSHTTPCookieManagerAcceptPolicyChanged, object: self)
        }
        return result
    }

    /// Reads the state under the lock.
    private func read<Value>(_ body: (CookieStorageState) -> Value) -> Value {
        access { (body($0), CookieStorageEffects()) }
    }

    /// Changes the state under the lock with the time read just before (`clock`), then performs the effects.
    private func change(_ body: (inout CookieStorageState, Date) -> CookieStorageEffects) {
        let now = clock()
        access { ((), body(&$0, now)) }
    }
}
