// DiskCacheStore+Scan.swift
//
// Rebuilding the disk index when a store first opens its directory, from file names and `stat` alone (no file is
// read): entry files are indexed by their stem with their size, oldest modification time first (the time
// each was stored); when several files carry one stem (a crash between writing a replacement and deleting
// the file it replaced), the newest wins. Leftover temporary files and the losers are deleted, and so are
// the oldest entries beyond the capacity. Files with other names are left alone. A file that is indexed
// but corrupt is found when it is read, and removed then.

import Foundation

extension DiskCacheStore {
    // MARK: Scan

    /// The index of the entry files in `directory` within `capacity`, and the names of the files to delete.
    static func scan(_ directory: URL,
                     capacity: Int) -> (records: LRUStore<String, DiskCacheRecord>, obsolete: [String]) {
        var newest: [String: DiskCacheFile] = [:]
        var obsolete: [String] = []
        for name in DiskCacheFiles.names(in: directory) {
            if name.hasSuffix("." + DiskCacheFiles.temporaryExtension) {
                obsolete.append(name)
                continue
            }
            guard let file = DiskCacheFiles.entryFile(named: name, in: directory) else { continue }
            if let kept = newest[file.stem] {
                let keepNew = (file.storedDate, file.name) > (kept.storedDate, kept.name)
                obsolete.append(keepNew ? kept.name : file.name)
                if !keepNew { continue }
            }
            newest[file.stem] = file
        }
        var records = LRUStore<String, DiskCacheRecord>()
        for file in newest.values.sorted(by: { ($0.storedDate, $0.name) < ($1.storedDate, $1.name) }) {
            let record = DiskCacheRecord(fileName: file.name, storedDate: file.storedDate)
            records.insert(record, cost: file.size, for: file.stem)
        }
        obsolete += records.evict(toFit: capacity).map(\.value.fileName)
        return (records, obsolete)
    }
}
