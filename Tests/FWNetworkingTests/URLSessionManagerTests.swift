import Foundation
@testable import FWNetworking
import Testing
import TestSupport

// URLSessionManager's class body: creation, the lazy session (a description does not make it), a subclass
// overriding delegate methods, a task's own delegate beside the manager, the default completion queue, no
// leaks after invalidation, and 1,000 concurrent tasks (the ThreadSanitizer run's load).

// MARK: - A subclass

/// Overrides delegate methods, calling `super` first as the seeds ask, and records that it was called.
final class RecordingManager: URLSessionManager, @unchecked Sendable { // `log` is Sendable; no other state
    let log = EventLog()

    override func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        super.urlSession(session, dataTask: dataTask, didReceive: data)
        log.add("subclass data")
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        super.urlSession(session, task: task, didCompleteWithError: error)
        log.add("subclass complete")
    }

    override func urlSession(_ session: URLSession, taskDidResume task: URLSessionTask) {
        super.urlSession(session, taskDidResume: task)
        log.add("subclass resume")
    }
}

/// A task's own delegate that implements only the response message.
final class ResponseOnlyDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let log: EventLog

    init(log: EventLog) {
        self.log = log
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        log.add("own response")
        completionHandler(.allow)
    }
}

/// Something blocks capture, to see when they are freed.
final class Captured: Sendable {}

// MARK: - Tests

@Suite struct URLSessionManagerTests {
    @Test func aNewManagerHasTheSeedsDefaults() {
        let manager = URLSessionManager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(manager.operationQueue.maxConcurrentOperationCount == 1)
        #expect(manager.responseSerializer is JSONResponseSerializer)
        #expect(manager.securityPolicy.pinningMode == .none)
        #expect(manager.completionQueue == nil && manager.completionGroup == nil)
        #expect(!manager.attemptsToRecreateUploadTasksForBackgroundSessions)
        let session = manager.session
        #expect(manager.session === session)
        #expect(session.delegate === manager)
        #expect(session.delegateQueue === manager.operationQueue)
        let defaults = URLSessionConfiguration.default
        #expect(session.configuration.timeoutIntervalForRequest == defaults.timeoutIntervalForRequest)
        #expect(manager.description.contains("URLSessionManager"))
    }

    @Test func describingAManagerDoesNotMakeItsSession() {
        let manager = URLSessionManager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let before = manager.description
        #expect(before.contains("session: nil") && before.contains("operationQueue"))
        #expect(manager.settings.withLock { $0.session } == nil, "description made the session")
        let session = manager.session
        #expect(manager.description.contains("\(session)"))
        let http = HTTPSessionManager(baseURL: URL(string: "https://example.com/"))
        defer { http.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(http.description.contains("session: nil"))
        #expect(http.settings.withLock { $0.session } == nil, "description made the HTTP manager's session")
    }

    @Test func theSessionIsMadeFromACopyOfTheConfiguration() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 2
        let manager = URLSessionManager(sessionConfiguration: configuration)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        configuration.httpMaximumConnectionsPerHost = 9
        #expect(manager.session.configuration.httpMaximumConnectionsPerHost == 2)
    }

