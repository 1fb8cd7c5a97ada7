// DiskCacheStore.swift
//
// The disk tier of `URLCache`: one file per entry in a directory (format: DiskCacheEntryCodec.swift,
// naming: DiskCacheFiles.swift), least recently used first out, within a byte capacity measured in file
// sizes. The index (which file holds which key, its size and storage time, in recency order) lives in
// memory behind one lock; it is rebuilt by a scan of the directory (DiskCacheStore+Scan.swift) when the
// store is first used, not when it is created: making a cache (the shared one comes with every default
// session configuration) touches no disk and does not even work out the default directory's path, and a
// program that never stores anything gets no directory.
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

/// The least-recently-used disk tier of a URL cache.
final class DiskCacheStore: Sendable {
    // MARK: State

    /// Whether the directory was opened.
    enum Phase: Equatable {
        /// Not used yet: the directory may not exist (or be known).
        case unopened
        /// Created and scanned: the index is complete.
        case open
        /// There is no directory, or it could not be created: nothing is stored.
        case unavailable
    }

    /// The capacity, the phase and the index (keyed by the SHA-256 stem of the cache key, costs in bytes).
    struct State {
        var capacity: Int
        var phase: Phase
        var records = LRUStore<String, DiskCacheRecord>()
    }

    /// A directory computed when first asked for.
    private enum LazyDirectory {
        case unresolved(@Sendable () -> URL?)
        case resolved(URL?)
    }

    /// Where the entries go; nil for a store that keeps nothing. Computed on first use: the default
    /// directory comes from the environment, the home directory and the process name, which a cache that
    /// is never used (the shared one comes with every default configuration) need not look up.
    var directory: URL? {
        lazyDirectory.withLock { lazy in
            switch lazy {
            case .resolved(let directory):
                return directory
            case .unresolved(let resolve):
                let directory = resolve()
                lazy = .resolved(directory)
                return directory
            }
        }
    }

    /// `directory`, before or after it was computed (its own lock: `state`'s holder may ask for it).
    private let lazyDirectory: LockedBox<LazyDirectory>
    /// The capacity, phase and index, behind one lock.
    private let state: LockedBox<State>

    /// A store over `directory` (nil: one that keeps nothing; evaluated on first use) holding at most
    /// `capacity` bytes. Nothing touches the disk until the store is first used.
    init(directory: @autoclosure @escaping @Sendable () -> URL?, capacity: Int) {
        lazyDirectory = LockedBox(.unresolved(directory))
        state = LockedBox(State(capacity: max(0, capacity), phase: .unopened))
    }

    // MARK: Capacity and usage

    /// The most bytes the tier holds; lowering it evicts the least recently used entries at once.
    var capacity: Int {
        get { state.withLock { $0.capacity } }
        set {
            state.withLock { $0.capacity = max(0, newValue) }
            let evicted = withOpenState { state, _ in
                state.records.evict(toFit: state.capacity).map(\.value.fileName)
            }
            delete(evicted ?? [])
        }
    }

    /// The bytes the tier's files occupy now.
    var usage: Int {
        withOpenState { state, _ in state.records.totalCost } ?? 0
    }

    // MARK: Access

    /// The response stored for `key`, which becomes the most recently used; nil when there is none or its
    /// file is unreadable (then the entry is removed).
    func response(for key: CacheKey) -> CachedURLResponse? {
        let stem = key.fileStem
        let found = withOpenState { state, directory in
            state.records.value(for: stem).map { (record: $0, directory: directory) }
        }
        guard let (record, directory) = found ?? nil else { return nil }
        do {
            return try DiskCacheEntryCodec.decode(DiskCacheFiles.read(record.fileName, in: directory), key: key)
        } catch {
            discard(record, stem: stem)
            return nil
        }
    }

    /// Makes the entry for `key`, if any, the most recently used (its response was used from memory).
    func touch(_ key: CacheKey) {
        guard directory != nil else { return }
        let stem = key.fileStem
        _ = withOpenState { state, _ in state.records.value(for: stem) }
    }

    /// Stores `response` (stamped with its storage time) for `key`, evicting the least recently used
    /// entries to make room. An entry larger than the capacity, or one that cannot be written, is not
    /// stored and removes the entry stored for `key` before.
    func store(_ response: CachedURLResponse, for key: CacheKey) {
        guard let directory = withOpenState({ _, directory in directory }) else { return }
        let stem = key.fileStem
        let storedDate = response.cacheInfo?.storedDate ?? .distantPast
        let contents = DiskCacheEntryCodec.encode(response, key: key)
        guard contents.count <= capacity,
              let fileName = DiskCacheFiles.write(contents, stem: stem, storedDate: storedDate, in: directory) else {
            removeResponse(for: key)
            return
        }
        let record = DiskCacheRecord(fileName: fileName, storedDate: storedDate)
        let obsolete = withOpenState { state, _ in
            let replaced = state.records.insert(record, cost: contents.count, for: stem)
            let evicted = state.records.evict(toFit: state.capacity)
            return (replaced.map { [$0.fileName] } ?? []) + evicted.map(\.value.fileName)
        }
        delete(obsolete ?? [fileName])
    }

    /// Removes the entry stored for `key`.
    func removeResponse(for key: CacheKey) {
        guard directory != nil else { return }
        let stem = key.fileStem
        let removed = withOpenState { state, _ in state.records.removeValue(for: stem) } ?? nil
        delete(removed.map { [$0.fileName] } ?? [])
    }

    /// Removes every entry stored at or after `date` (all of them for `.distantPast`).
    func removeResponses(storedSince date: Date) {
        let removed = withOpenState { state, _ in
            state.records.removeAll { $0.storedDate >= date }.map(\.value.fileName)
        }
        delete(removed ?? [])
    }

    // MARK: Opening and removal helpers

    /// Runs `body` under the lock on the state of the opened store, opening it first when needed; nil
    /// when the store has no usable directory. Files the opening made obsolete are deleted after the lock.
    private func withOpenState<Result>(_ body: (inout State, URL) -> Result) -> Result? {
        var obsolete: [String] = []
        let result: Result? = state.withLock { state in
            if state.phase == .unopened {
                if let directory {
                    obsolete = Self.open(directory, state: &state)
                } else {
                    state.phase = .unavailable
                }
            }
            guard state.phase == .open, let directory else { return nil }
            return body(&state, directory)
        }
        delete(obsolete)
        return result
    }

    /// Creates and scans `directory` into `state`; returns the names of the files to delete.
    private static func open(_ directory: URL, state: inout State) -> [String] {
        guard DiskCacheFiles.makeDirectory(directory) else {
            state.phase = .unavailable
            return []
        }
        let scanned = scan(directory, capacity: state.capacity)
        state.records = scanned.records
        state.phase = .open
        return scanned.obsolete
    }

    /// Drops the entry whose file `record` names after it failed to read or decode, unless the index
    /// already names a newer file for `stem`; deletes the file.
    private func discard(_ record: DiskCacheRecord, stem: String) {
        _ = withOpenState { state, _ in
            if state.records.peekValue(for: stem) == record {
                state.records.removeValue(for: stem)
            }
        }
        delete([record.fileName])
    }

    /// Deletes the files `names` (outside the lock).
    private func delete(_ names: [String]) {
        guard let directory, !names.isEmpty else { return }
        DiskCacheFiles.remove(names, in: directory)
    }
}
