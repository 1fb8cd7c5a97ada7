import Foundation
import FWNetworking
import Testing
import TestSupport

// A manager's operation queue hosts the connections of each session the manager makes (FWURLSession's
// SessionDelegateQueue.swift, issue 23's hosted session loop): a response is read and its delegate messages
// (the manager's blocks) run in one operation of that queue, also for the session made after a reset, while
// the reset session may still be finishing on the same queue. Against Python's http.server (a keep-alive script).

@Suite struct URLSessionManagerHostingTests {
    /// Runs one data task through `manager` and returns what its `taskDidComplete` block (a session delegate
    /// message) saw: whether it ran in an operation of the manager's queue on the thread of the session's
    /// hosted loop, and the error.
    private static func fetch(_ manager: URLSessionManager, _ url: URL) -> (onQueue: Bool, inLoop: Bool, failed: Bool)? {
        let loop = manager.session.hostedLoop
        let seen = LockedBox<(Bool, Bool, Bool)?>(nil)
        manager.taskDidComplete = { _, _, error in
            let onQueue = OperationQueue.current === manager.operationQueue
            seen.withLock { $0 = (onQueue, loop?.inEventLoop == true, error != nil) }
        }
        manager.dataTask(request: URLRequest(url: url)).resume()
        _ = waitUntil(timeout: 10) { seen.withLock { $0 != nil } }
        return seen.withLock { $0 }.map { (onQueue: $0.0, inLoop: $0.1, failed: $0.2) }
    }

    @Test func eachSessionAManagerMakesRunsItsConnectionsOnTheOperationQueue() throws {
        let server = try PythonHTTPServer.sleeper()
        defer { server.stop() }
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let url = try #require(URL(string: server.baseURL + "/"))
        let first = try #require(manager.session.hostedLoop)
        let before = try #require(Self.fetch(manager, url))
        #expect(before.onQueue && before.inLoop && !before.failed)

        // A request still in flight on the old session while the new one works on the same queue.
        let slow = LockedBox<Error?>(nil)
        let finished = LockedBox(false)
        let slowURL = try #require(URL(string: server.baseURL + "/sleep?ms=300"))
        manager.dataTask(request: URLRequest(url: slowURL), completionHandler: { _, _, error in
            slow.withLock { $0 = error }
            finished.withLock { $0 = true }
        }).resume()
        manager.invalidateSessionCancelingTasks(false, resetSession: true)
        let second = try #require(manager.session.hostedLoop)
        #expect(second !== first)
        let after = try #require(Self.fetch(manager, url))
        #expect(after.onQueue && after.inLoop && !after.failed)
        #expect(waitUntil(timeout: 10) { finished.withLock { $0 } })
        #expect(slow.withLock { $0 } == nil)
    }

    @Test func theConfigurationSwitchGivesTheManagerTheThreadedEngine() throws {
        let configuration = URLSessionConfiguration.default
        configuration.hostsConnectionsOnDelegateQueue = false
        let manager = URLSessionManager(sessionConfiguration: configuration)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(manager.session.hostedLoop == nil)
        #expect(manager.operationQueue.maxConcurrentOperationCount == 1)
    }
}