    @Test func aJSONResponseFromNginxIsSerialized() throws {
        let nginx = try NginxServer(files: ["data.json": Array(#"{"id":7,"tags":["a","b"],"gone":null}"#.utf8)])
        defer { nginx.stop() }
        let serializer = JSONResponseSerializer()
        serializer.removesKeysWithNullValues = true
        let manager = ManagerTests.manager(serializer: serializer)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let request = URLRequest(url: try #require(URL(string: nginx.baseURL + "/data.json")))
        let result = try #require(ManagerTests.load(manager, request))
        #expect(result.error == nil)
        let object = try #require(result.object as? [String: Any])
        #expect(object["id"] as? Int == 7)
        #expect(object["tags"] as? [String] == ["a", "b"])
        #expect(object.keys.contains("gone") == false)
    }

    @Test func aSubclassOverridingDelegateMethodsKeepsTheManagersBehaviour() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = RecordingManager(sessionConfiguration: nil)
        manager.completionQueue = ManagerTests.completionQueue
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.dataTaskDidReceiveData = { _, _, _ in manager.log.add("block data") }
        manager.taskDidComplete = { _, _, _ in manager.log.add("block complete") }
        let done = LockedBox(false)
        manager.dataTask(request: ManagerTests.request(server, "/text"), completionHandler: { _, object, _ in
            manager.log.add("completion \(String(decoding: object as? Data ?? Data(), as: UTF8.self))")
            done.withLock { $0 = true }
        }).resume()
        #expect(waitUntil(timeout: 20) {
            done.withLock { $0 } && manager.log.only("block").count == 2 && manager.log.only("subclass").count == 3
        })
        // The completion (main queue) and the taskDidComplete block (delegate queue) race after the hand-over.
        #expect(manager.log.only("block") == ["block data", "block complete"])
        #expect(manager.log.only("completion") == ["completion hello manager"])
        #expect(manager.log.only("subclass") == ["subclass resume", "subclass data", "subclass complete"])
    }

    @Test func aTasksOwnDelegateLeavesTheOtherMessagesToTheManager() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let log = EventLog()
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.dataTaskDidReceiveResponse = { _, _, _ in
            log.add("manager response")
            return .allow
        }
        manager.dataTaskDidReceiveData = { _, _, _ in log.add("manager data") }
        manager.taskDidFinishCollectingMetrics = { _, _, _ in log.add("manager metrics") }
        manager.taskDidComplete = { _, _, _ in log.add("manager complete") }
        let done = LockedBox(false)
        let task = manager.dataTask(request: ManagerTests.request(server, "/text"), completionHandler: { _, _, _ in
            log.add("completion")
            done.withLock { $0 = true }
        })
        task.delegate = ResponseOnlyDelegate(log: log)
        task.resume()
        #expect(waitUntil(timeout: 20) { done.withLock { $0 } && log.all.contains("manager complete") })
        // The completion handler runs on the completion queue (main) once the task's delegate handed it on, and
        // the taskDidComplete block on the delegate queue after that hand-over (seed 004's order): the two race.
        let all = log.all
        #expect(Array(all.prefix(3)) == ["own response", "manager data", "manager metrics"])
        #expect(all.count == 5 && Set(all.dropFirst(3)) == ["manager complete", "completion"])
    }

    @Test func completionsRunOnTheMainQueueByDefault() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        _ = ManagerTests.mainQueueKey
        let onMain = LockedBox<Bool?>(nil)
        manager.dataTask(request: ManagerTests.request(server, "/text"), completionHandler: { _, _, _ in
            onMain.withLock { $0 = ManagerTests.onMainQueue }
        }).resume()
        #expect(ManagerTests.wait(for: onMain) == true)
    }

    @Test func theManagerItsTaskDelegatesAndBlocksAreFreedAfterInvalidation() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        weak var weakManager: URLSessionManager?
        weak var weakTaskDelegate: URLSessionManagerTaskDelegate?
        weak var weakCaptured: Captured?
        do {
            let manager = ManagerTests.manager()
            let captured = Captured()
            manager.taskDidComplete = { _, _, _ in _ = captured }
            manager.setDataTaskDidReceiveDataBlock { _, _, _ in _ = captured }
            let done = LockedBox(false)
            let task = manager.dataTask(request: ManagerTests.request(server, "/text"),
                                        downloadProgress: { _ in _ = captured }, completionHandler: { _, _, _ in
                _ = captured
                done.withLock { $0 = true }
            })
            weakTaskDelegate = manager.taskDelegate(for: task)
            let running = manager.dataTask(request: ManagerTests.request(server, "/slow"),
                                           completionHandler: { _, _, _ in
                _ = captured
            })
            task.resume()
            running.resume()
            #expect(waitUntil(timeout: 20) { done.withLock { $0 } })
            manager.invalidateSessionCancelingTasks(true, resetSession: false)
            weakManager = manager
            weakCaptured = captured
        }
        #expect(waitUntil(timeout: 20) { weakManager == nil && weakTaskDelegate == nil && weakCaptured == nil })
    }

    @Test func aThousandConcurrentTasksComplete() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager(serializer: JSONResponseSerializer())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let received = LockedBox(0)
        manager.dataTaskDidReceiveData = { _, _, data in received.withLock { $0 += data.count } }
        let results = LockedBox<[Int]>([])
        let tasks = (0..<1_000).map { _ in
            manager.dataTask(request: ManagerTests.request(server, "/json"),
                             downloadProgress: { _ in }, completionHandler: { response, object, error in
                let ok = (response as? HTTPURLResponse)?.statusCode == 200 && error == nil
                    && (object as? [String: Any])?["name"] as? String == "fw"
                results.withLock { $0.append(ok ? 1 : 0) }
            })
        }
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for task in tasks[(part * 250)..<((part + 1) * 250)] {
                task.resume()
                _ = manager.downloadProgress(for: task)
            }
            _ = manager.tasks.count
        }
        #expect(waitUntil(timeout: 240) { results.withLock { $0.count } == 1_000 })
        #expect(results.withLock { $0 }.allSatisfy { $0 == 1 })
        #expect(waitUntil(timeout: 10) { manager.tasks.isEmpty })
        #expect(received.withLock { $0 } == 1_000 * 38)
    }
}
