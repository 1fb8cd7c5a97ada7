import Foundation
import Glibc

// MARK: - OpenSSLServer

/// `openssl s_server` on 127.0.0.1 with a free port, started for one test and stopped when it ends.
///
/// s_server cannot listen on port 0, so the port comes from binding 127.0.0.1:0 and closing; a
/// collision shows as s_server exiting before it prints ACCEPT, and the start is retried.
///
/// It is spawned with an empty signal mask and default signal handlers (test threads block most
/// signals, and a child inherits that) under `timeout -k 1 120`, so SIGTERM stops it and it cannot
/// outlive a test run that crashed before stopping it.
public final class OpenSSLServer: @unchecked Sendable { // `stopped`: only stop(), on the test thread
    /// The port s_server listens on.
    public let port: Int

    private let pid: pid_t
    private let outputPath: String
    /// The write end of s_server's standard input, kept open (never written) so it never sees end of input.
    private let inputWriter: Int32
    private var stopped = false

    private init(port: Int, pid: pid_t, outputPath: String, inputWriter: Int32) {
        self.port = port
        self.pid = pid
        self.outputPath = outputPath
        self.inputWriter = inputWriter
    }

    deinit {
        stop()
    }

    /// Starts s_server serving `certificate` + `key` from Fixtures/tls, with its -www status page unless
    /// `www` is false (then it only prints what it receives and never answers). `chain` adds
    /// -cert_chain; `extra` are further s_server options.
    public static func start(
        certificate: String = "valid-ecdsa.pem",
        key: String? = nil,
        chain: String? = "intermediate-ca.pem",
        www: Bool = true,
        extra: [String] = []
    ) throws -> OpenSSLServer {
        let key = key ?? certificate.replacingOccurrences(of: ".pem", with: ".key")
        var options = ["-cert", TLSFixtures.path(certificate), "-key", TLSFixtures.path(key)]
        if www { options.append("-www") }
        if let chain { options += ["-cert_chain", TLSFixtures.path(chain)] }
        return try launch(options + extra)
    }

    private static func launch(_ options: [String]) throws -> OpenSSLServer {
        var lastOutput = ""
        for _ in 0..<5 {
            let port = try freePort()
            let outputPath = NSTemporaryDirectory() + "fwtls-s_server-\(getpid())-\(port)-\(UUID().uuidString).log"
            let arguments = ["timeout", "-k", "1", "120", "openssl", "s_server", "-accept", "127.0.0.1:\(port)"]
            let server = try spawn(arguments + options, port: port, outputPath: outputPath)
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                lastOutput = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                if lastOutput.contains("ACCEPT") { return server }
                if server.hasExited() { break }
                usleep(5_000)
            }
            server.stop()
        }
        throw TestSupportError.serverUnavailable("openssl s_server did not start: \(lastOutput)")
    }

    private static func spawn(_ arguments: [String], port: Int, outputPath: String) throws -> OpenSSLServer {
        var input: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw TestSupportError.serverUnavailable("pipe: \(errno)") }
        _ = fcntl(input[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(input[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGALRM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
        Glibc.close(input[0])
        guard status == 0 else {
            Glibc.close(input[1])
            throw TestSupportError.serverUnavailable("posix_spawnp \(arguments[0]): \(status)")
        }
        return OpenSSLServer(port: port, pid: pid, outputPath: outputPath, inputWriter: input[1])
    }

    private func hasExited() -> Bool {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        stopped = true
        return true
    }

    /// Stops s_server (SIGTERM, which `timeout` passes on; idempotent), reaps it, removes its log.
    public func stop() {
        if !stopped {
            stopped = true
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            Glibc.close(inputWriter)
        }
        try? FileManager.default.removeItem(atPath: outputPath)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError.serverUnavailable("socket: \(errno)") }
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TestSupportError.serverUnavailable("bind: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}


// MARK: - TLSFixtures

/// Where the TLS fixtures (Fixtures/tls, made by Scripts/make-test-certs.sh) live.
public enum TLSFixtures {
    /// Fixtures/tls, found from this file's path (Sources/TestSupport/OpenSSLServer.swift).
    public static let directory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls").path

    /// The path of a fixture file.
    public static func path(_ name: String) -> String {
        directory + "/" + name
    }

    /// The SPKI pins README.md lists, by file name (computed there by the openssl CLI).
    public static func readmePins() throws -> [String: String] {
        let readme = try String(contentsOfFile: path("README.md"), encoding: .utf8)
        var pins: [String: String] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3 else { continue }
            pins[cells[0].trimmingCharacters(in: ["`"])] = cells[2].trimmingCharacters(in: ["`"])
        }
        return pins
    }
}
