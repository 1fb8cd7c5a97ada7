// CookieStorageState.swift
//
// Everything an `HTTPCookieStorage` keeps, as one value type: the jar (`CookieJar`: RFC 6265's storage rules),
// the accept policy, and the generation that orders file writes. The storage holds it behind its one lock; a
// change is a method here that returns `CookieStorageEffects`, which the storage performs after the lock is
// released: the snapshot to write to the file, the notifications to post. No method calls out, so the rules
// are tested on the value alone (`CookieStorageStateTests`).
//
// A change first forgets the cookies expired at `now` (that alone is a change), then applies its edit. Any
// change bumps the generation; when it touched a cookie that is written to disk (neither session-only nor
// expired) and the storage is persistent, the effects carry the cookies to write, tagged with that generation,
// so that `PersistentFile` drops a snapshot overtaken by a later one.

import Foundation

/// What a change of a cookie storage's state asks the storage to do once its lock is released.
struct CookieStorageEffects {
    /// Post `NSHTTPCookieManagerCookiesChanged`.
    var cookiesChanged = false
    /// Post `NSHTTPCookieManagerAcceptPolicyChanged`.
    var acceptPolicyChanged = false
    /// Write these cookies to the storage's file, as this generation.
    var snapshot: (generation: UInt64, cookies: [HTTPCookie])?
}

/// The cookies of a storage, its accept policy and the generation of its file writes.
struct CookieStorageState {
    var jar: CookieJar
    private(set) var acceptPolicy = HTTPCookie.AcceptPolicy.always
    /// Counts changes, so that file writes land in order.
    private(set) var generation: UInt64 = 0
    /// Whether the storage writes its persistent cookies to a file.
    let isPersistent: Bool

    init(jar: CookieJar, isPersistent: Bool) {
        self.jar = jar
        self.isPersistent = isPersistent
    }

    // MARK: Changes

    /// Applies `edit` to the jar at `now`, after forgetting the cookies expired then.
    mutating func change(now: Date, _ edit: (inout CookieJar, Date) -> CookieJar.Change) -> CookieStorageEffects {
        var change = jar.removeExpired(now: now)
        change.merge(edit(&jar, now))
        guard change.changed else { return CookieStorageEffects() }
        generation += 1
        var effects = CookieStorageEffects(cookiesChanged: true)
        if change.persistentChanged, isPersistent {
            effects.snapshot = (generation, jar.persistentCookies(now: now))
        }
        return effects
    }

    /// Stores `cookie` as set through the API (no secure cookie blocks it). The accept policy is the caller's
    /// to apply: the storage reads its `cookieAcceptPolicy`, which a subclass may override.
    mutating func store(_ cookie: HTTPCookie, now: Date) -> CookieStorageEffects {
        change(now: now) { jar, now in jar.store(cookie, fromSecureScheme: nil, now: now) }
    }

    /// Stores the cookies a response `fromSecureScheme` (or not) set, in order.
    mutating func store(_ cookies: [HTTPCookie], fromSecureScheme: Bool, now: Date) -> CookieStorageEffects {
        change(now: now) { jar, now in
            var change = CookieJar.Change()
            for cookie in cookies { change.merge(jar.store(cookie, fromSecureScheme: fromSecureScheme, now: now)) }
            return change
        }
    }

    /// Sets the accept policy; a different one is announced.
    mutating func setAcceptPolicy(_ policy: HTTPCookie.AcceptPolicy) -> CookieStorageEffects {
        defer { acceptPolicy = policy }
        return CookieStorageEffects(acceptPolicyChanged: acceptPolicy != policy)
    }
}
