import Foundation
import FWURLSession
import Testing
import TestSupport

// URLSessionTaskStateDelegate (FWNetworking addition): `resume()` and `suspend()` tell the state delegate
// when they change the task's state, on the delegate queue, routed like every other message.

// MARK: - Delegates

/// Records state messages and the task's other messages, in arrival order, with the queue they came on.
final class StateRecorder: NSObject, URLSessionDataDelegate, URLSessionTaskStateDelegate,
    @unchecked Sendable { // `messages` is a LockedBox; `name` and `queue` are lets
    let name: String
    /// Each message with the identifier of its task.
    let events = LockedBox<[(message: String, task: Int)]>([])
    let offQueue = LockedBox(0)
    let queue = LockedBox<OperationQueue?>(nil)

    init(_ name: String) {
        self.name = name
    }

    private func record(_ message: String, _ task: URLSessionTask) {
        if OperationQueue.current !== queue.withLock({ $0 }) { offQueue.withLock { $0 += 1 } }
        events.withLock { $0.append(("\(name) \(message)", task.taskIdentifier)) }
    }

    func urlSession(_ session: URLSession, taskDidResume task: URLSessionTask) { record("resume", task) }
    func urlSession(_ session: URLSession, taskDidSuspend task: URLSessionTask) { record("suspend", task) }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        record("response", dataTask)
        completionHandler(.allow)
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        record("complete", task)
    }

    /// The messages, in arrival order.
    var messages: [String] { events.withLock { $0 }.map(\.message) }

    var states: [String] {
        messages.filter { $0.hasSuffix("resume") || $0.hasSuffix("suspend") }
    }
}

/// A task's own state delegate that implements nothing: the defaults hand the messages on.
final class SilentStateDelegate: NSObject, URLSessionTaskStateDelegate, @unchecked Sendable {} // no state

/// A task's own data delegate that is no state delegate.
final class PlainDataDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {} // no state

// MARK: - Tests

@Suite struct URLSessionTaskStateDelegateTests {
    private static func session(_ delegate: StateRecorder) -> URLSession {
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        delegate.queue.withLock { $0 = session.delegateQueue }
        return session
    }

    @Test func onlyCallsThatChangeTheStateAreReported() throws {
        let release = LockedBox(false)
        let server = try LoopbackHTTPServer { _ in
            _ = waitUntil(timeout: 10) { release.withLock { $0 } }
            return .ok("done")
        }
        defer { server.stop() }
        let recorder = StateRecorder("session")
        let session = Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url(server, "/slow"))
        task.suspend()  // before the first start: still suspended, nothing to report
        task.resume()   // count 2 → 1: still suspended
        #expect(task.state == .suspended)
        task.resume()   // starts
        task.resume()   // already running
        task.suspend()  // stops
        task.suspend()  // nested
        task.resume()
        #expect(task.state == .suspended)
        task.resume()   // runs again
        #expect(waitUntil(timeout: 5) { recorder.states.count == 3 })
        release.withLock { $0 = true }
        #expect(waitUntil(timeout: 10) { recorder.messages.last == "session complete" })
        #expect(recorder.states == ["session resume", "session suspend", "session resume"])
        #expect(recorder.offQueue.withLock { $0 } == 0)
        task.resume()   // completed: nothing
        task.suspend()
        #expect(recorder.states.count == 3)
    }

    @Test func theResumeMessageComesBeforeTheTasksOtherMessages() throws {
        let server = try LoopbackHTTPServer { _ in .ok("hello") }
        defer { server.stop() }
        let recorder = StateRecorder("session")
        let session = Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let tasks = (0..<20).map { _ in session.dataTask(with: url(server, "/")) }
        tasks.forEach { $0.resume() }
        #expect(waitUntil(timeout: 10) { recorder.messages.filter { $0.hasSuffix("complete") }.count == 20 })
        let events = recorder.events.withLock { $0 }
        for task in tasks {
            let mine = events.filter { $0.task == task.taskIdentifier }.map(\.message)
            #expect(mine == ["session resume", "session response", "session complete"], "task \(task.taskIdentifier)")
        }
    }

    @Test func cancellingReportsNoStateChange() throws {
        let recorder = StateRecorder("session")
        let session = Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:9/")))
        task.cancel()
        task.resume()
        #expect(waitUntil(timeout: 5) { recorder.messages.contains("session complete") })
        #expect(recorder.states.isEmpty)
    }

    enum Own: String, CaseIterable, Sendable { case stateDelegate, silentStateDelegate, dataDelegateOnly }

    @Test(arguments: Own.allCases)
    func aTasksOwnDelegateHearsItOrHandsItOnPerMessage(_ own: Own) throws {
        let server = try LoopbackHTTPServer { _ in .ok("hello") }
        defer { server.stop() }
        let recorder = StateRecorder("session")
        let session = Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url(server, "/"))
        let ownRecorder = StateRecorder("own")
        ownRecorder.queue.withLock { $0 = session.delegateQueue }
        switch own {
        case .stateDelegate: task.delegate = ownRecorder
        case .silentStateDelegate: task.delegate = SilentStateDelegate()
        case .dataDelegateOnly: task.delegate = PlainDataDelegate()
        }
        task.resume()
        #expect(waitUntil(timeout: 10) {
            (recorder.messages + ownRecorder.messages).contains { $0.hasSuffix("complete") }
        })
        switch own {
        case .stateDelegate:
            #expect(ownRecorder.states == ["own resume"])
            #expect(recorder.states.isEmpty)
        case .silentStateDelegate, .dataDelegateOnly:
            #expect(recorder.states == ["session resume"])
        }
    }
}
