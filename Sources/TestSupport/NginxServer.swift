import Foundation
import Glibc

// MARK: - NginxServer

/// nginx (Debian's package) on 127.0.0.1, serving a fresh temporary directory: a real server for Range,
/// ETag / If-Range, Last-Modified, gzip and redirects.
///
/// One process (`master_process off`) in the foreground under `timeout -k 1 300`, so it cannot outlive a
/// test run that crashed. nginx cannot listen on port 0: the port comes from `SpawnedProcess.freePort()`
/// and a collision is retried. Every path nginx writes (pid, logs, temp files) is inside the workspace.
public final class NginxServer: @unchecked Sendable { // immutable after init; `process` stops itself
    /// The port on 127.0.0.1.
    public let port: Int
    /// The served directory (holds the files given to `init`); tests may change files in it.
    public let root: String
    private let workspace: String
    private let process: SpawnedProcess

    /// Starts nginx serving `files` (relative path → bytes) with strong ETags, gzip for `.txt` and `.json`
    /// files (`application/octet-stream` for the rest); `serverConfig` is added inside the `server { }` block (locations, `limit_rate`, ...).
    public init(files: [String: [UInt8]], serverConfig: String = "") throws {
        let candidates: [String] = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        guard let nginx = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestSupportError.serverUnavailable("nginx is not installed (Scripts/install-deps.sh installs it)")
        }
        workspace = try ServedFiles.makeTemporaryDirectory(prefix: "fwnetworking-nginx")
        root = workspace + "/root"
        try ServedFiles.write(files, into: root)
        try FileManager.default.createDirectory(atPath: workspace + "/temp", withIntermediateDirectories: true)
        var lastLog = ""
        for _ in 0..<5 {
            let port = try SpawnedProcess.freePort()
            let configPath = workspace + "/nginx.conf"
            try Self.config(workspace: workspace, root: root, port: port, serverConfig: serverConfig)
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let process = try SpawnedProcess.spawn(
                ["timeout", "-k", "1", "300", nginx, "-p", workspace, "-c", configPath, "-e", workspace + "/error.log"],
                logPath: workspace + "/stdout.log")
            let up = waitUntil(timeout: 10) { SpawnedProcess.isAccepting(port: port) || process.hasExited() }
            if up, !process.hasExited() {
                self.port = port
                self.process = process
                return
            }
            process.stop()
            lastLog = (try? String(contentsOfFile: workspace + "/error.log", encoding: .utf8)) ?? process.log
        }
        try? FileManager.default.removeItem(atPath: workspace)
        throw TestSupportError.serverUnavailable("nginx did not start: \(lastLog)")
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The access log so far: one line per request, `"$request" $status $http_range $http_if_range`.
    public var accessLog: [String] {
        ((try? String(contentsOfFile: workspace + "/access.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// Stops nginx and removes its directory (idempotent; also in deinit).
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: workspace)
    }

    private static func config(workspace: String, root: String, port: Int, serverConfig: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(workspace)/nginx.pid;
        error_log \(workspace)/error.log warn;
        events { worker_connections 128; }
        http {
            log_format probe '"$request" $status range=$http_range if-range=$http_if_range';
            access_log \(workspace)/access.log probe;
            default_type application/octet-stream;
            types { text/plain txt; application/json json; }
            client_body_temp_path \(workspace)/temp/body;
            proxy_temp_path \(workspace)/temp/proxy;
            fastcgi_temp_path \(workspace)/temp/fastcgi;
            uwsgi_temp_path \(workspace)/temp/uwsgi;
            scgi_temp_path \(workspace)/temp/scgi;
            sendfile on;
            server {
                listen 127.0.0.1:\(port);
                root \(root);
                gzip on;
                gzip_types text/plain application/json;
                gzip_min_length 1;
                \(serverConfig)
            }
        }
        """
    }
}

// MARK: - ServedFiles

/// The directory a test server serves.
enum ServedFiles {
    /// A fresh directory under the system temporary directory.
    static func makeTemporaryDirectory(prefix: String) throws -> String {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TestSupportError.systemCall("mkdtemp", errno: errno)
        }
        return String(cString: created)
    }

    /// Writes `files` (relative path → bytes) under `root`, creating directories as needed.
    static func write(_ files: [String: [UInt8]], into root: String) throws {
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
