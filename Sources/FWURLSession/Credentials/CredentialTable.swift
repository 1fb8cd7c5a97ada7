// CredentialTable.swift
//
// The credentials of one storage as a value type; `URLCredentialStorage` keeps one behind its lock. Per
// protection space: credentials by user name, and a default credential. The rules are
// FoundationNetworking's:
// - A credential with persistence `.none` is not stored; nor is a `.synchronizable` one (no sync service
//   exists here: Apple platforms signed out of iCloud refuse them the same way).
// - Setting a credential with a user replaces the space's credential for that user; the first credential
//   set for a space (or any set as default) becomes its default. A credential without a user (a client
//   identity) can only be a default.
// - Removing a credential removes it from the users and, if it is the default, the default.
// Which entries reach the disk: `.permanent` user-and-password credentials only (never identities or
// trusts).

import Foundation

// MARK: - CredentialTable

/// A storage's credentials and the rules for changing them.
struct CredentialTable: Sendable {
    /// Credentials by protection space, then by user name.
    private(set) var credentials: [URLProtectionSpace: [String: URLCredential]] = [:]
    /// The default credential of each protection space.
    private(set) var defaults: [URLProtectionSpace: URLCredential] = [:]

    /// What a change did: anything at all, and anything to credentials written to disk.
    struct Change: Sendable, Equatable {
        var changed = false
        var persistentChanged = false

        /// Records that `credential` was added, replaced or removed.
        mutating func record(_ credential: URLCredential) {
            changed = true
            if CredentialTable.isWritten(credential) { persistentChanged = true }
        }
    }

    /// True for a credential that a storage keeps at all.
    static func isStored(_ credential: URLCredential) -> Bool {
        credential.persistence == .forSession || credential.persistence == .permanent
    }

    /// True for a credential a persistent storage writes to disk: permanent, with a user and a password.
    static func isWritten(_ credential: URLCredential) -> Bool {
        credential.persistence == .permanent && credential.user != nil && credential.password != nil
            && credential.identity == nil && credential.trust == nil
    }

    // MARK: Changing

    /// Stores `credential` for `space`, as the default when `isDefault` (or when the space has none).
    mutating func set(_ credential: URLCredential, for space: URLProtectionSpace, isDefault: Bool) -> Change {
        var change = Change()
        guard Self.isStored(credential) else { return change }
        if let user = credential.user {
            let previous = credentials[space, default: [:]].updateValue(credential, forKey: user)
            if previous != credential {
                previous.map { change.record($0) }
                change.record(credential)
            }
        }
        if isDefault || defaults[space] == nil {
            let previous = defaults.updateValue(credential, forKey: space)
            if previous != credential {
                previous.map { change.record($0) }
                change.record(credential)
            }
        }
        return change
    }

    /// Removes `credential` from `space`'s users and, when it is the default, from the default.
    mutating func remove(_ credential: URLCredential, for space: URLProtectionSpace) -> Change {
        var change = Change()
        if let user = credential.user, credentials[space]?[user] == credential {
            credentials[space]?[user] = nil
            if credentials[space]?.isEmpty == true { credentials[space] = nil }
            change.record(credential)
        }
        if defaults[space] == credential {
            defaults[space] = nil
            change.record(credential)
        }
        return change
    }

    // MARK: Disk

    /// A credential as a persistent storage writes it: listed under its user, the default, or both.
    struct Entry {
        var space: URLProtectionSpace
        var credential: URLCredential
        var listed: Bool
        var isDefault: Bool

        /// Orders entries: by protection space, user, then listed before default-only.
        var sortKey: String {
            [space.sortKey, credential.user ?? "", listed ? "0" : "1"].joined(separator: "\u{0}")
        }
    }

    /// The entries written to disk, in a stable order (by protection space, then user).
    var writtenEntries: [Entry] {
        var entries: [Entry] = []
        for (space, users) in credentials {
            for credential in users.values where Self.isWritten(credential) {
                entries.append(Entry(space: space, credential: credential, listed: true,
                                     isDefault: defaults[space] == credential))
            }
        }
        for (space, credential) in defaults where Self.isWritten(credential) {
            let listed = credential.user.map { credentials[space]?[$0] == credential } ?? false
            if !listed { entries.append(Entry(space: space, credential: credential, listed: false, isDefault: true)) }
        }
        return entries.sorted { $0.sortKey < $1.sortKey }
    }

    /// Puts back an entry read from disk, exactly where it was.
    mutating func restore(_ entry: Entry) {
        if entry.listed, let user = entry.credential.user {
            credentials[entry.space, default: [:]][user] = entry.credential
        }
        if entry.isDefault { defaults[entry.space] = entry.credential }
    }
}

extension URLProtectionSpace {
    /// Orders protection spaces in files: every compared property, in one string.
    var sortKey: String {
        [host.lowercased(), String(port), self.protocol ?? "", proxyType ?? "", realm ?? "", authenticationMethod,
         isProxy() ? "proxy" : ""].joined(separator: "\u{1}")
    }
}
