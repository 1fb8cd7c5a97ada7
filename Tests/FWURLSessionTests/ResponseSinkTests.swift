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

    @Test func aFinishedTaskKeepsNoneOfItsCollectedBodyNorItsHandler() throws {
        let server = try Self.server()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let received = LockedBox<Int?>(nil)
        weak var weakCaptured: Captured?
        let task: URLSessionDataTask
        do {
            let captured = Captured()
            weakCaptured = captured
            task = session.dataTask(with: url(server, "/")) { data, _, _ in
                withExtendedLifetime(captured) { received.withLock { $0 = data?.count } }
            }
        }
        task.resume()
        #expect(waitUntil(timeout: 10) { received.withLock { $0 } != nil })
        #expect(received.withLock { $0 } == Self.bodySize)
        #expect(task.sink is CollectingSink)
        #expect(task.withSink { $0.collector == nil && $0.completion == nil })
        // The handler was released once called, with what it captured (Apple's URLSession does the same).
        #expect(waitUntil(timeout: 2) { weakCaptured == nil })
    }

    // A download made with a completion handler lets the handler (and what it captured) go once it was
    // called, and keeps no file.
    @Test func aFinishedDownloadKeepsNeitherItsHandlerNorItsFile() throws {
        let server = try Self.server()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let received = LockedBox<Int?>(nil)
        weak var weakCaptured: Captured?
        let task: URLSessionDownloadTask
        do {
            let captured = Captured()
            weakCaptured = captured
            task = session.downloadTask(with: url(server, "/")) { location, _, _ in
                let size = location.flatMap { try? Data(contentsOf: $0).count }
                withExtendedLifetime(captured) { received.withLock { $0 = size } }
            }
        }
        task.resume()
        #expect(waitUntil(timeout: 10) { received.withLock { $0 } != nil })
        #expect(received.withLock { $0 } == Self.bodySize)
        #expect(waitUntil(timeout: 2) { weakCaptured == nil })
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
