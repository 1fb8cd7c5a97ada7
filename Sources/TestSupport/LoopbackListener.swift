// LoopbackListener: the core shared by the loopback servers — a listening socket on 127.0.0.1, one
// accept thread, one thread per accepted connection, counters, and an orderly stop.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - LoopbackListener

/// Accepts connections on 127.0.0.1 (kernel-chosen port) and runs `serve` for each on its own thread.
///
/// `stop()` wakes and joins the accept thread, shuts every open connection down, joins every connection
/// thread, then closes the listening socket. It is idempotent.
final class LoopbackListener: Sendable {
    // MARK: Stored state

    /// The port the kernel chose.
    let port: Int
    /// The listening socket; closed only by `stop()` after the accept thread has ended.
    private let listenDescriptor: Int32
    /// A pipe whose write end `stop()` uses to wake the accept thread's poll; closed with the listener.
    private let wakeDescriptors: (read: Int32, write: Int32)
    /// Runs one connection; errors it throws are recorded in `errors`.
    private let serve: @Sendable (ScriptedConnection) throws -> Void
    /// Threads, connections, counters and logs, shared by the accept thread, the connection threads and
    /// the callers.
    private let state = LockedBox(State())

    private struct State {
        /// The accept thread, until `stop()` joins it.
        var acceptThread: JoinableThread?
        /// Connection threads still running, by connection index.
        var runningThreads: [Int: JoinableThread] = [:]
        /// Connection threads that ended and still have to be joined.
        var endedThreads: [JoinableThread] = []
        /// Connections whose thread is still running, by connection index.
        var liveConnections: [Int: ScriptedConnection] = [:]
        /// Whether `stop()` began.
        var stopped = false
        /// Connections accepted so far.
        var acceptedCount = 0
        /// Connections whose descriptor is open now.
        var openCount = 0
        /// Largest `openCount` seen.
        var peakOpenCount = 0
        /// Every request read, in order.
        var requestLog: [ReceivedRequest] = []
        /// Descriptions of errors thrown by `serve` (as they are), then of failures to set up a
        /// connection (prefixed "TestSupport"), in order.
        var errorLog: [String] = []
    }

    /// Seconds an accepted socket's read or write may wait. Immutable.
    private let ioTimeout: Double

    /// Starts listening and accepting; each accepted socket's reads and writes time out after `ioTimeout`
    /// seconds.
    init(ioTimeout: Double = PosixSocket.ioTimeout, serve: @escaping @Sendable (ScriptedConnection) throws -> Void) throws {
        self.ioTimeout = ioTimeout
        let (descriptor, port) = try PosixSocket.listenOnLoopback()
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw TestSupportError.systemCall("pipe", errno: code)
        }
        pipeEnds.forEach { PosixSocket.setCloseOnExec($0) }
        self.listenDescriptor = descriptor
        self.port = port
        self.wakeDescriptors = (pipeEnds[0], pipeEnds[1])
        self.serve = serve
        do {
            let thread = try JoinableThread { [self] in acceptLoop() }
            state.withLock { $0.acceptThread = thread }
        } catch {
            closeDescriptors()
            throw error
        }
    }

    deinit {
        stop()
    }

    // MARK: Counters

    /// Connections accepted so far.
    var connectionCount: Int { state.withLock { $0.acceptedCount } }
    /// Connections whose descriptor is open now.
    var openConnectionCount: Int { state.withLock { $0.openCount } }
    /// Largest number of connections open at the same time.
    var peakConcurrentConnections: Int { state.withLock { $0.peakOpenCount } }
    /// Every request read by any connection, in order.
    var requests: [ReceivedRequest] { state.withLock { $0.requestLog } }
    /// Descriptions of errors thrown by `serve`.
    var errors: [String] { state.withLock { $0.errorLog } }

    // MARK: Stopping

    /// Stops accepting, shuts all connections down, joins all threads and closes the listener.
    func stop() {
        let accepter: JoinableThread? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.acceptThread = nil }
            return state.acceptThread
        }
        guard let accepter else { return }
        var wake: UInt8 = 1
        _ = Glibc.write(wakeDescriptors.write, &wake, 1)
        accepter.join()
        let (connections, threads) = state.withLock { state in
            defer {
                state.runningThreads = [:]
                state.endedThreads = []
            }
            return (Array(state.liveConnections.values), Array(state.runningThreads.values) + state.endedThreads)
        }
        connections.forEach { $0.abort() }
        threads.forEach { $0.join() }
        closeDescriptors()
    }

    private func closeDescriptors() {
        Glibc.close(listenDescriptor)
        Glibc.close(wakeDescriptors.read)
        Glibc.close(wakeDescriptors.write)
    }

    // MARK: Accept thread

    /// Polls the listener and the wake pipe; accepts and starts a thread per connection until stopped.
    private func acceptLoop() {
        while true {
            let ended = state.withLock { state in
                defer { state.endedThreads = [] }
                return state.endedThreads
            }
            ended.forEach { $0.join() }
            var entries = [
                pollfd(fd: listenDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeDescriptors.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, 1000)
            if state.withLock({ $0.stopped }) { return }
            guard ready > 0, entries[0].revents != 0 else { continue }
            let descriptor = accept(listenDescriptor, nil, nil)
            guard descriptor >= 0 else {
                if errno == EMFILE || errno == ENFILE { usleep(10_000) }
                continue
            }
            PosixSocket.setCloseOnExec(descriptor)
            start(descriptor)
        }
    }

    /// Registers an accepted socket and starts its thread (or closes it when stopping or out of threads).
    private func start(_ descriptor: Int32) {
        do {
            try PosixSocket.configureAccepted(descriptor, timeout: ioTimeout)
        } catch {
            Glibc.close(descriptor)
            state.withLock { $0.errorLog.append("TestSupport accept: \(error)") }
            return
        }
        let failed: ScriptedConnection? = state.withLock { state in
            guard !state.stopped else {
                Glibc.close(descriptor)
                return nil
            }
            let index = state.acceptedCount
            let connection = ScriptedConnection(
                descriptor: descriptor, index: index,
                onRequest: { [self] request in self.state.withLock { $0.requestLog.append(request) } },
                onClose: { [self] in self.state.withLock { $0.openCount -= 1 } }
            )
            state.acceptedCount += 1
            state.openCount += 1
            state.peakOpenCount = max(state.peakOpenCount, state.openCount)
            do {
                state.runningThreads[index] = try JoinableThread { [self] in run(connection) }
                state.liveConnections[index] = connection
                return nil
            } catch {
                state.errorLog.append("TestSupport connection \(index): \(error)")
                return connection
            }
        }
        failed?.close()
    }

    /// Runs `serve` on a connection thread, then closes the connection and marks the thread ended.
    private func run(_ connection: ScriptedConnection) {
        do {
            try serve(connection)
        } catch {
            state.withLock { $0.errorLog.append(String(describing: error)) }
        }
        connection.close()
        state.withLock { state in
            state.liveConnections[connection.connectionIndex] = nil
            if let thread = state.runningThreads.removeValue(forKey: connection.connectionIndex) {
                state.endedThreads.append(thread)
            }
        }
    }
}
