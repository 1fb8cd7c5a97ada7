import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - OpenSSLServer

/// `openssl s_server` on 127.0.0.1 with a free port, started for one test and stopped when it ends.
///
/// s_server cannot listen on port 0, so the port comes from `SpawnedProcess.freePort()`; a collision
/// shows as s_server exiting before it prints ACCEPT, and the start is retried. It runs as a
/// `SpawnedProcess` under `timeout -k 1 120`, so SIGTERM stops it and it cannot outlive a test run that
/// crashed before stopping it.
public final class OpenSSLServer: Sendable { // immutable; `process` stops itself
    /// The port s_server listens on.
    public let port: Int

    private let process: SpawnedProcess

    private init(port: Int, process: SpawnedProcess) {
        self.port = port
        self.process = process
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
            let port = try SpawnedProcess.freePort()
            let logPath = NSTemporaryDirectory() + "fwtls-s_server-\(getpid())-\(port)-\(UUID().uuidString).log"
            let arguments = SpawnedProcess.safetyNet + ["openssl", "s_server", "-accept", "127.0.0.1:\(port)"]
            let process = try SpawnedProcess.spawn(arguments + options, logPath: logPath)
            let server = OpenSSLServer(port: port, process: process)
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                lastOutput = process.log
                if lastOutput.contains("ACCEPT") { return server }
                if process.hasExited() { break }
                usleep(5_000)
            }
            server.stop()
        }
        throw TestSupportError.serverUnavailable("openssl s_server did not start: \(lastOutput)")
    }

    /// Stops s_server (SIGTERM, which `timeout` passes on; idempotent), reaps it, removes its log.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: process.logPath)
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

    /// The SPKI pins a fixture README lists (README.md, or pinning/README.md), by file name (computed
    /// there by the openssl CLI).
    public static func readmePins(_ readmeFile: String = "README.md") throws -> [String: String] {
        let readme = try String(contentsOfFile: path(readmeFile), encoding: .utf8)
        var pins: [String: String] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3 else { continue }
            pins[cells[0].trimmingCharacters(in: ["`"])] = cells[2].trimmingCharacters(in: ["`"])
        }
        return pins
    }
}
