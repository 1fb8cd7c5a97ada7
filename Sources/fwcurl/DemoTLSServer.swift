import Foundation
import FWNetworking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - DemoTLSServer
//
// The demo's HTTPS server: `openssl s_server` on 127.0.0.1 with a throwaway self-signed certificate that
// `openssl req` makes in a temporary directory, plus a second certificate whose key nobody serves (the pin
// that fails). FWTLS is a client, so the demo borrows the openssl command for the server side; without it
// the step says so and is skipped. The server runs under `timeout`, so it cannot outlive the demo; it is
// spawned with an empty signal mask and default signal handling (a dispatch thread blocks SIGALRM and
// SIGTERM, and a child inherits that), so that both `timeout` and `stop()` can end it.

/// A loopback `openssl s_server` for the demo's pinning step.
final class DemoTLSServer: Sendable {
    /// Why the server could not start.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The port on 127.0.0.1.
    let port: Int
    /// The DER of the certificate the server presents.
    let served: Data
    /// The DER of a certificate with another key.
    let other: Data
    private let process: pid_t
    private let directory: String

    private init(port: Int, served: Data, other: Data, process: pid_t, directory: String) {
        self.port = port
        self.served = served
        self.other = other
        self.process = process
        self.directory = directory
    }

    /// Makes the certificates and starts the server (a few tries, in case a free port is taken meanwhile).
    static func start() throws(Unavailable) -> DemoTLSServer {
        let directory = NSTemporaryDirectory() + "fwcurl-demo-tls-\(getpid())"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let served = try makeCertificate(named: "served", in: directory)
            let other = try makeCertificate(named: "other", in: directory)
            for _ in 0..<5 {
                let port = try freePort()
                let process = try spawn(["timeout", "120", "openssl", "s_server", "-accept", "127.0.0.1:\(port)",
                                         "-cert", directory + "/served.pem", "-key", directory + "/served.key",
                                         "-www", "-quiet"])
                if waitForListener(port: port, process: process) {
                    return DemoTLSServer(port: port, served: served, other: other, process: process,
                                         directory: directory)
                }
                end(process)
            }
            throw Unavailable(description: "openssl s_server did not start")
        } catch let error as Unavailable {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw Unavailable(description: "\(error)")
        }
    }

    /// Stops the server and removes the certificates.
    func stop() {
        Self.end(process)
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: Helpers

    /// A self-signed P-256 certificate for 127.0.0.1 and localhost, valid two days; its DER.
    private static func makeCertificate(named name: String, in directory: String) throws -> Data {
        try run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).pem", "-days", "2",
                 "-subj", "/CN=fwcurl demo \(name)", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
        guard let certificate = try Certificate.certificates(pemFile: "\(directory)/\(name).pem").first else {
            throw Unavailable(description: "openssl req made no certificate")
        }
        return Data(certificate.derBytes)
    }

    /// Runs a command found on the PATH to its end; a failure throws.
    private static func run(_ arguments: [String]) throws(Unavailable) {
        let process = try spawn(arguments)
        var status: Int32 = 0
        while waitpid(process, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else { throw Unavailable(description: "\(arguments[0]) failed (wait status \(status))") }
    }

    /// Starts a command found on the PATH, its output discarded, with no signal blocked or ignored.
    private static func spawn(_ arguments: [String]) throws(Unavailable) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            let mode = descriptor == 0 ? O_RDONLY : O_WRONLY
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", mode, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard status == 0 else {
            throw Unavailable(description: "cannot run \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Ends a spawned process (SIGTERM, which `timeout` hands on) and reaps it. One that exited was reaped
    /// already (its identifier may be another process's by now): it is left alone.
    private static func end(_ process: pid_t) {
        guard isRunning(process) else { return }
        kill(process, SIGTERM)
        var status: Int32 = 0
        while waitpid(process, &status, 0) < 0, errno == EINTR {}
    }

    /// Whether a spawned process still runs (it is reaped when it has exited).
    private static func isRunning(_ process: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(process, &status, WNOHANG) == 0
    }

    /// A port the kernel just handed out on 127.0.0.1 (s_server cannot listen on port 0).
    private static func freePort() throws(Unavailable) -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard named else { throw Unavailable(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits (up to 5 s) until something accepts connections on `port`, or `process` exits (a port taken
    /// meanwhile).
    private static func waitForListener(port: Int, process: pid_t) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, isRunning(process) {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(descriptor)
            if connected { return true }
            usleep(20_000)
        }
        return false
    }
}
