import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// What response sinks keep once their task is over (issue 18, item 3): a task made with a completion
// handler collects its body in memory, hands it over, and keeps none of it — a caller that holds on to
// finished tasks holds their requests and responses, not their bodies.
@Suite struct ResponseSinkTests {
    static let bodySize = 1 << 20

    private static func server() throws -> LoopbackHTTPServer {
        let body = [UInt8](repeating: 0x61, count: bodySize)
        return try LoopbackHTTPServer { _ in .status(200, body: body) }
    }

    /// Something a completion handler captures.
    final class Captured: Sendable {}

    /// Runs the task `make` builds against a 1 MiB server: its handler reports the body size through the
    /// given closure while holding a `Captured`. Checks that the whole body arrived and that the handler, with
    /// what it captured, was released once called (Apple's URLSession does the same); returns the task.
    private static func runReleasingItsHandler<Task: URLSessionTask>(
        _ make: (URLSession, URL, @escaping @Sendable (Int?) -> Void) -> Task
    ) throws -> Task {
        let server = try Self.server()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let received = LockedBox<Int?>(nil)
        weak var weakCaptured: Captured?
        let task: Task
        do {
            let captured = Captured()
            weakCaptured = captured
            task = make(session, url(server, "/")) { size in
                withExtendedLifetime(captured) { received.withLock { $0 = size } }
            }
        }
        task.resume()
        #expect(waitUntil(timeout: 10) { received.withLock { $0 } != nil })
        #expect(received.withLock { $0 } == Self.bodySize)
        #expect(waitUntil(timeout: 2) { weakCaptured == nil })
        return task
    }

    @Test func aFinishedTaskKeepsNoneOfItsCollectedBodyNorItsHandler() throws {
        let task = try Self.runReleasingItsHandler { session, url, report in
            session.dataTask(with: url) { data, _, _ in report(data?.count) }
        }
        #expect(task.sink is CollectingSink)
        #expect(task.withSink { $0.collector == nil && $0.completion == nil })
    }

    // A download made with a completion handler lets the handler (and what it captured) go once it was
    // called, and keeps no file.
    @Test func aFinishedDownloadKeepsNeitherItsHandlerNorItsFile() throws {
        let task = try Self.runReleasingItsHandler { session, url, report in
            session.downloadTask(with: url) { location, _, _ in
                report(location.flatMap { try? Data(contentsOf: $0).count })
            }
        }
        #expect(task.withSink { $0.completion == nil && $0.download?.file == nil })
    }

    // 100 finished 1 MiB tasks held by the caller keep no body: not in their sinks, not in their delivery
    // queues. (What that saves in resident memory is measured, in a process of its own, by
    // `FW_MEASURE=1 swift test --filter ReliabilityMeasurements`: a bound on RSS here would also count
    // what the suites running alongside allocate.)
    @Test func holdingFinishedTasksDoesNotHoldTheirBodies() throws {
        let server = try Self.server()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        var tasks: [URLSessionTask] = []
        for _ in 0..<100 {
            let done = DispatchSemaphore(value: 0)
            let task = session.dataTask(with: url(server, "/")) { _, _, _ in done.signal() }
            task.resume()
            #expect(done.wait(timeout: .now() + 10) == .success)
            tasks.append(task)
        }
        #expect(waitUntil(timeout: 5) { tasks.allSatisfy { $0.state == .completed } })
        #expect(tasks.allSatisfy { $0.countOfBytesReceived == Int64(Self.bodySize) })
        #expect(tasks.allSatisfy { task in task.withSink { $0.collector == nil } })
        #expect(tasks.allSatisfy { task in task.core.withLock { $0.machine.deliveries.keptCount } == 0 })
    }
}
