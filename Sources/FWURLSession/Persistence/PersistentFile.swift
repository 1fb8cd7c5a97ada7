// PersistentFile.swift
//
// The file behind a persistent store (the shared cookie storage, the shared credential storage): where it
// lives ($XDG_DATA_HOME/FWNetworking, else ~/.local/share/FWNetworking), reading it (absent is not an
// error), and replacing it atomically (a temporary file in the same directory, created with the store's
// mode, written, synced, then renamed over the old one), so a crash leaves the old file or the new one,
// never half of either. Writes are ordered by a generation number: a snapshot older than the last one
// written is dropped, so two threads that changed the store one after the other cannot leave the older
// state on disk. Failures are reported through `log`, once per kind, never thrown at the store's users.

import Foundation
import FWTransport

// MARK: - PersistentFile

/// A store's file: its path, the mode it is created with, and the writer that replaces it atomically.
///
/// `Sendable`: `path`, `mode` and `log` are immutable; the last generation written is in a `LockedBox`,
/// which is also held while writing so that snapshots reach the disk in order (`log` runs after it).
final class PersistentFile: Sendable {
    /// Where the file is.
    let path: String
    /// The permissions the file (and its temporary twin) is created with.
    let mode: mode_t
    /// Where failures are reported, one line each.
    let log: @Sendable (String) -> Void

    /// The generation last written, and whether a write failure was reported already.
    private let writer = LockedBox((generation: UInt64(0), reportedFailure: false))

    /// A file at `path`, created with `mode`, reporting failures to `log`.
    init(path: String, mode: mode_t, log: @escaping @Sendable (String) -> Void = PersistentFile.standardErrorLog) {
        self.path = path
        self.mode = mode
        self.log = log
    }

    // MARK: Location

    /// The directory FWNetworking keeps its files in: `$XDG_DATA_HOME/FWNetworking`, else
    /// `$HOME/.local/share/FWNetworking`; nil when neither variable is set to an absolute path.
    static func dataDirectory(environment: [String: String] = ProcessEnvironment.values(of: ["XDG_DATA_HOME", "HOME"]))
        -> String? {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return xdg + "/FWNetworking"
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return home + "/.local/share/FWNetworking"
        }
        return nil
    }

    /// Writes `line` and a newline to standard error, prefixed with "FWNetworking: ".
    static let standardErrorLog: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data("FWNetworking: \(line)\n".utf8))
    }

    // MARK: Reading

    /// The file's bytes; nil when there is no file. Throws when the file exists but cannot be read.
    func read() throws -> Data? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw PersistentFileError(call: "stat", code: errno)
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    // MARK: Writing

    /// Replaces the file with `data` unless a later generation was written already. A failure is logged
    /// (the first one only) and otherwise ignored: the store keeps working in memory.
    func write(_ data: Data, generation: UInt64) {
        let failure: String? = writer.withLock { state in
            guard generation > state.generation else { return nil }
            state.generation = generation
            do {
                try replace(with: data)
                return nil
            } catch {
                guard !state.reportedFailure else { return nil }
                state.reportedFailure = true
                return "cannot write \(path): \(error); changes are kept in memory only"
            }
        }
        if let failure { log(failure) }
    }

    /// Writes `data` to a new temporary file beside `path` and renames it over `path`.
    private func replace(with data: Data) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw PersistentFileError(call: "open", code: errno) }
        do {
            try Self.writeAll(data, to: descriptor)
            guard fsync(descriptor) == 0 else { throw PersistentFileError(call: "fsync", code: errno) }
            guard close(descriptor) == 0 else {
                throw PersistentFileError(call: "close", code: errno)
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw PersistentFileError(call: "rename", code: code)
        }
    }

    /// Writes every byte of `data` to `descriptor`, retrying interrupted and partial writes.
    private static func writeAll(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw PersistentFileError(call: "write", code: errno)
                }
                offset += written
            }
        }
    }
}

// MARK: - PersistentFileError

/// A failed system call on a store's file.
struct PersistentFileError: Error, CustomStringConvertible {
    /// The call that failed.
    let call: String
    /// Its errno.
    let code: Int32

    /// "call: strerror".
    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

// MARK: - PersistentFileFormatError

/// A store's file that decodes but is not in a format this version understands.
struct PersistentFileFormatError: Error, CustomStringConvertible {
    /// What is wrong.
    let description: String
}
