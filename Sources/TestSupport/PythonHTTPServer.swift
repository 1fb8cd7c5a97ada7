// PythonHTTPServer: `python3 -m http.server` on 127.0.0.1 serving a fresh temporary directory, as an
// independent server implementation to run the client against.

import Foundation
import Glibc

// MARK: - PythonHTTPServer

/// `python3 -m http.server` on 127.0.0.1, serving a fresh temporary directory.
///
/// Python's request log (stderr) goes to `server.log` next to the served directory; its text is part of
/// the error when the server does not come up.
public final class PythonHTTPServer: @unchecked Sendable { // process state under its lock
    // MARK: Stored state

    /// The port on 127.0.0.1 that the server reported.
    public let port: Int
    /// The served directory (holds the files given to `init`).
    public let directory: String
    /// The temporary directory holding `directory` and `server.log`; removed by `stop()`.
    private let workspace: String
    /// Guards `process` and `output`.
    private let lock = NSLock()
    /// The running server, until `stop()`. Under `lock`.
    private var process: Process?
    /// The read end of the server's stdout, until `stop()`. Under `lock`.
    private var output: FileHandle?

    /// Seconds to wait for the "Serving HTTP on" line.
    private static let startTimeout = 10.0

    /// Creates the directory with `files` (relative path -> bytes), starts the server with port 0
    /// (`python3 -u -m http.server 0 --bind 127.0.0.1 --directory DIR`), parses the port from its
    /// "Serving HTTP on 127.0.0.1 port N" line (bounded wait, 10 s), and throws a clear error if
    /// python3 is missing or it does not come up.
    public init(files: [String: [UInt8]]) throws {
        guard let python = Self.findExecutable("python3") else {
            throw TestSupportError.serverUnavailable("python3 not found on PATH")
        }
        workspace = try Self.makeTemporaryDirectory()
        directory = workspace + "/root"
        let logPath = workspace + "/server.log"
        let process = Process()
        let stdout = Pipe()
        do {
            try Self.write(files, into: directory)
            guard FileManager.default.createFile(atPath: logPath, contents: nil),
                  let log = FileHandle(forWritingAtPath: logPath) else {
                throw TestSupportError.serverUnavailable("cannot create \(logPath)")
            }
            defer { try? log.close() }
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = stdout
            process.standardError = log
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: workspace)
            throw error
        }
        self.process = process
        self.output = stdout.fileHandleForReading
        do {
            port = try Self.readPort(from: stdout.fileHandleForReading.fileDescriptor, of: process)
        } catch {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            port = 0
            stop()
            throw TestSupportError.serverUnavailable("python3 http.server did not come up (\(error)); log: \(log)")
        }
    }

    deinit {
        stop()
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    // MARK: Stopping

    /// Kills the server, waits (bounded) for it to exit and removes the directory. Idempotent; also in deinit.
    public func stop() {
        let (process, output): (Process?, FileHandle?) = lock.withLock {
            defer {
                self.process = nil
                self.output = nil
            }
            return (self.process, self.output)
        }
        guard let process else { return }
        if process.isRunning {
            // SIGKILL, not SIGTERM: a child inherits the signal mask of the spawning thread, and test
            // runner threads block SIGTERM, so python would never see it. http.server has nothing to flush.
            kill(process.processIdentifier, SIGKILL)
            _ = waitUntil(timeout: 5) { !process.isRunning }
        }
        try? output?.close()
        try? FileManager.default.removeItem(atPath: workspace)
    }

    // MARK: Starting

    /// Reads the server's stdout until the "port N" of its first line, the process exits, or the timeout.
    private static func readPort(from descriptor: Int32, of process: Process) throws -> Int {
        var text = ""
        let found = waitUntil(timeout: startTimeout) {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 20) > 0 else { return !process.isRunning }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return true }
            text += String(decoding: buffer[..<count], as: UTF8.self)
            return port(in: text) != nil
        }
        guard found, let port = port(in: text) else {
            throw TestSupportError.serverUnavailable(found ? "exited; stdout: \(text)" : "no port after 10 s")
        }
        return port
    }

    /// The N of "port N " in a complete first line, or nil.
    private static func port(in text: String) -> Int? {
        guard let line = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first,
              let range = line.range(of: " port ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// The first executable named `name` on PATH.
    private static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// Creates a fresh directory under the system temporary directory.
    private static func makeTemporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/fwnetworking-python-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TestSupportError.systemCall("mkdtemp", errno: errno)
        }
        return String(cString: created)
    }

    /// Writes `files` (relative path -> bytes) under `root`, creating directories as needed.
    private static func write(_ files: [String: [UInt8]], into root: String) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (relativePath, bytes) in files {
            let components = relativePath.split(separator: "/")
            guard !relativePath.hasPrefix("/"), !components.isEmpty, !components.contains("..") else {
                throw TestSupportError.serverUnavailable("bad file path \"\(relativePath)\"")
            }
            let path = root + "/" + components.joined(separator: "/")
            let parent = (path as NSString).deletingLastPathComponent
            try manager.createDirectory(atPath: parent, withIntermediateDirectories: true)
            guard manager.createFile(atPath: path, contents: Data(bytes)) else {
                throw TestSupportError.serverUnavailable("cannot write \(path)")
            }
        }
    }
}
