// DiskCacheStore.swift
//
// The disk tier of `URLCache`: one file per entry in a directory (format: DiskCacheEntryCodec.swift,
// naming: DiskCacheFiles.swift), least recently used first out, within a byte capacity measured in file
// sizes. The index (which file holds which key, its size and storage time, in recency order), the capacity,
// the phase and the directory are one value, `DiskCacheState`, behind one lock reached through one door
// (`access`); its methods return the names of the files that became obsolete, which the door deletes after
// the lock. The index is rebuilt by a scan of the directory (DiskCacheStore+Scan.swift) when the store is
// first used, not when it is created: making a cache (the shared one comes with every default session
// configuration) touches no disk and does not even work out the default directory's path, and a program that
// never stores anything gets no directory.
//
// Only index updates happen under the lock, and that first opening (creating the directory and scanning
// it), because every operation needs the index it builds. Encoding, writing, renaming, reading, decoding and deleting
// files all happen outside it: a write commits by updating the index after its file is in place; a reader
// takes the file name from the index and reads without the lock; files the index no longer names
// (replaced, evicted, removed) are deleted after the lock is released. Unique file names make that safe.
// A file that cannot be read or decoded is a miss, and is removed (unless a newer store replaced it
// meanwhile). Recency is kept in memory: after a restart the order starts as the order of storage.
//
// A store without a directory (memory-only caches, or a directory that could not be created) keeps its
// capacity but stores nothing. Two caches (or processes) sharing one directory at the same time are not
// supported: each keeps its own index, and a scan deletes the other's files being written.

import Foundation
import FWTransport

/// One entry in the disk index.
struct DiskCacheRecord: Equatable, Sendable {
    /// The entry's file name in the directory.
    var fileName: String
    /// When the entry was stored.
    var storedDate: Date
}

// MARK: - DiskCacheState

/// A disk tier's capacity, phase, directory and index, as a value: the tier's rules, with no lock and no file
/// touched (the store does the opening scan and the file work). Changes return the names of the files they
/// made obsolete.
struct DiskCacheState {
    /// Whether the directory was opened.
    enum Phase: Equatable {
        /// Not used yet: the directory may not exist (or be known).
        case unopened
        /// Created and scanned: the index is complete.
        case open
        /// There is no directory, or it could not be created: nothing is stored.
        case unavailable
    }

    /// A directory computed when first asked for.
    enum LazyDirectory {
        case unresolved(@Sendable () -> URL?)
        case resolved(URL?)
    }

    /// The most bytes the tier's files occupy (never negative).
    private(set) var capacity: Int
    private(set) var phase = Phase.unopened
    private var lazyDirectory: LazyDirectory
    /// The index, keyed by the SHA-256 stem of the cache key, costs in bytes.
    private(set) var records = LRUStore<String, DiskCacheRecord>()

    init(directory: @escaping @Sendable () -> URL?, capacity: Int) {
        self.capacity = max(0, capacity)
        lazyDirectory = .unresolved(directory)
    }

    // MARK: Directory and opening

    /// Where the entries go (nil: nowhere), computed the first time it is asked for.
    mutating func directory() -> URL? {
        switch lazyDirectory {
        case .resolved(let directory):
            return directory
        case .unresolved(let resolve):
            let directory = resolve()
            lazyDirectory = .resolved(directory)
            return directory
        }
    }

    /// The directory once the store is open; nil before and when it is unavailable.
    mutating func openDirectory() -> URL? {
        phase == .open ? directory() : nil
    }

    /// The store opened its directory and found `records` there; or (nil) it could not.
    mutating func opened(_ records: LRUStore<String, DiskCacheRecord>?) {
        guard let records else {
            phase = .unavailable
            return
        }
        self.records = records
        phase = .open
    }

    // MARK: Changes

    /// Sets the capacity (a negative one is 0); an open store evicts the least recently used entries beyond it.
    mutating func setCapacity(_ newValue: Int) -> [String] {
        capacity = max(0, newValue)
        guard phase == .open else { return [] }
        return records.evict(toFit: capacity).map(\.value.fileName)
    }

    /// The record for `stem`, which becomes the most recently used, and the directory its file is in.
    mutating func lookUp(_ stem: String) -> (record: DiskCacheRecord, directory: URL)? {
        guard let directory = openDirectory(), let record = records.value(for: stem) else { return nil }
        return (record, directory)
    }

    /// Indexes `record`, whose file has `cost` bytes, for `stem` as the most recently used; returns the file it
    /// replaced and the files evicted to make room (`record`'s own, when the store is not open).
    mutating func insert(_ record: DiskCacheRecord, cost: Int, for stem: String) -> [String] {
        guard phase == .open else { return [record.fileName] }
        let replaced = records.insert(record, cost: cost, for: stem)
        let evicted = records.evict(toFit: capacity)
        return (replaced.map { [$0.fileName] } ?? []) + evicted.map(\.value.fileName)
    }

    /// Removes the entry for `stem`; returns its file.
    mutating func remove(_ stem: String) -> [String] {
        records.removeValue(for: stem).map { [$0.fileName] } ?? []
    }

