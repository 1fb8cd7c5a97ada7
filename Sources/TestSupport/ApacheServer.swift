import Foundation
import FWTLS

// MARK: - ApacheServer

/// Apache httpd (Debian's apache2-bin) on a loopback port serving `/private/` behind HTTP Digest
/// authentication (mod_auth_digest, MD5, qop=auth), for the digest tests: nginx has no Digest.
///
/// Runs in the foreground (`-X`) under `timeout`, as `nobody` (Apache will not serve as root), from a
/// world-readable temporary directory; stopped by `stop()` or deinit.
public final class ApacheServer: Sendable {
    /// The realm of `/private/`.
    public static let realm = "private"
    /// The port on 127.0.0.1.
    public let port: Int
    private let workspace: String
    private let process: SpawnedProcess

    /// Starts Apache with `users` (name → password) allowed into `/private/`, which serves `files` (name →
    /// bytes); everything else is served from an empty root.
    public init(users: [String: String], files: [String: [UInt8]]) throws {
        let apache = "/usr/sbin/apache2"
        guard FileManager.default.isExecutableFile(atPath: apache) else {
            throw TestSupportError.serverUnavailable("apache2 is not installed (Scripts/install-deps.sh installs it)")
        }
        workspace = try ServedFiles.makeTemporaryDirectory(prefix: "fwnetworking-apache")
        try ServedFiles.write(files.reduce(into: [:]) { $0["private/" + $1.key] = $1.value }, into: workspace + "/root")
        let digests = users.map { "\($0.key):\(Self.realm):\(Self.ha1(user: $0.key, password: $0.value))" }
        try (digests.joined(separator: "\n") + "\n").write(toFile: workspace + "/digest.pw", atomically: true,
                                                             encoding: .utf8)
        // `nobody` must get into the workspace (mkdtemp makes it 0700; what is inside is world-readable).
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: workspace)
        var lastLog = ""
        for _ in 0..<5 {
            let port = try SpawnedProcess.freePort()
            try Self.config(workspace: workspace, port: port)
                .write(toFile: workspace + "/httpd.conf", atomically: true, encoding: .utf8)
            let process = try SpawnedProcess.spawn(
                SpawnedProcess.safetyNet + [apache, "-X", "-f", workspace + "/httpd.conf"],
                logPath: workspace + "/stdout.log")
            if waitUntil(timeout: 10, { SpawnedProcess.isAccepting(port: port) || process.hasExited() }),
               !process.hasExited() {
                self.port = port
                self.process = process
                return
            }
            process.stop()
            lastLog = (try? String(contentsOfFile: workspace + "/error.log", encoding: .utf8)) ?? process.log
        }
        try? FileManager.default.removeItem(atPath: workspace)
        throw TestSupportError.serverUnavailable("apache2 did not start: \(lastLog)")
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops Apache and removes its directory (idempotent).
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: workspace)
    }

    /// HA1 of RFC 7616 for MD5: the hex MD5 of `user:realm:password`, as htdigest writes it.
    private static func ha1(user: String, password: String) -> String {
        Digest.md5.hexHash("\(user):\(realm):\(password)")
    }

    private static func config(workspace: String, port: Int) -> String {
        let modules = "/usr/lib/apache2/modules"
        return """
        ServerRoot \(workspace)
        ServerName 127.0.0.1
        Listen 127.0.0.1:\(port)
        PidFile \(workspace)/apache.pid
        ErrorLog \(workspace)/error.log
        LoadModule mpm_event_module \(modules)/mod_mpm_event.so
        LoadModule authn_core_module \(modules)/mod_authn_core.so
        LoadModule authn_file_module \(modules)/mod_authn_file.so
        LoadModule authz_core_module \(modules)/mod_authz_core.so
        LoadModule authz_user_module \(modules)/mod_authz_user.so
        LoadModule auth_digest_module \(modules)/mod_auth_digest.so
        User nobody
        Group nogroup
        DocumentRoot \(workspace)/root
        <Location "/private">
          AuthType Digest
          AuthName "\(realm)"
          AuthDigestProvider file
          AuthUserFile \(workspace)/digest.pw
          Require valid-user
        </Location>
        """
    }
}
