// URLCredentialStorage.swift
//
// The credential storage, source-compatible with FoundationNetworking's `URLCredentialStorage`. Its whole
// state is one `CredentialStorageState` value (the `CredentialTable` and the write generation) behind one
// lock, reached through one door (`access`): a read or a change runs under the lock, and the effects a change
// returns (the snapshot to write, the notification) are performed after the lock is released. The shared storage keeps `.permanent`
// credentials in a file only its user can read (`URLCredentialStorage+Persistence.swift`); `.forSession`
// credentials stay in memory; `.none` credentials are not stored. A storage made with `init()` (and an
// ephemeral configuration's) lives in memory only.

import Foundation
import FWTransport

// MARK: - URLCredentialStorage

/// A store of credentials by protection space, with a default credential per space.
///
/// `@unchecked Sendable`: the only mutable state is in `state`, a `LockedBox`; `file` is immutable and
/// guards its own writes.
open class URLCredentialStorage: NSObject, @unchecked Sendable { // mutable state: `state` (LockedBox)
    /// The credentials, and a change counter so that file writes land in order.
    private let state: LockedBox<CredentialStorageState>
    /// The file `.permanent` credentials are kept in; nil for an in-memory storage.
    let file: PersistentFile?

    // MARK: Creation

    /// A new storage in memory only.
    public override init() {
        state = LockedBox(CredentialStorageState(isPersistent: false))
        file = nil
        super.init()
    }

    /// A storage kept in `file`, loading the credentials it holds.
    init(file: PersistentFile) {
        var table = CredentialTable()
        for entry in Self.load(from: file) { table.restore(entry) }
        state = LockedBox(CredentialStorageState(table: table, isPersistent: true))
        self.file = file
        super.init()
    }

    private static let sharedStorage: URLCredentialStorage = {
        guard let directory = PersistentFile.dataDirectory() else { return URLCredentialStorage() }
        return URLCredentialStorage(file: PersistentFile(path: directory + "/credentials.json", mode: 0o600))
    }()

    /// The shared credential storage; its `.permanent` credentials are kept in
    /// `$XDG_DATA_HOME/FWNetworking/credentials.json` (by default `~/.local/share/FWNetworking/`), mode 0600.
    open class var shared: URLCredentialStorage { sharedStorage }

    // MARK: Reading

    /// The credentials stored for `space`, by user name; nil when there are none.
    open func credentials(for space: URLProtectionSpace) -> [String: URLCredential]? {
        read { $0.table.credentials[space] }
    }

    /// Every stored credential: by protection space, then by user name.
    open var allCredentials: [URLProtectionSpace: [String: URLCredential]] {
        read { $0.table.credentials }
    }

    /// The default credential for `space`, if any.
    open func defaultCredential(for space: URLProtectionSpace) -> URLCredential? {
        read { $0.table.defaults[space] }
    }

    // MARK: Changing

    /// Stores `credential` for `space`, replacing the one with the same user; it becomes the space's
    /// default when the space has none. `.none` and `.synchronizable` credentials are not stored.
    open func set(_ credential: URLCredential, for space: URLProtectionSpace) {
        change { $0.set(credential, for: space, isDefault: false) }
    }

    /// Stores `credential` for `space` and makes it the space's default.
    open func setDefaultCredential(_ credential: URLCredential, for space: URLProtectionSpace) {
        change { $0.set(credential, for: space, isDefault: true) }
    }

    /// Removes `credential` from `space` (from its users and, when it is the default, the default).
    open func remove(_ credential: URLCredential, for space: URLProtectionSpace) {
        remove(credential, for: space, options: nil)
    }

    /// Removes `credential` from `space`. A `.synchronizable` credential is only removed when `options`
    /// sets `NSURLCredentialStorageRemoveSynchronizableCredentials` to true (none is ever stored here).
    open func remove(_ credential: URLCredential, for space: URLProtectionSpace,
                     options: [String: AnyObject]? = [:]) {
        if credential.persistence == .synchronizable {
            let option = options?[NSURLCredentialStorageRemoveSynchronizableCredentials] as? NSNumber
            guard option?.boolValue == true else { return }
        }
        change { $0.remove(credential, for: space) }
    }

    // MARK: The door

    /// Runs `body` on the state under the lock, then performs the effects it returned (writes the file, posts
    /// the notification) after the lock is released.
    private func access<Result>(_ body: (inout CredentialStorageState) -> (Result, CredentialStorageEffects))
        -> Result {
        let (result, effects) = state.withLock(body)
        if let file, let snapshot = effects.snapshot {
            Self.save(snapshot.entries, to: file, generation: snapshot.generation)
        }
        if effects.changed { NotificationCenter.default.post(name: .NSURLCredentialStorageChanged, object: self) }
        return result
    }

    /// Reads the state under the lock.
    private func read<Value>(_ body: (CredentialStorageState) -> Value) -> Value {
        access { (body($0), CredentialStorageEffects()) }
    }

    /// Changes the table under the lock, then performs the effects.
    private func change(_ edit: (inout CredentialTable) -> CredentialTable.Change) {
        access { ((), $0.change(edit)) }
    }
}
