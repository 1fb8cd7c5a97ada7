import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - SquidProxy

/// squid (Debian's package) on 127.0.0.1: a real HTTP proxy for absolute-form requests and CONNECT tunnels,
/// optionally requiring Basic credentials checked by its `basic_ncsa_auth` helper (or Digest ones checked by
/// `digest_file_auth`). No cache, no DNS use for
/// numeric origins; CONNECT allowed to any port (the tests' origins listen on high ports).
///
/// One process in the foreground (`-N`) under `timeout -k 1 300`, so it cannot outlive a crashed test run.
/// squid cannot listen on port 0: the port comes from `SpawnedProcess.freePort()` and a collision is
/// retried. As root squid drops to its `proxy` user, so its directory is world-writable (it is a fresh
/// temporary directory, removed by `stop()`).
public final class SquidProxy: @unchecked Sendable { // immutable after init; `process` stops itself
    /// The port on 127.0.0.1.
    public let port: Int
    private let workspace: String
    private let process: SpawnedProcess

    /// Starts squid; with `users` (name → password) every request must carry Basic credentials of one, or
    /// Digest ones (realm "fwnetworking") when `digest` is true.
    public init(users: [String: String] = [:], digest: Bool = false) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/squid") else {
            throw TestSupportError.serverUnavailable("squid is not installed (Scripts/install-deps.sh installs it)")
        }
        workspace = try ServedFiles.makeTemporaryDirectory(prefix: "fwnetworking-squid")
        chmod(workspace, 0o777)
        if digest {
            let lines = users.map { "\($0.key):\($0.value)\n" }.joined()
            try lines.write(toFile: workspace + "/passwd", atomically: true, encoding: .utf8)
            chmod(workspace + "/passwd", 0o644)
        } else {
            try Self.writePasswords(users, to: workspace + "/passwd")
        }
        var lastLog = ""
        for _ in 0..<5 {
            let port = try SpawnedProcess.freePort()
            let configPath = workspace + "/squid.conf"
            try Self.config(workspace: workspace, port: port, authentication: users.isEmpty ? nil : digest)
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let process = try SpawnedProcess.spawn(
                SpawnedProcess.safetyNet + ["/usr/sbin/squid", "-N", "-f", configPath],
                logPath: workspace + "/stdout.log")
            let up = waitUntil(timeout: 20) { SpawnedProcess.isAccepting(port: port) || process.hasExited() }
            if up, !process.hasExited() {
                self.port = port
                self.process = process
                return
            }
            process.stop()
            lastLog = (try? String(contentsOfFile: workspace + "/cache.log", encoding: .utf8)) ?? process.log
        }
        try? FileManager.default.removeItem(atPath: workspace)
        throw TestSupportError.serverUnavailable("squid did not start: \(lastLog)")
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:PORT`, or with `user:password@` in front of the host.
    public func url(user: String? = nil, password: String? = nil) -> String {
        guard let user else { return "http://127.0.0.1:\(port)" }
        return "http://\(user):\(password ?? "")@127.0.0.1:\(port)"
    }

    /// The access log so far: one line per request, `METHOD URL STATUS USER`.
    public var accessLog: [String] {
        ((try? String(contentsOfFile: workspace + "/access.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// Whether the access log has `line`, waiting for it at most `timeout` seconds: squid writes a request's
    /// line when the request ends, and a tunnel's when the tunnel closes.
    public func logged(_ line: String, timeout: Double = 10) -> Bool {
        waitUntil(timeout: timeout) { accessLog.contains(line) }
    }

    /// Stops squid and removes its directory (idempotent; also in deinit).
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: workspace)
    }

    /// An htpasswd file with MD5-crypt hashes (`openssl passwd -1`), which basic_ncsa_auth reads.
    private static func writePasswords(_ users: [String: String], to path: String) throws {
        var lines = ""
        for (user, password) in users {
            let hash = Process()
            let pipe = Pipe()
            hash.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            hash.arguments = ["passwd", "-1", password]
            hash.standardOutput = pipe
            try hash.run()
            hash.waitUntilExit()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            lines += "\(user):\(output.trimmingCharacters(in: .whitespacesAndNewlines))\n"
        }
        try lines.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
    }

    /// The configuration; `authentication`: nil for none, true for Digest, false for Basic.
    private static func config(workspace: String, port: Int, authentication digest: Bool?) -> String {
        let scheme = digest == true
            ? "auth_param digest program /usr/lib/squid/digest_file_auth \(workspace)/passwd\n"
                + "auth_param digest realm fwnetworking"
            : "auth_param basic program /usr/lib/squid/basic_ncsa_auth \(workspace)/passwd\n"
                + "auth_param basic realm fwnetworking"
        let access = digest != nil ? """
            \(scheme)
            acl authenticated proxy_auth REQUIRED
            http_access allow authenticated
            http_access deny all
            """ : "http_access allow all"
        return """
        http_port 127.0.0.1:\(port)
        pid_filename \(workspace)/squid.pid
        cache_log \(workspace)/cache.log
        logformat probe %rm %ru %>Hs %un
        access_log stdio:\(workspace)/access.log probe
        cache deny all
        cache_mem 8 MB
        coredump_dir \(workspace)
        pinger_enable off
        shutdown_lifetime 0 seconds
        dns_nameservers 127.0.0.1
        \(access)
        """
    }
}
