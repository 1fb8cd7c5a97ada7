import Glibc

// MARK: - ChildProcess

/// Runs a program to completion, capturing its standard output (standard error is inherited) and its
/// resource usage from `wait4`; kills it when it outlives a timeout.
///
/// The program does not run as our direct child: `/bin/sh` forks and execs it. Linux keeps the peak RSS
/// of the address space a process had *before* `exec` in its `ru_maxrss`, and a `posix_spawn`ed child's
/// address space before `exec` is ours (the driver's tens of megabytes). Forked from a freshly started
/// shell, the client's `ru_maxrss` is its own. The shell and the client share a new process group,
/// which the timeout kills as a whole.
public struct ChildProcess: Sendable {
    /// How a run ended.
    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal number.
        public var status: Int32
        /// Everything written to standard output.
        public var output: String
        /// CPU of the program (and the shell that started it), from `wait4`.
        public var usage: ResourceUsage
        /// The timeout elapsed and the child was killed.
        public var timedOut: Bool
    }

    /// The program and its arguments (`arguments[0]` is the program's path).
    public let arguments: [String]
    /// Seconds after which the child gets SIGKILL.
    public let timeout: Double

    /// Prepares a run of `arguments` (the program's path first).
    public init(arguments: [String], timeout: Double) {
        self.arguments = arguments
        self.timeout = timeout
    }

    /// Runs the child; nil when it could not be started.
    public func run() -> Outcome? {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        defer { close(pipeEnds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        // `; exit $?` keeps the shell from replacing itself with the program (no exec optimisation).
        let argv = (["/bin/sh", "-c", "\"$@\"; exit $?", "sh"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        close(pipeEnds[1])
        guard spawned == 0 else { return nil }

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var timedOut = false
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 + timeout
        while true {
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let remaining = deadline - (Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9)
            if remaining <= 0, !timedOut {
                kill(-pid, SIGKILL)
                timedOut = true
            }
            var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, timedOut ? 1000 : Int32(min(remaining * 1000 + 1, 1000)))
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exitStatus, output: String(decoding: output, as: UTF8.self),
                       usage: ResourceUsage(usage), timedOut: timedOut)
    }
}
