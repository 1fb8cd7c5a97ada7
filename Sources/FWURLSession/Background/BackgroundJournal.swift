import Foundation
import FWTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - BackgroundJournal
//
// The directory of one background session identifier: `<id>.record` per durable task (`JournalRecord`),
// the tasks' partial files, and `lock`, which the process that owns the journal holds with flock(2) for as
// long as its session lives (the kernel drops it when the process dies, SIGKILL included), so a second live
// process gets a clear error instead of a shared journal.
//
// A record is replaced the crash-safe way: written to `<id>.record.tmp`, fsync'd, renamed over
// `<id>.record`, then the directory is fsync'd, so a power cut leaves the old record or the new one. A
// record that does not decode is reported (`Problem`), renamed to `<id>.record.corrupt` so it is kept for
// inspection, and never trusted. Where: `$XDG_CACHE_HOME/fwnetworking/background/<identifier>`, else
// `~/.cache/fwnetworking/background/<identifier>`, unless the configuration's
// `backgroundSessionDirectory` says otherwise.

/// A background session identifier's journal, locked by this process.
///
/// `Sendable`: `directory` and `lockDescriptor` are immutable; `injectedWriteFailure` is a `LockedBox`. Writes of one
/// task's record come from that task's drain (one at a time); different tasks write different files.
final class BackgroundJournal: Sendable {
    /// A record that could not be trusted.
    struct Problem: Sendable, CustomStringConvertible {
        /// The record file (renamed to `<file>.corrupt`).
        let file: String
        let error: JournalRecordError
        var description: String { "\(file): \(error)" }
    }

    /// The journal's directory.
    let directory: String
    private let lockDescriptor: Int32
    /// Test seam: when set, writing a record fails with this errno (an injected full disk).
    let injectedWriteFailure = LockedBox<Int32?>(nil)

    private init(directory: String, lockDescriptor: Int32) {
        self.directory = directory
        self.lockDescriptor = lockDescriptor
    }

    deinit {
        Glibc.close(lockDescriptor) // releases the flock
    }

    // MARK: Location and lock

    /// The default directory of `identifier`; nil without XDG_CACHE_HOME or HOME.
    static func defaultDirectory(
        identifier: String,
        environment: [String: String] = ProcessEnvironment.values(of: ["XDG_CACHE_HOME", "HOME"])) -> String? {
        let base: String
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.cache"
        } else {
            return nil
        }
        return base + "/fwnetworking/background/" + safeName(identifier)
    }

    /// `identifier` as one path component: `/`, NUL and a leading dot become `_`.
    static func safeName(_ identifier: String) -> String {
        var name = String(identifier.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        if name.isEmpty || name.hasPrefix(".") { name = "_" + name }
        return name
    }

    /// Creates `directory` if needed and takes its lock; throws when another live process holds it.
    static func open(directory: String) throws(URLError) -> BackgroundJournal {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw URLError(.cannotCreateFile, url: nil,
                           description: "cannot create the background session directory \(directory): \(error)")
        }
        let lockPath = directory + "/lock"
        let descriptor = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw URLError(.cannotOpenFile, url: nil, description: "cannot open \(lockPath): \(errnoText())")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let owner = (try? String(contentsOfFile: lockPath, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            Glibc.close(descriptor)
            throw URLError(.cannotOpenFile, url: nil, description:
                "the background session journal \(directory) is in use by another live process (pid \(owner))")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return BackgroundJournal(directory: directory, lockDescriptor: descriptor)
    }

    /// Lets another session or process take the journal (the session was invalidated).
    func unlock() {
        _ = flock(lockDescriptor, LOCK_UN)
    }

    // MARK: Records

    func recordPath(_ taskIdentifier: Int) -> String { "\(directory)/\(taskIdentifier).record" }

    /// Replaces the record of `record.taskIdentifier`: write, fsync, rename, fsync of the directory.
    /// On failure the previous record (if any) is still there, whole.
    func write(_ record: JournalRecord) throws(URLError) {
        let path = recordPath(record.taskIdentifier)
        let temporary = path + ".tmp"
        let bytes = record.encoded()
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("open", temporary, errno) }
        var offset = 0
        while offset < bytes.count {
            if let injected = injectedWriteFailure.withLock({ $0 }) {
                Glibc.close(descriptor)
                unlink(temporary)
                throw failure("write", temporary, injected)
            }
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                Glibc.close(descriptor)
                unlink(temporary)
                throw failure("write", temporary, code)
            }
            offset += written
        }
        guard fsync(descriptor) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            unlink(temporary)
            throw failure("fsync", temporary, code)
        }
        Glibc.close(descriptor)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("rename", path, code)
        }
        syncDirectory()
    }

    /// Removes the record of `taskIdentifier` (the task finished or was cancelled).
    func remove(_ taskIdentifier: Int) {
        unlink(recordPath(taskIdentifier))
        syncDirectory()
    }

    /// Every record in the journal, by task identifier, and the records that could not be trusted (each
    /// renamed to `<file>.corrupt`). Leftover `.tmp` files (a write the process did not finish) and partial
    /// files no trusted record names are removed.
    func load() -> (records: [JournalRecord], problems: [Problem]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var records: [JournalRecord] = []
        var problems: [Problem] = []
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasSuffix(".record.tmp") {
                unlink(path)
                continue
            }
            guard name.hasSuffix(".record") else { continue }
            do throws(JournalRecordError) {
                let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
                let record = try JournalRecord(decoding: bytes)
                guard recordPath(record.taskIdentifier) == path else {
                    throw .malformedPayload("record of task \(record.taskIdentifier) in \(name)")
                }
                records.append(record)
            } catch {
                problems.append(Problem(file: path, error: error))
                rename(path, path + ".corrupt")
            }
        }
        // A partial file no trusted record vouches for is of no use: its bytes are not known to be right.
        let vouched = Set(records.compactMap(\.partialFilePath))
        for name in names where name.hasSuffix(".part") && !vouched.contains(directory + "/" + name) {
            unlink(directory + "/" + name)
        }
        return (records.sorted { $0.taskIdentifier < $1.taskIdentifier }, problems)
    }

    /// The path of a new partial file for `taskIdentifier` (in the journal's directory, so it lives as long).
    func partialFileTemplate(_ taskIdentifier: Int) -> String {
        "\(directory)/\(taskIdentifier)-XXXXXX.part"
    }

    // MARK: Helpers

    private func syncDirectory() {
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        Glibc.close(descriptor)
    }

    private func failure(_ call: String, _ path: String, _ code: Int32) -> URLError {
        URLError(.cannotWriteToFile, url: nil,
                 description: "background journal: \(call) \(path) failed: \(String(cString: strerror(code)))")
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
