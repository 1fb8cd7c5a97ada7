import Foundation
@testable import FWURLSession
import FWTransport
import Synchronization
import Testing
import TestSupport

// MARK: - URLSessionExecutor: async callers resumed where completion handlers run
//
// With `session.fwExecutor` preferred, the async API's caller resumes on the session's delegate queue: inside
// the hosted loop's slice that read the response (no hop to the cooperative pool), or as an operation of a
// caller's queue; a job is never dropped, whatever became of the loop.

/// A hosted session (its own delegate queue) without a cache.
private func hostedSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}

/// A sleeper server, its "/" URL and a hosted session.
private struct HostedFixture {
    let server: PythonHTTPServer
    let url: URL
    let session: URLSession

    init() throws {
        server = try PythonHTTPServer.sleeper()
        url = URL(string: server.baseURL + "/")!
        session = hostedSession() // made once the server runs: nothing to invalidate when it cannot start
    }

    func stop() {
        session.finishTasksAndInvalidate()
        server.stop()
    }
}

/// Where a job ran: on a queue (`OperationQueue.current`), and inside a loop's slice.
private struct Placement: Equatable {
    var onQueue: Bool
    var inLoop: Bool

    /// Where the caller runs now, against `queue` and `loop`.
    static func here(queue: OperationQueue, loop: EventLoop?) -> Placement {
        Placement(onQueue: OperationQueue.current === queue, inLoop: loop?.inEventLoop ?? false)
    }
}

// A dropped job would leave its test waiting forever: the time limit turns that into a failure. It is generous:
// in the whole suite (2 cores, 12 tests at a time) the first test here took up to 131 s, 20 requests as long as
// 50, waiting for a thread of Swift's cooperative pool (to start, and to come back from the executor) while the
// synchronous tests kept the pool's threads busy.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SessionExecutorTests {
    @Test func requestsOneAfterAnotherResumeInTheSliceThatReadTheirResponses() async throws {
        let fixture = try HostedFixture()
        defer { fixture.stop() }
        let (session, url) = (fixture.session, fixture.url)
        let loop = try #require(session.hostedLoop)
        let placements = try await withTaskExecutorPreference(session.fwExecutor) {
            // The first job came from the test's thread: a loop task, run by a slice the parked loop asked for.
            var placements = [Placement.here(queue: session.delegateQueue, loop: loop)]
            for _ in 0..<20 {
                let (data, response) = try await session.data(from: url)
                #expect(String(decoding: data, as: UTF8.self) == "ok")
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                placements.append(Placement.here(queue: session.delegateQueue, loop: loop))
            }
            return placements
        }
        #expect(placements.count == 21)
        #expect(placements.allSatisfy { $0 == Placement(onQueue: true, inLoop: true) })
    }

    @Test func sixteenTasksInFlightAllResumeOnTheDelegateQueue() async throws {
        let fixture = try HostedFixture()
        defer { fixture.stop() }
        let (session, url) = (fixture.session, fixture.url)
        let loop = try #require(session.hostedLoop)
        let results = await withTaskExecutorPreference(session.fwExecutor) {
            await withTaskGroup(of: (body: String, placement: Placement)?.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        guard let (data, _) = try? await session.data(from: url) else { return nil }
                        let placement = Placement.here(queue: session.delegateQueue, loop: loop)
                        return (String(decoding: data, as: UTF8.self), placement)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0?.body == "ok" })
        #expect(results.allSatisfy { $0?.placement == Placement(onQueue: true, inLoop: true) })
    }

    @Test func aCallersQueueRunsTheJobsAsItsOperations() async throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        #expect(session.hostedLoop == nil)
        let url = try #require(URL(string: server.baseURL + "/"))
        let placements = try await withTaskExecutorPreference(session.fwExecutor) {
            var placements = [Placement.here(queue: queue, loop: nil)]
            for _ in 0..<5 {
                _ = try await session.data(from: url)
                placements.append(Placement.here(queue: queue, loop: nil))
            }
            return placements
        }
        #expect(placements == Array(repeating: Placement(onQueue: true, inLoop: false), count: 6))
    }

    @Test func cancellingTheSwiftTaskCancelsTheRequestAndResumesOnTheQueue() async throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let session = hostedSession()
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: server.baseURL + "/sleep?ms=5000"))
        let task = Task(executorPreference: session.fwExecutor) { () -> (URLError.Code?, Bool) in
            do {
                _ = try await session.data(from: url)
                return (nil, OperationQueue.current === session.delegateQueue)
            } catch {
                return ((error as? URLError)?.code, OperationQueue.current === session.delegateQueue)
            }
        }
        #expect(await waitUntilAsync(timeout: 10) { server.receivedPaths.contains("/sleep?ms=5000") })
        let started = ContinuousClock.now
        task.cancel()
        let (code, onQueue) = await task.value
        #expect(code == .cancelled)
        #expect(onQueue)
        #expect(ContinuousClock.now - started < .seconds(4)) // not the server's 5 s answer
    }

    @Test func anExecutorKeptAfterItsSessionRunsJobsOnTheQueue() async throws {
        /// Watches the session's loop without keeping it.
        final class Watch: @unchecked Sendable { // written once, before it is shared
            weak var loop: EventLoop?
        }
        let watch = Watch()
        let (executor, queue) = { () -> (URLSessionExecutor, OperationQueue) in
            let session = hostedSession()
            watch.loop = session.hostedLoop
            session.finishTasksAndInvalidate()
            return (session.fwExecutor, session.delegateQueue)
        }()
        #expect(await waitUntilAsync(timeout: 10) { watch.loop == nil }) // the loop went with its session
        let onQueue = await withTaskExecutorPreference(executor) {
            await Task.yield()
            return OperationQueue.current === queue
        }
        #expect(onQueue)
    }

    @Test func aStoppedLoopsJobsRunAsOperationsOfTheQueue() async throws {
        let queue = SessionDelegateQueue()
        let loop = try EventLoop(name: "fw-test-executor", hostedBy: queue)
        queue.host(loop)
        let executor = URLSessionExecutor(queue: queue, hostedLoop: loop)
        loop.shutdown()
        #expect(!loop.execute {}) // the loop refuses tasks from now on
        let placement = await withTaskExecutorPreference(executor) {
            await Task.yield()
            return Placement.here(queue: queue, loop: loop)
        }
        #expect(placement == Placement(onQueue: true, inLoop: false))
    }
}
