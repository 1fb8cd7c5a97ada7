import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - NginxServer

/// nginx (Debian's package) on 127.0.0.1, serving a fresh temporary directory: a real server for Range,
/// ETag / If-Range, Last-Modified, gzip, redirects and TLS.
///
/// One process (`master_process off`) in the foreground under `timeout -k 1 300`, so it cannot outlive a
/// test run that crashed. nginx cannot listen on port 0: the ports come from `SpawnedProcess.freePort()`
/// and a collision is retried. Every path nginx writes (pid, logs, temp files) is inside the workspace.
public final class NginxServer: @unchecked Sendable { // immutable after init; `process` stops itself
    /// One `server { }` block.
    public struct Block: Sendable {
        /// For HTTPS: the certificate chain files (leaf first) and the key, from Fixtures/tls.
        public var tls: (chain: [String], key: String)?
        /// Directives inside the block (locations, `limit_rate`, ...); `PORT0`, `PORT1`, ... stand for
        /// the blocks' ports.
        public var config: String

        /// A block; plain HTTP unless `tls` is given.
        public init(tls: (chain: [String], key: String)? = nil, config: String = "") {
            self.tls = tls
            self.config = config
        }
    }

    /// The blocks' ports on 127.0.0.1, in the order given.
    public let ports: [Int]
    /// The served directory (holds the files given to `init`); tests may change files in it.
    public let root: String
    private let workspace: String
    private let process: SpawnedProcess

    /// Starts nginx serving `files` (relative path → bytes) with strong ETags, gzip for `.txt` and `.json`
    /// files (`application/octet-stream` for the rest), one listener per block.
    public init(files: [String: [UInt8]] = [:], blocks: [Block] = [Block()]) throws {
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
            let ports = try blocks.map { _ in try SpawnedProcess.freePort() }
            // Two blocks on one port would be virtual hosts of one listener, not two servers.
            guard Set(ports).count == ports.count else { continue }
            let configPath = workspace + "/nginx.conf"
            // nginx writes its pid file only once every listener is bound: until then a port that accepts
            // may be another test's server that took the port meanwhile (nginx then fails and exits).
            let pidFile = workspace + "/nginx.pid"
            try? FileManager.default.removeItem(atPath: pidFile)
            try Self.config(workspace: workspace, root: root, blocks: blocks, ports: ports)
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let process = try SpawnedProcess.spawn(
                SpawnedProcess.safetyNet + [nginx, "-p", workspace, "-c", configPath, "-e", workspace + "/error.log"],
                logPath: workspace + "/stdout.log")
            let up = waitUntil(timeout: 10) {
                (FileManager.default.fileExists(atPath: pidFile) && ports.allSatisfy(SpawnedProcess.isAccepting(port:)))
                    || process.hasExited()
            }
            if up, !process.hasExited() {
                self.ports = ports
                self.process = process
                return
            }
            process.stop()
            lastLog = (try? String(contentsOfFile: workspace + "/error.log", encoding: .utf8)) ?? process.log
        }
        try? FileManager.default.removeItem(atPath: workspace)
        throw TestSupportError.serverUnavailable("nginx did not start: \(lastLog)")
    }

    /// A plain HTTP server whose block holds `serverConfig`.
    public convenience init(files: [String: [UInt8]], serverConfig: String) throws {
        try self.init(files: files, blocks: [Block(config: serverConfig)])
    }

    deinit {
        stop()
    }

    /// The first block's port.
    public var port: Int { ports[0] }

    /// `http://127.0.0.1:PORT` of the first block.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The access log so far: one line per request,
    /// `"$request" $status range=… if-range=… inm=… ims=… cookie=… user=…` (`-` for a field the request
    /// lacks).
    public var accessLog: [String] {
        ((try? String(contentsOfFile: workspace + "/access.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// The access log once it has at least `count` lines (or what it has after `timeout` seconds): nginx writes
    /// a request's line after the response went out, so a client that just read its response may be ahead of
    /// the log.
    public func accessLog(atLeast count: Int, timeout: Double = 10) -> [String] {
        _ = waitUntil(timeout: timeout) { accessLog.count >= count }
        return accessLog
    }

    /// Stops nginx and removes its directory (idempotent; also in deinit).
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: workspace)
    }

    private static func config(workspace: String, root: String, blocks: [Block], ports: [Int]) throws -> String {
        var servers = ""
        for (index, block) in blocks.enumerated() {
            var directives = block.config
            for (number, port) in ports.enumerated() {
                directives = directives.replacingOccurrences(of: "PORT\(number)", with: "\(port)")
            }
            var listen = "listen 127.0.0.1:\(ports[index])"
            if let tls = block.tls {
                let chainPath = workspace + "/chain\(index).pem"
                let chain = try tls.chain.map { try String(contentsOfFile: TLSFixtures.path($0), encoding: .utf8) }
                try chain.joined().write(toFile: chainPath, atomically: true, encoding: .utf8)
                listen += " ssl; ssl_certificate \(chainPath); ssl_certificate_key \(TLSFixtures.path(tls.key))"
            }
            servers += """
                server {
                    \(listen);
                    root \(root);
                    gzip on;
                    gzip_types text/plain application/json;
                    gzip_min_length 1;
                    \(directives)
                }

            """
        }
        return """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(workspace)/nginx.pid;
        error_log \(workspace)/error.log warn;
        events { worker_connections 128; }
        http {
            log_format probe '"$request" $status range=$http_range if-range=$http_if_range '
                             'inm=$http_if_none_match ims=$http_if_modified_since '
                             'cookie=$http_cookie user=$remote_user';
            access_log \(workspace)/access.log probe;
            default_type application/octet-stream;
            types { text/plain txt; application/json json; }
            client_body_temp_path \(workspace)/temp/body;
            proxy_temp_path \(workspace)/temp/proxy;
            fastcgi_temp_path \(workspace)/temp/fastcgi;
            uwsgi_temp_path \(workspace)/temp/uwsgi;
            scgi_temp_path \(workspace)/temp/scgi;
            sendfile on;
            # Far above nginx's 75 s: on a loaded 2-core machine a test can be starved for longer than that
            # between two requests, and nginx closing the idle connection then is right but not what a
            # test of connection reuse is about.
            keepalive_timeout 3600s;
        \(servers)}
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
