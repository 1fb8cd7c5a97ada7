import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - SpawnedProcess

/// A server process started for one test: empty signal mask and default handlers (test threads block
/// most signals, and a child inherits that), standard output and error into a log file, standard input a
/// pipe kept open (some servers stop at end of input). `stop()` sends SIGTERM and reaps it.
public final class SpawnedProcess: @unchecked Sendable { // `stopped`: only stop()/hasExited(), on the test thread
    /// The process id.
    public let pid: pid_t
    /// Where its standard output and error go.
    public let logPath: String
    private let inputWriter: Int32
    private var stopped = false

    private init(pid: pid_t, logPath: String, inputWriter: Int32) {
        self.pid = pid
        self.logPath = logPath
        self.inputWriter = inputWriter
    }

    deinit {
        stop()
    }

    /// Starts `arguments[0]` (found on PATH) with the rest as its arguments.
    public static func spawn(_ arguments: [String], logPath: String) throws -> SpawnedProcess {
        var input: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw TestSupportError.serverUnavailable("pipe: \(errno)") }
        _ = fcntl(input[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(input[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGALRM, SIGPIPE, SIGCHLD, SIGQUIT] { sigaddset(&defaults, signal) }
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
        return SpawnedProcess(pid: pid, logPath: logPath, inputWriter: input[1])
    }

    /// The child closes every descriptor above standard error. A server outlives the test that started it,
    /// and the test process spawns from many threads: a pipe another test made for its own child (to read its
    /// output to the end) and had not yet marked close-on-exec would otherwise stay open in the server, and
    /// that test would wait for an end of file that comes only when the server stops (a whole-suite run in a CI
    /// rehearsal stalled with every dispatch worker blocked in pipe reads and polls, the probes they waited for
    /// already exited, and the servers started beside them still running). glibc 2.34+ has the
    /// action (`posix_spawn_file_actions_addclosefrom_np`); the Swift module does not export it, so it is looked
    /// up, and without it the child inherits what it inherited before.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        _ = addCloseFrom?(&actions, 3)
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, looked up once; nil before glibc 2.34.
    private static let addCloseFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0),
                                                        "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// The log so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// True (and reaped) once the process exited.
    public func hasExited() -> Bool {
        guard !stopped else { return true }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        stopped = true
        Glibc.close(inputWriter)
        return true
    }

    /// SIGTERM, then reaps the process (idempotent; also in deinit). The log stays.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        Glibc.close(inputWriter)
    }

    /// The `timeout` every spawned server runs under, as `["timeout", "-k", "1", "<seconds>"]`: a safety net
    /// that ends a server whose test process died without stopping it. Far longer than any test: a
    /// ThreadSanitizer run on a loaded 2-core machine kept a test's s_server past the 120 s it once had.
    public static let safetyNet = ["timeout", "-k", "1", "1800"]

    /// A port on 127.0.0.1 that was free a moment ago (bind to port 0, read it, close). For servers that
    /// cannot listen on port 0; a collision shows as the server exiting, and callers retry. For a port that
    /// must refuse connections, use `RefusingPort`.
    public static func freePort() throws -> Int {
        let (fd, port) = try RefusingPort.bindLoopback()
        Glibc.close(fd)
        return port
    }

    /// True when something accepts TCP connections on 127.0.0.1:`port`.
    public static func isAccepting(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
