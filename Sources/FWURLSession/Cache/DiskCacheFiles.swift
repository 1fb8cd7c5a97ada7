// DiskCacheFiles.swift
//
// The file operations of the disk tier, with the naming scheme of its directory:
//
//     <stem>.<unique>.fwcache   an entry: stem = SHA-256 of the key (64 hex digits), unique = 16 hex digits
//     <stem>.<unique>.tmp       an entry being written
//
// An entry is written to a temporary file, its modification time set to the time it was stored (so a scan
// on open knows the storage order without reading any file), and renamed into place: a reader sees the
// whole file or none. Every store writes a new unique name, so deleting a replaced or evicted file can never
// hit a newer entry for the same key. There is no fsync: after a power loss an entry may be torn, and the
// checksum turns it into a miss. The directory is created mode 0700 and files 0600 (responses may be
// private).

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One entry file found by a directory scan.
struct DiskCacheFile: Equatable, Sendable {
    /// The file name (no directory).
    var name: String
    /// The SHA-256 stem of the entry's key.
    var stem: String
    /// The file's size in bytes.
    var size: Int
    /// The file's modification time: when the entry was stored.
    var storedDate: Date
}

/// File operations on a disk cache directory.
enum DiskCacheFiles {
    /// The extension of entry files.
    static let entryExtension = "fwcache"
    /// The extension of files being written.
    static let temporaryExtension = "tmp"

    // MARK: Directory

    /// Creates `directory` (and its parents) when missing; whether it exists afterwards.
    static func makeDirectory(_ directory: URL) -> Bool {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// The names of the files in `directory`; empty when it cannot be read.
    static func names(in directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    /// The entry file `name` in `directory`, when the name is an entry's and the file exists.
    static func entryFile(named name: String, in directory: URL) -> DiskCacheFile? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == entryExtension, isHex(parts[0], count: 64),
              isHex(parts[1], count: 16) else { return nil }
        var status = stat()
        guard stat(directory.appendingPathComponent(name).path, &status) == 0,
              (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1_000_000_000
        return DiskCacheFile(name: name, stem: String(parts[0]), size: Int(status.st_size),
                             storedDate: Date(timeIntervalSince1970: modified))
    }

    /// Whether `text` is `count` lowercase hexadecimal digits.
    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
    }

    // MARK: Reading and writing

    /// The contents of the file `name` in `directory`.
    static func read(_ name: String, in directory: URL) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// Writes `contents` as a new entry file for `stem`, dated `storedDate`: to a temporary file first, then
    /// renamed into place. Returns the entry's file name; nil when any step failed (nothing is left behind).
    static func write(_ contents: Data, stem: String, storedDate: Date, in directory: URL) -> String? {
        let unique = String(UInt64.random(in: .min ... .max), radix: 16)
        let base = stem + "." + String(repeating: "0", count: 16 - unique.utf8.count) + unique
        let temporary = directory.appendingPathComponent(base + "." + temporaryExtension).path
        let name = base + "." + entryExtension
        guard writeFile(contents, to: temporary, modified: storedDate),
              rename(temporary, directory.appendingPathComponent(name).path) == 0 else {
            unlink(temporary)
            return nil
        }
        return name
    }

    /// Creates `path` (which must not exist) with `contents` and modification time `modified`.
    private static func writeFile(_ contents: Data, to path: String, modified: Date) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let written = contents.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let result = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { return false }
                offset += result
            }
            return true
        }
        let seconds = modified.timeIntervalSince1970.rounded(.down)
        let nanoseconds = (modified.timeIntervalSince1970 - seconds) * 1_000_000_000
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
        let times = [time, time]
        return written && futimens(descriptor, times) == 0
    }

    /// Deletes the files `names` in `directory`; a file that is already gone is no error.
    static func remove(_ names: [String], in directory: URL) {
        for name in names {
            unlink(directory.appendingPathComponent(name).path)
        }
    }
}
