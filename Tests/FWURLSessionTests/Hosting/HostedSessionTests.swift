import Foundation
@testable import FWURLSession
import FWLoop
import FWTransport
import Synchronization
import Testing
import TestSupport

// MARK: - The hosted session loop (issue 23, stage B): the delegate-queue contract, held
//
// A session that makes its own delegate queue runs its connections in that queue's operations
// (SessionDelegateQueue.swift). These tests check what that must not change: every callback inside an
// operation of `session.delegateQueue`, other work on that queue not starved, a response that waited in the
// socket behind a slow callback not timed out, and invalidation of a session whose loop is parked.

/// A session with no delegate queue of its own and no cache, on `configuration` (ephemeral by default).
private func ownQueueSession(_ configure: (URLSessionConfiguration) -> Void = { _ in },
                             delegate: (any URLSessionDelegate)? = nil) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configure(configuration)
    return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
}


@Suite(.serialized) struct HostedSessionTests {
    @Test func aSessionThatMakesItsQueueDeliversInTheOperationThatReadTheResponse() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let session = ownQueueSession()
        defer { session.finishTasksAndInvalidate() }
        let loop = try #require(session.hostedLoop)
        let seen = LockedBox<(onQueue: Bool, inLoop: Bool, body: String)?>(nil)
        session.dataTask(with: URL(string: server.baseURL + "/")!) { data, _, _ in
            let onQueue = OperationQueue.current === session.delegateQueue
            seen.withLock { $0 = (onQueue, loop.inEventLoop, String(decoding: data ?? Data(), as: UTF8.self)) }
        }.resume()
        #expect(waitUntil(timeout: 10) { seen.withLock { $0 != nil } })
        #expect(seen.withLock { $0?.onQueue } == true)
        #expect(seen.withLock { $0?.inLoop } == true) // the slice that parsed the response
        #expect(seen.withLock { $0?.body } == "ok")
    }

    @Test func theConfigurationSwitchAndAGivenQueueKeepTheThreadedEngine() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let unhosted = ownQueueSession { $0.hostsConnectionsOnDelegateQueue = false }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let given = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: queue)
        defer {
            unhosted.finishTasksAndInvalidate()
            given.finishTasksAndInvalidate()
        }
        #expect(unhosted.hostedLoop == nil)
        #expect(given.hostedLoop == nil)
        #expect(ownQueueSession().hostedLoop != nil)
        for session in [unhosted, given] {
            let onQueue = LockedBox<Bool?>(nil)
            session.dataTask(with: URL(string: server.baseURL + "/")!) { _, _, _ in
                onQueue.withLock { $0 = OperationQueue.current === session.delegateQueue }
            }.resume()
            #expect(waitUntil(timeout: 10) { onQueue.withLock { $0 != nil } })
            #expect(onQueue.withLock { $0 } == true)
        }
    }

    @Test func theBusyPollWindowFollowsTheConfiguration() throws {
        #expect(URLSessionConfiguration.default.busyPollInterval == 0.000_2)
        let polling = ownQueueSession()
        let quiet = ownQueueSession { $0.busyPollInterval = 0 }
        let long = ownQueueSession { $0.busyPollInterval = 60 }
        defer {
            for session in [polling, quiet, long] { session.finishTasksAndInvalidate() }
        }
        let pollingLoop = try #require(polling.hostedLoop)
        let quietLoop = try #require(quiet.hostedLoop)
        let longLoop = try #require(long.hostedLoop)
        let polls = EventLoop.availableCPUs > 1
        #expect(try onLoop(pollingLoop) { pollingLoop.busyPollLimitNanoseconds } == (polls ? 200_000 : 0))
        #expect(try onLoop(quietLoop) { quietLoop.busyPollLimitNanoseconds } == 0)
        // At most a second: a longer window would be a spinning thread, not a poll.
        #expect(try onLoop(longLoop) { longLoop.busyPollLimitNanoseconds } == (polls ? 1_000_000_000 : 0))
    }

    @Test func noConnectionIsLeftAwaitingAnAnswerAfterResponsesRefusalsAndCancels() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let session = ownQueueSession()
        defer { session.finishTasksAndInvalidate() }
        let loop = try #require(session.hostedLoop)
        let refused = try SpawnedProcess.freePort() // nothing listens there
        let ended = LockedBox<[Int]>([])
        let urls = [server.baseURL + "/", "http://127.0.0.1:\(refused)/", server.baseURL + "/sleep?ms=2000"]
        var tasks: [URLSessionDataTask] = []
        for (index, url) in urls.enumerated() {
            let task = session.dataTask(with: URL(string: url)!) { _, _, _ in ended.withLock { $0.append(index) } }
            tasks.append(task)
            task.resume()
        }
        usleep(200_000)
        tasks[2].cancel()
        #expect(waitUntil(timeout: 10) { ended.withLock { $0.count == 3 } })
        // Each connection said when it stopped waiting: the loop polls for none of them any more.
        #expect(waitUntil(timeout: 10) { (try? onLoop(loop) { loop.awaitingAnswers }) == 0 })
    }

    @Test func anOperationAddedDuringA500MillisecondRequestRunsBeforeItsResponseIsDelivered() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let session = ownQueueSession()
        defer { session.finishTasksAndInvalidate() }
        let order = LockedBox<[String]>([])
        session.dataTask(with: URL(string: server.baseURL + "/sleep?ms=500")!) { _, _, error in
            order.withLock { $0.append(error == nil ? "response" : "error") }
        }.resume()
        usleep(100_000)
        session.delegateQueue.addOperation { order.withLock { $0.append("operation") } }
        #expect(waitUntil(timeout: 10) { order.withLock { $0.count == 2 } })
        #expect(order.withLock { $0 } == ["operation", "response"])
    }

    @Test func anOperationAddedDuringBackToBackRequestsDoesNotWaitForThemToEnd() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let session = ownQueueSession()
        defer { session.finishTasksAndInvalidate() }
        let total = 300
        let completed = Atomic<Int>(0)
        let offQueue = Atomic<Int>(0)
        let operationRanAfter = LockedBox<Int?>(nil)
        let url = URL(string: server.baseURL + "/")!
        // A closed loop: each completion starts the next request, so the slice never runs out of work. Every
        // completion handler checks its queue (the benchmark's clients check one in eight).
        @Sendable func next() {
            session.dataTask(with: url) { _, _, _ in
                if OperationQueue.current !== session.delegateQueue { offQueue.add(1, ordering: .relaxed) }
                let done = completed.add(1, ordering: .relaxed).newValue
                if done < total { next() }
            }.resume()
        }
        next()
        #expect(waitUntil(timeout: 10) { completed.load(ordering: .relaxed) >= 10 })
        let completedWhenAdded = completed.load(ordering: .relaxed)
        session.delegateQueue.addOperation {
            operationRanAfter.withLock { $0 = completed.load(ordering: .relaxed) }
        }
        #expect(waitUntil(timeout: 60) { completed.load(ordering: .relaxed) == total })
        #expect(offQueue.load(ordering: .relaxed) == 0)
        #expect(waitUntil(timeout: 10) { operationRanAfter.withLock { $0 != nil } })
        // The slice yields to the operation within an iteration or two, not when the requests run out.
        let ranAfter = try #require(operationRanAfter.withLock { $0 })
        #expect(ranAfter <= completedWhenAdded + 20)
    }

    @Test func aCompletionHandlerThatBlocksDoesNotTimeOutALaterRequestWhoseResponseArrived() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let session = ownQueueSession()
        defer { session.finishTasksAndInvalidate() }
        let outcome = LockedBox<(error: URLError?, body: String)?>(nil)
        // B's response comes 200 ms after its request and waits in the socket while A's completion handler
        // holds the queue past B's timeout; the next iteration reads it before the timer. The figures
        // were a 200 ms hold and a 100 ms timeout; on a loaded machine (CI's shifted-clock passes) the server
        // took more than 100 ms to answer, so B's timeout ran out before the queue was held, a timeout by
        // rights. Five times those figures leave that latency room. B goes first and A only once the server
        // has B's request: A's handler holds the queue until the server has written B's response, which it
        // could never do for a request the held queue had not sent yet.
        var later = URLRequest(url: URL(string: server.baseURL + "/sleep?ms=200")!)
        later.timeoutInterval = 0.5
        session.dataTask(with: later) { data, _, error in
            outcome.withLock { $0 = (error as? URLError, String(decoding: data ?? Data(), as: UTF8.self)) }
        }.resume()
        #expect(waitUntil(timeout: 10) { server.receivedPaths.contains("/sleep?ms=200") })
        session.dataTask(with: URL(string: server.baseURL + "/")!) { _, _, _ in
            usleep(1_000_000)
            _ = waitUntil(timeout: 10) { server.answeredPaths.contains("/sleep?ms=200") }
        }.resume()
        #expect(waitUntil(timeout: 10) { outcome.withLock { $0 != nil } })
        #expect(outcome.withLock { $0?.error } == nil)
        #expect(outcome.withLock { $0?.body } == "slept 200")
    }

    /// A hosted session whose delegate records every message and the queue it came on, and its loop.
    private static func recordedSession() throws -> (URLSession, RecordingDataDelegate, EventLoop) {
        let delegate = RecordingDataDelegate()
        let session = ownQueueSession(delegate: delegate)
        delegate.expectedQueue.withLock { $0 = session.delegateQueue }
        return (session, delegate, try #require(session.hostedLoop))
    }

    @Test func finishTasksAndInvalidateOfAParkedSession() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let (session, delegate, loop) = try Self.recordedSession()
        session.dataTask(with: URL(string: server.baseURL + "/")!).resume()
        #expect(delegate.waitForCompletion(timeout: 10))
        #expect(waitUntil(timeout: 10) { loop.isParked }) // an idle keep-alive connection, nothing to do
        session.finishTasksAndInvalidate()
        #expect(waitUntil(timeout: 10) { delegate.log.withLock { $0.invalidated } })
        #expect(delegate.log.withLock { $0.offDelegateQueue } == 0)
        #expect(delegate.log.withLock { $0.messages.last } == "invalid")
    }

    @Test func invalidateAndCancelOfAParkedSessionWithARequestInFlight() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let (session, delegate, loop) = try Self.recordedSession()
        session.dataTask(with: URL(string: server.baseURL + "/sleep?ms=2000")!).resume()
        #expect(waitUntil(timeout: 10) { loop.isParked }) // the request waits for its response, parked
        session.invalidateAndCancel()
        #expect(waitUntil(timeout: 10) { delegate.log.withLock { $0.invalidated } })
        #expect((delegate.log.withLock { $0.error } as? URLError)?.code == .cancelled)
        #expect(delegate.log.withLock { $0.offDelegateQueue } == 0)
        #expect(delegate.log.withLock { $0.messages.suffix(2) } == ["complete", "invalid"])
    }
}
