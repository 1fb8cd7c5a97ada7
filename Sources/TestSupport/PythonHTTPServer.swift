// PythonHTTPServer: `python3 -m http.server` on 127.0.0.1 serving a fresh temporary directory, as an
// independent server implementation to run the client against.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - PythonHTTPServer

/// `python3 -m http.server` on 127.0.0.1, serving a fresh temporary directory.
///
/// Python's request log (stderr) goes to `server.log` next to the served directory; its text is part of
/// the error when the server does not come up.
public final class PythonHTTPServer: Sendable {
    // MARK: Stored state

    /// The port on 127.0.0.1 that the server reported.
    public let port: Int
    /// The served directory (holds the files given to `init`).
    public let directory: String
    /// The temporary directory holding `directory` and `server.log`; removed by `stop()`.
    private let workspace: String
    /// The running server and the read end of its stdout, until `stop()` takes them.
    private let running: LockedBox<(process: Process, output: FileHandle)?>

    /// Seconds to wait for the "Serving HTTP on" line.
    private static let startTimeout = 10.0

    /// Creates the directory with `files` (relative path -> bytes), starts the server with port 0
    /// (`python3 -u -m http.server 0 --bind 127.0.0.1 --directory DIR`), parses the port from its
    /// "Serving HTTP on 127.0.0.1 port N" line (bounded wait, 10 s), and throws a clear error if
    /// python3 is missing or it does not come up.
    public convenience init(files: [String: [UInt8]]) throws {
        try self.init(files: files, program: nil)
    }

    /// An upload sink: Python's `http.server` (HTTP/1.1, so it answers `Expect: 100-continue`) with a
    /// handler that reads a GET, PUT or POST body — Content-Length or chunked — and answers 200 with JSON
    /// `{"method", "path", "length", "sha256", "chunked", "contentLength"}`. `POST /redirect/CODE`
    /// reads the body and answers CODE with `Location: /sink`.
    public static func uploadSink() throws -> PythonHTTPServer {
        try PythonHTTPServer(files: ["sink.py": Array(uploadSinkProgram.utf8)], program: "sink.py")
    }

    /// Serves `files` with `http.server`, or runs `program` (one of `files`), which prints the same
    /// "Serving HTTP on 127.0.0.1 port N" first line.
    init(files: [String: [UInt8]], program: String?) throws {
        guard let python = Self.findExecutable("python3") else {
            throw TestSupportError.serverUnavailable("python3 not found on PATH")
        }
        workspace = try ServedFiles.makeTemporaryDirectory(prefix: "fwnetworking-python")
        directory = workspace + "/root"
        let logPath = workspace + "/server.log"
        let process = Process()
        let stdout = Pipe()
        do {
            try ServedFiles.write(files, into: directory)
            guard FileManager.default.createFile(atPath: logPath, contents: nil),
                  let log = FileHandle(forWritingAtPath: logPath) else {
                throw TestSupportError.serverUnavailable("cannot create \(logPath)")
            }
            defer { try? log.close() }
            process.executableURL = URL(fileURLWithPath: python)
            let root = directory
            process.arguments = program.map { ["-u", root + "/" + $0] }
                ?? ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = stdout
            process.standardError = log
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: workspace)
            throw error
        }
        running = LockedBox((process, stdout.fileHandleForReading))
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
        let taken = running.withLock { running in
            defer { running = nil }
            return running
        }
        guard let (process, output) = taken else { return }
        process.killAndWait()
        try? output.close()
        try? FileManager.default.removeItem(atPath: workspace)
    }

    // MARK: Starting

    /// Reads the server's stdout until the "port N" of its first line, the process exits, or the timeout.
    private static func readPort(from descriptor: Int32, of process: Process) throws -> Int {
        let output = process.readStartupOutput(from: descriptor, timeout: startTimeout) { port(in: $0) != nil }
        guard output.ended, let port = port(in: output.text) else {
            throw TestSupportError.serverUnavailable(
                output.ended ? "exited; stdout: \(output.text)" : "no port after 10 s")
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

    private static let uploadSinkProgram = #"""
    import hashlib, http.server, json, sys

    class Sink(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self.sink()

        def do_PUT(self):
            self.sink()

        def do_POST(self):
            self.sink()

        def read_exactly(self, remaining, digest):
            total = 0
            while remaining > 0:
                piece = self.rfile.read(min(remaining, 65536))
                if not piece:
                    break
                digest.update(piece)
                total += len(piece)
                remaining -= len(piece)
            return total

        def sink(self):
            digest = hashlib.sha256()
            chunked = self.headers.get("Transfer-Encoding", "").lower() == "chunked"
            total = 0
            if chunked:
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    total += self.read_exactly(size, digest)
                    self.rfile.readline()
            else:
                total = self.read_exactly(int(self.headers.get("Content-Length", "0")), digest)
            if self.path.startswith("/redirect/"):
                self.send_response(int(self.path.split("/")[2]))
                self.send_header("Location", "/sink")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = json.dumps({"method": self.command, "path": self.path, "length": total,
                               "sha256": digest.hexdigest(), "chunked": chunked,
                               "contentLength": self.headers.get("Content-Length")}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    print("Serving HTTP on 127.0.0.1 port %d (upload sink)" % server.server_address[1], flush=True)
    server.serve_forever()
    """#
}
