// CredentialStorageState.swift
//
// Everything a `URLCredentialStorage` keeps, as one value type: the credentials (`CredentialTable`, the rules
// of storing and removing them) and the generation that orders file writes. The storage holds it behind its one
// lock; a change returns `CredentialStorageEffects`, which the storage performs after the lock is released
// (write the snapshot, post `NSURLCredentialStorageChanged`). Any change bumps the generation; a change to a
// credential that is written to disk, in a persistent storage, carries the entries to write with that
// generation, so that `PersistentFile` drops a snapshot overtaken by a later one.

import Foundation

/// What a change of a credential storage's state asks the storage to do once its lock is released.
struct CredentialStorageEffects {
    /// Post `NSURLCredentialStorageChanged`.
    var changed = false
    /// Write these entries to the storage's file, as this generation.
    var snapshot: (generation: UInt64, entries: [CredentialTable.Entry])?
}

/// The credentials of a storage and the generation of its file writes.
struct CredentialStorageState {
    private(set) var table: CredentialTable
    /// Counts changes, so that file writes land in order.
    private(set) var generation: UInt64 = 0
    /// Whether the storage writes its `.permanent` credentials to a file.
    let isPersistent: Bool

    init(table: CredentialTable = CredentialTable(), isPersistent: Bool) {
        self.table = table
        self.isPersistent = isPersistent
    }

    /// Applies `edit` to the table.
    mutating func change(_ edit: (inout CredentialTable) -> CredentialTable.Change) -> CredentialStorageEffects {
        let change = edit(&table)
        guard change.changed else { return CredentialStorageEffects() }
        generation += 1
        var effects = CredentialStorageEffects(changed: true)
        if change.persistentChanged, isPersistent { effects.snapshot = (generation, table.writtenEntries) }
        return effects
    }
}
