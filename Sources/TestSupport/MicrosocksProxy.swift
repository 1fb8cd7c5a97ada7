import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - MicrosocksProxy

/// microsocks (Debian's package) on 127.0.0.1: a real SOCKS5 proxy (RFC 1928), optionally requiring a user
/// name and password (RFC 1929). It resolves names it is given (socks5h) with the system resolver.
///
/// One process under `timeout -k 1 300`, so it cannot outlive a crashed test run; the port comes from
/// `SpawnedProcess.freePort()` and a collision is retried.
public final class MicrosocksProxy: Sendable { // immutable; `process` stops itself
    /// The port on 127.0.0.1.
    public let port: Int
    private let process: SpawnedProcess

    /// Starts microsocks; with `user` every client must authenticate as `user` with `password`.
    public init(user: String? = nil, password: String? = nil) throws {
        guard let microsocks = ["/usr/bin/microsocks", "/usr/sbin/microsocks"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestSupportError.serverUnavailable(
                "microsocks is not installed (Scripts/install-deps.sh installs it)")
        }
        var lastLog = ""
        for _ in 0..<5 {
            let port = try SpawnedProcess.freePort()
            var arguments = SpawnedProcess.safetyNet + [microsocks, "-i", "127.0.0.1", "-p", "\(port)"]
            if let user { arguments += ["-u", user, "-P", password ?? ""] }
            let logPath = NSTemporaryDirectory() + "fwnetworking-microsocks-\(getpid())-\(port).log"
            let process = try SpawnedProcess.spawn(arguments, logPath: logPath)
            let up = waitUntil(timeout: 10) { SpawnedProcess.isAccepting(port: port) || process.hasExited() }
            if up, !process.hasExited() {
                self.port = port
                self.process = process
                return
            }
            process.stop()
            lastLog = process.log
            try? FileManager.default.removeItem(atPath: logPath)
        }
        throw TestSupportError.serverUnavailable("microsocks did not start: \(lastLog)")
    }

    deinit {
        stop()
    }

    /// What microsocks logged so far: one `client[n] ADDRESS: connected to HOST:PORT` line per tunnel.
    public var log: String { process.log }

    /// Stops microsocks and removes its log (idempotent; also in deinit).
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: process.logPath)
    }
}
