// Blocking helpers for the FWLoop tests: bounded waits, hopping onto a loop, plain Glibc sockets.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop
import TestSupport

// MARK: - Waiting (waitUntil, TimedOut and onLoop are TestSupport's: LoopWaits.swift)

/// Returns once `loop` has finished the iteration under way when called, IO dispatch included: the second
/// of two hops runs in a later iteration than the first, and an iteration dispatches its IO after its tasks.
func waitForFullIteration(_ loop: EventLoop) throws {
    try onLoop(loop) {}
    try onLoop(loop) {}
}

/// Whether `loop` has begun shutting down, asked from a task running on `loop` itself: a task the loop
/// refuses is released at once, while an accepted one is held until it runs, which cannot happen before
/// the asking task returns.
func refusesTasks(_ loop: EventLoop) -> Bool {
    loop.preconditionInEventLoop()
    final class Token: Sendable {}
    var token: Token? = Token()
    weak let probe = token
    loop.execute { [token] in _ = token }
    token = nil
    return probe == nil
}

/// Creates a loop for one test and shuts it down afterwards.
func withLoop<T>(_ body: (EventLoop) throws -> T) throws -> T {
    let loop = try EventLoop(name: "fw-test")
    defer {
        loop.shutdown()
    }
    return try body(loop)
}

// MARK: - IO handler

/// Records what the loop reports and optionally reacts; lives on the loop thread.
final class RecordingHandler: IOHandler {
    let events = LockedBox<[IOEvents]>([])
    private let reaction: (IOEvents) -> Void

    init(_ reaction: @escaping (IOEvents) -> Void = { _ in }) {
        self.reaction = reaction
    }

    var calls: Int {
        events.withLock { $0.count }
    }

    func handleIO(_ events: IOEvents) {
        self.events.withLock { $0.append(events) }
        reaction(events)
    }
}

// MARK: - Plain sockets

/// A connected pair of non-blocking, close-on-exec stream sockets.
func makeSocketPair() throws -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
        throw IOError(errno: errno, call: "socketpair")
    }
    return (fds[0], fds[1])
}

/// Writes all of `text` to a descriptor (small amounts: never blocks on a fresh socket).
func writeAll(_ fd: Int32, _ text: String) throws {
    var bytes = Array(text.utf8)
    let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else {
        throw IOError(errno: errno, call: "write")
    }
}

/// Waits until `fd` is ready for `events` (POLLIN / POLLOUT) or the timeout passes.
func pollReady(_ fd: Int32, _ events: Int16, timeout: Duration = .seconds(5)) -> Bool {
    var entry = pollfd(fd: fd, events: events, revents: 0)
    let milliseconds = Int32(clamping: timeout.exactNanoseconds / 1_000_000)
    return poll(&entry, 1, milliseconds) == 1
}

/// A blocking listening TCP socket on loopback, port chosen by the kernel.
final class TestListener {
    let fd: Int32
    let address: SocketAddress

    /// Listens on 127.0.0.1 or ::1; throws if the family's loopback cannot be bound. With `listen: false`
    /// the socket is only bound: connecting to it is refused.
    init(family: SocketAddress.Family, listen shouldListen: Bool = true) throws {
        let loopback = family == .ipv4 ? "127.0.0.1" : "::1"
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(SocketAddress.domain(of: family), type, 0)
        guard fd >= 0 else {
            throw IOError(errno: errno, call: "socket")
        }
        let requested = SocketAddress(numericHost: loopback, port: 0)!
        let bound = requested.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0, !shouldListen || Glibc.listen(fd, 16) == 0 else {
            let error = IOError(errno: errno, call: "bind/listen")
            Glibc.close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.address = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0)! }
        }
    }

    deinit {
        Glibc.close(fd)
    }

    /// Accepts one connection (bounded wait); the returned descriptor is blocking.
    func accept(timeout: Duration = .seconds(5)) throws -> Int32 {
        guard pollReady(fd, Int16(POLLIN), timeout: timeout) else {
            throw TimedOut(what: "a connection on \(address)")
        }
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else {
            throw IOError(errno: errno, call: "accept")
        }
        return client
    }
}

/// Closes `fd` with SO_LINGER 0, so the peer gets a reset.
func closeWithReset(_ fd: Int32) {
    var option = linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    Glibc.close(fd)
}

/// Names of this process's threads, from /proc/self/task/*/comm.
func threadNames() -> [String] {
    guard let directory = opendir("/proc/self/task") else {
        return []
    }
    defer {
        closedir(directory)
    }
    var names: [String] = []
    while let entry = readdir(directory) {
        let task = withUnsafeBytes(of: entry.pointee.d_name) {
            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        if task.first?.isNumber == true, let name = readLine(of: "/proc/self/task/\(task)/comm") {
            names.append(name)
        }
    }
    return names
}

/// The calling thread's kernel id, from the /proc/thread-self link ("<pid>/task/<tid>").
func currentThreadID() -> pid_t? {
    var buffer = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    guard count > 0 else {
        return nil
    }
    let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return target.split(separator: "/").last.flatMap { pid_t($0) }
}

/// The scheduler state of one of this process's threads ("R" running, "S" asleep, ...), from
/// /proc/self/task/<tid>/stat (the field after the parenthesised name).
func threadState(_ thread: pid_t?) -> String? {
    guard let thread else {
        return nil
    }
    guard let line = readLine(of: "/proc/self/task/\(thread)/stat"), let close = line.lastIndex(of: ")") else {
        return nil
    }
    return line[close...].split(separator: " ").dropFirst().first.map(String.init)
}

/// The calling thread's name, from /proc/thread-self/comm.
func currentThreadName() -> String? {
    readLine(of: "/proc/thread-self/comm")
}

/// The first line of a small file, without its newline.
private func readLine(of path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
        return nil
    }
    defer {
        close(fd)
    }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else {
        return nil
    }
    return String(decoding: buffer[..<count].prefix { $0 != 0x0A }, as: UTF8.self)
}
