// LoopbackListener: the core shared by the loopback servers — a listening socket on 127.0.0.1, one
// accept thread, one thread per accepted connection, counters, and an orderly stop.

import Foundation
import Glibc

// MARK: - LoopbackListener

/// Accepts connections on 127.0.0.1 (kernel-chosen port) and runs `serve` for each on its own thread.
///
/// `stop()` wakes and joins the accept thread, shuts every open connection down, joins every connection
/// thread, then closes the listening socket. It is idempotent.
final class LoopbackListener: @unchecked Sendable { // counters under its lock; threads joined in stop()
    // MARK: Stored state

    /// The port the kernel chose.
    let port: Int
    /// The listening socket; closed only by `stop()` after the accept thread has ended.
    private let listenDescriptor: Int32
    /// A pipe whose write end `stop()` uses to wake the accept thread's poll; closed with the listener.
    private let wakeDescriptors: (read: Int32, write: Int32)
    /// Runs one connection; errors it throws are recorded in `errors`.
    private let serve: @Sendable (ScriptedConnection) throws -> Void
    /// Guards every `var` below.
    private let lock = NSLock()
    /// The accept thread, until `stop()` joins it. Under `lock`.
    private var acceptThread: JoinableThread?
    /// Connection threads still running, by connection index. Under `lock`.
    private var runningThreads: [Int: JoinableThread] = [:]
    /// Connection threads that ended and still have to be joined. Under `lock`.
    private var endedThreads: [JoinableThread] = []
    /// Connections whose thread is still running, by connection index. Under `lock`.
    private var liveConnections: [Int: ScriptedConnection] = [:]
    /// Whether `stop()` began. Under `lock`.
    private var stopped = false
    /// Connections accepted so far. Under `lock`.
    private var acceptedCount = 0
    /// Connections whose descriptor is open now. Under `lock`.
    private var openCount = 0
    /// Largest `openCount` seen. Under `lock`.
    private var peakOpenCount = 0
    /// Every request read, in order. Under `lock`.
    private var requestLog: [ReceivedRequest] = []
    /// Descriptions of errors thrown by `serve` (as they are), then of failures to set up a connection
    /// (prefixed "TestSupport"), in order. Under `lock`.
    private var errorLog: [String] = []

    /// Starts listening and accepting.
    init(serve: @escaping @Sendable (ScriptedConnection) throws -> Void) throws {
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
            lock.withLock { acceptThread = thread }
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
    var connectionCount: Int { lock.withLock { acceptedCount } }
    /// Largest number of connections open at the same time.
    var peakConcurrentConnections: Int { lock.withLock { peakOpenCount } }
    /// Every request read by any connection, in order.
    var requests: [ReceivedRequest] { lock.withLock { requestLog } }
    /// Descriptions of errors thrown by `serve`.
    var errors: [String] { lock.withLock { errorLog } }

    // MARK: Stopping

    /// Stops accepting, shuts all connections down, joins all threads and closes the listener.
    func stop() {
        let accepter: JoinableThread? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            defer { acceptThread = nil }
            return acceptThread
        }
        guard let accepter else { return }
        var wake: UInt8 = 1
        _ = Glibc.write(wakeDescriptors.write, &wake, 1)
        accepter.join()
        let (connections, threads) = lock.withLock {
            defer {
                runningThreads = [:]
                endedThreads = []
            }
            return (Array(liveConnections.values), Array(runningThreads.values) + endedThreads)
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
            let ended = lock.withLock {
                defer { endedThreads = [] }
                return endedThreads
            }
            ended.forEach { $0.join() }
            var entries = [
                pollfd(fd: listenDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeDescriptors.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, 1000)
            if lock.withLock({ stopped }) { return }
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
            try PosixSocket.configureAccepted(descriptor, timeout: PosixSocket.ioTimeout)
        } catch {
            Glibc.close(descriptor)
            lock.withLock { errorLog.append("TestSupport accept: \(error)") }
            return
        }
        let failed: ScriptedConnection? = lock.withLock {
            guard !stopped else {
                Glibc.close(descriptor)
                return nil
            }
            let index = acceptedCount
            let connection = ScriptedConnection(
                descriptor: descriptor, index: index,
                onRequest: { [self] request in lock.withLock { requestLog.append(request) } },
                onClose: { [self] in lock.withLock { openCount -= 1 } }
            )
            acceptedCount += 1
            openCount += 1
            peakOpenCount = max(peakOpenCount, openCount)
            do {
                runningThreads[index] = try JoinableThread { [self] in run(connection) }
                liveConnections[index] = connection
                return nil
            } catch {
                errorLog.append("TestSupport connection \(index): \(error)")
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
            lock.withLock { errorLog.append(String(describing: error)) }
        }
        connection.close()
        lock.withLock {
            liveConnections[connection.connectionIndex] = nil
            if let thread = runningThreads.removeValue(forKey: connection.connectionIndex) {
                endedThreads.append(thread)
            }
        }
    }
}