    /// Removes every entry stored at or after `date`; returns their files.
    mutating func removeAll(storedSince date: Date) -> [String] {
        records.removeAll { $0.storedDate >= date }.map(\.value.fileName)
    }

    /// `record`'s file failed to read or decode: its entry goes unless the index names a newer file for `stem`
    /// already; the file goes in any case.
    mutating func discard(_ record: DiskCacheRecord, for stem: String) -> [String] {
        if records.peekValue(for: stem) == record { records.removeValue(for: stem) }
        return [record.fileName]
    }
}

// MARK: - DiskCacheStore

/// The least-recently-used disk tier of a URL cache: a `DiskCacheState` behind one lock, and the files.
final class DiskCacheStore: Sendable {
    /// The capacity, phase, directory and index, behind one lock.
    private let state: LockedBox<DiskCacheState>

    /// A store over `directory` (nil: one that keeps nothing; evaluated on first use) holding at most
    /// `capacity` bytes. Nothing touches the disk until the store is first used.
    init(directory: @autoclosure @escaping @Sendable () -> URL?, capacity: Int) {
        state = LockedBox(DiskCacheState(directory: directory, capacity: capacity))
    }

    /// Where the entries go; nil for a store that keeps nothing. Computed on first use: the default
    /// directory comes from the environment, the home directory and the process name, which a cache that
    /// is never used (the shared one comes with every default configuration) need not look up.
    var directory: URL? {
        access(opening: false) { ($0.directory(), []) }
    }

    // MARK: Capacity and usage

    /// The most bytes the tier holds; lowering it evicts the least recently used entries at once.
    var capacity: Int {
        get { access(opening: false) { ($0.capacity, []) } }
        set { access { ((), $0.setCapacity(newValue)) } }
    }

    /// The bytes the tier's files occupy now.
    var usage: Int {
        access { ($0.phase == .open ? $0.records.totalCost : 0, []) }
    }

    // MARK: Access

    /// The response stored for `key`, which becomes the most recently used; nil when there is none or its
    /// file is unreadable (then the entry is removed).
    func response(for key: CacheKey) -> CachedURLResponse? {
        let stem = key.fileStem
        guard let (record, directory) = access({ ($0.lookUp(stem), []) }) else { return nil }
        do {
            return try DiskCacheEntryCodec.decode(DiskCacheFiles.read(record.fileName, in: directory), key: key)
        } catch {
            access { ((), $0.discard(record, for: stem)) }
            return nil
        }
    }

    /// Makes the entry for `key`, if any, the most recently used (its response was used from memory).
    func touch(_ key: CacheKey) {
        let stem = key.fileStem
        access { state in
            _ = state.lookUp(stem)
            return ((), [])
        }
    }

    /// Stores `response` (stamped with its storage time) for `key`, evicting the least recently used
    /// entries to make room. An entry larger than the capacity, or one that cannot be written, is not
    /// stored and removes the entry stored for `key` before.
    func store(_ response: CachedURLResponse, for key: CacheKey) {
        guard let (directory, capacity) = access({ state in (state.openDirectory().map { ($0, state.capacity) }, []) })
        else { return }
        let stem = key.fileStem
        let storedDate = response.cacheInfo?.storedDate ?? .distantPast
        let contents = DiskCacheEntryCodec.encode(response, key: key)
        guard contents.count <= capacity,
              let fileName = DiskCacheFiles.write(contents, stem: stem, storedDate: storedDate, in: directory) else {
            removeResponse(for: key)
            return
        }
        let record = DiskCacheRecord(fileName: fileName, storedDate: storedDate)
        access { ((), $0.insert(record, cost: contents.count, for: stem)) }
    }

    /// Removes the entry stored for `key`.
    func removeResponse(for key: CacheKey) {
        let stem = key.fileStem
        access { ((), $0.remove(stem)) }
    }

    /// Removes every entry stored at or after `date` (all of them for `.distantPast`).
    func removeResponses(storedSince date: Date) {
        access { ((), $0.removeAll(storedSince: date)) }
    }

    // MARK: The door

    /// Runs `body` on the state under the lock, opening the store first (unless `opening` is false) when it
    /// was not yet: the directory is created and scanned, under the lock, since every later operation needs the
    /// index it builds. The files that `body` or the opening made obsolete are deleted after the lock.
    private func access<Result>(opening: Bool = true,
                                _ body: (inout DiskCacheState) -> (Result, obsolete: [String])) -> Result {
        let (result, obsolete, directory) = state.withLock { state in
            var obsolete: [String] = []
            if opening, state.phase == .unopened {
                let directory = state.directory()
                if let directory, DiskCacheFiles.makeDirectory(directory) {
                    let scanned = Self.scan(directory, capacity: state.capacity)
                    state.opened(scanned.records)
                    obsolete = scanned.obsolete
                } else {
                    state.opened(nil)
                }
            }
            let (result, more) = body(&state)
            obsolete += more
            return (result, obsolete, obsolete.isEmpty ? nil : state.directory())
        }
        if let directory { DiskCacheFiles.remove(obsolete, in: directory) }
        return result
    }
}
