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
        let sink = try #require(task.sink as? CollectingSink)
        #expect(sink.heldBodyBytes == 0)
        // The handler was released once called, with what it captured (Apple's URLSession does the same).
        #expect(waitUntil(timeout: 2) { weakCaptured == nil })
    }

    // Measured: 400 finished 1 MiB tasks held by the caller. The growth bound leaves room for what other
    // suites of the same process allocate meanwhile; 400 kept bodies would be over 400 MB.
    @Test func holdingFinishedTasksDoesNotHoldTheirBodies() throws {
        let server = try Self.server()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        ProcessResources.releaseFreeMemory()
        let before = ProcessResources.residentBytes
        var tasks: [URLSessionTask] = []
        for _ in 0..<400 {
            let done = DispatchSemaphore(value: 0)
            let task = session.dataTask(with: url(server, "/")) { _, _, _ in done.signal() }
            task.resume()
            #expect(done.wait(timeout: .now() + 10) == .success)
            tasks.append(task)
        }
        ProcessResources.releaseFreeMemory()
        let growth = ProcessResources.residentBytes - before
        print("ResponseSinkTests: 400 finished 1 MiB tasks held, RSS growth \(growth / 1_000_000) MB")
        #expect(tasks.allSatisfy { $0.state == .completed })
        #expect(growth < 150_000_000)
    }
}
