import Foundation
@testable import FWNetworking
import Testing
import TestSupport

// The manager's notifications: resume and suspend of its own tasks on the completion queue, did-complete
// with every documented userInfo key (a download's asset path included) on the main queue after the
// completion handler; and the warning for a completion stuck on a queue nobody runs.

@Suite struct URLSessionManagerNotificationsTests {
    /// Records the notifications named `name` (object, userInfo, and whether it came on the tests'
    /// completion queue, or on the main queue). Other tests run meanwhile: look only at the objects of your
    /// own test.
    final class Observer: Sendable {
        typealias Entry = (object: AnyObject?, userInfo: [AnyHashable: Any]?, onQueue: Bool, onMain: Bool)
        let received = LockedBox<[Entry]>([])
        private let token: LockedBox<(any NSObjectProtocol)?> = LockedBox(nil)

        init(_ name: Notification.Name) {
            let key = DispatchSpecificKey<Bool>()
            ManagerTests.completionQueue.setSpecific(key: key, value: true)
            _ = ManagerTests.mainQueueKey
            let received = received
            let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                let onQueue = DispatchQueue.getSpecific(key: key) == true
                let entry = (note.object as AnyObject?, note.userInfo, onQueue, ManagerTests.onMainQueue)
                received.withLock { $0.append(entry) }
            }
            self.token.withLock { $0 = token }
        }

        func stop() {
            token.withLock { $0 }.map(NotificationCenter.default.removeObserver)
        }

        func objects(_ task: URLSessionTask) -> Int {
            received.withLock { $0 }.filter { $0.object === task }.count
        }

        /// Whether every notification about `tasks` came on the completion queue.
        func allOnQueue(_ tasks: URLSessionTask...) -> Bool {
            received.withLock { $0 }.filter { entry in tasks.contains { $0 === entry.object } }.allSatisfy(\.onQueue)
        }

        /// Whether every notification about `tasks` came on the main queue.
        func allOnMain(_ tasks: URLSessionTask...) -> Bool {
            received.withLock { $0 }.filter { entry in tasks.contains { $0 === entry.object } }.allSatisfy(\.onMain)
        }

        /// The userInfo of the first notification about `task`.
        func userInfo(of task: URLSessionTask) -> [AnyHashable: Any]? {
            received.withLock { $0 }.first { $0.object === task }?.userInfo
        }
    }

    /// A loopback server, a manager completing on the tests' queue, and an observer of did-complete;
    /// `close()` stops all three.
    struct Fixture {
        let server: LoopbackHTTPServer
        let manager: URLSessionManager
        let completed = Observer(URLSessionManager.networkingTaskDidCompleteNotification)

        init(serializer: any URLResponseSerialization = HTTPResponseSerializer()) throws {
            server = try ManagerTests.server()
            manager = ManagerTests.manager(serializer: serializer)
        }

        func request(_ path: String) -> URLRequest {
            ManagerTests.request(server, path)
        }

        func close() {
            completed.stop()
            manager.invalidateSessionCancelingTasks(true, resetSession: false)
            server.stop()
        }
    }

    @Test func resumeAndSuspendArePostedForTheManagersTasksOnly() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let resumed = Observer(URLSessionManager.networkingTaskDidResumeNotification)
        let suspended = Observer(URLSessionManager.networkingTaskDidSuspendNotification)
        defer {
            resumed.stop()
            suspended.stop()
        }
        let task = manager.dataTask(request: ManagerTests.request(server, "/slow"))
        let foreign = manager.session.dataTask(with: ManagerTests.url(server, "/text"))
        task.resume()
        foreign.resume()
        task.suspend()
        task.resume()
        #expect(waitUntil(timeout: 10) { resumed.objects(task) == 2 && suspended.objects(task) == 1 })
        #expect(resumed.objects(foreign) == 0)
        #expect(resumed.allOnQueue(task) && suspended.allOnQueue(task))
    }

    @Test func didCompleteCarriesEveryKeyOfADataTask() throws {
        let fixture = try Fixture(serializer: JSONResponseSerializer())
        defer { fixture.close() }
        let (manager, completed) = (fixture.manager, fixture.completed)
        let task = manager.dataTask(request: fixture.request("/json"))
        task.resume()
        #expect(waitUntil(timeout: 20) { completed.objects(task) == 1 })
        let info = try #require(completed.received.withLock { $0 }.first { $0.object === task }?.userInfo)
        let serializer = info[URLSessionManager.networkingTaskDidCompleteResponseSerializerKey] as AnyObject?
        #expect(serializer === manager.responseSerializer)
        let data = try #require(info[URLSessionManager.networkingTaskDidCompleteResponseDataKey] as? Data)
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("{\"name\""))
        let object = info[URLSessionManager.networkingTaskDidCompleteSerializedResponseKey] as? [String: Any]
        #expect(object?["name"] as? String == "fw")
        #expect(info[URLSessionManager.networkingTaskDidCompleteSessionTaskMetrics] is URLSessionTaskMetrics)
        #expect(info[URLSessionManager.networkingTaskDidCompleteErrorKey] == nil)
        #expect(info[URLSessionManager.networkingTaskDidCompleteAssetPathKey] == nil)
        #expect(completed.allOnMain(task))
    }

    @Test func didCompleteIsPostedOnTheMainQueueAfterTheCompletionHandler() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let (manager, completed) = (fixture.manager, fixture.completed)
        let handled = LockedBox<Int?>(nil)
        let made = LockedBox<URLSessionTask?>(nil)
        let task = manager.dataTask(request: fixture.request("/text"), completionHandler: { _, _, _ in
            // Read when the handler ran: the notification must not have been posted yet.
            let mine = made.withLock { $0 }
            handled.withLock { $0 = completed.received.withLock { $0 }.filter { $0.object === mine }.count }
        })
        made.withLock { $0 = task }
        task.resume()
        #expect(ManagerTests.wait(for: handled) == 0)
        // The main queue serves the notification; wait for it (bounded), then for the main queue itself.
        #expect(waitUntil(timeout: 20) { completed.objects(task) == 1 })
        #expect(completed.allOnMain(task) && !completed.allOnQueue(task))
        let drained = LockedBox(false)
        DispatchQueue.main.async { drained.withLock { $0 = true } }
        #expect(waitUntil(timeout: 20) { drained.withLock { $0 } })
        #expect(completed.objects(task) == 1)
    }

    @Test func didCompleteOfADownloadCarriesItsAssetPath() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let (manager, completed) = (fixture.manager, fixture.completed)
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("fw-asset-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: destination) }
        let task = manager.downloadTask(request: fixture.request("/text"),
                                        destination: { _, _ in destination })
        task.resume()
        #expect(waitUntil(timeout: 20) { completed.objects(task) == 1 })
        let info = try #require(completed.userInfo(of: task))
        #expect(info[URLSessionManager.networkingTaskDidCompleteAssetPathKey] as? URL == destination)
        #expect(info[URLSessionManager.networkingTaskDidCompleteSerializedResponseKey] as? URL == destination)
        #expect(info[URLSessionManager.networkingTaskDidCompleteResponseDataKey] == nil)
        #expect(info[URLSessionManager.networkingTaskDidCompleteErrorKey] == nil)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "hello manager")
    }

    @Test func didCompleteCarriesTheErrorOfAFailure() throws {
        let fixture = try Fixture(serializer: JSONResponseSerializer())
        defer { fixture.close() }
        let (manager, completed) = (fixture.manager, fixture.completed)
        let missing = manager.dataTask(request: fixture.request("/missing"))
        missing.resume()
        let refused = manager.dataTask(request: URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/"))))
        refused.resume()
        #expect(waitUntil(timeout: 20) { completed.objects(missing) == 1 && completed.objects(refused) == 1 })
        let all = completed.received.withLock { $0 }
        let missingInfo = try #require(all.first { $0.object === missing }?.userInfo)
        let serialization = missingInfo[URLSessionManager.networkingTaskDidCompleteErrorKey] as? NSError
        #expect(serialization?.code == NSURLErrorBadServerResponse)
        let refusedInfo = try #require(all.first { $0.object === refused }?.userInfo)
        let refusal = refusedInfo[URLSessionManager.networkingTaskDidCompleteErrorKey] as? URLError
        #expect(refusal?.code == .cannotConnectToHost)
        #expect(refusedInfo[URLSessionManager.networkingTaskDidCompleteSerializedResponseKey] == nil)
    }

    @Test func aStalledCompletionWarnsOnce() {
        let stalled = DispatchQueue(label: "FWNetworkingTests.stalled")
        stalled.suspend()
        let warnings = LockedBox<[String]>([])
        let watch = CompletionStallWatch(delay: 0.2, queueName: "the stalled queue") { message in
            warnings.withLock { $0.append(message) }
        }
        let ran = LockedBox(0)
        let group = DispatchGroup()
        watch.run({ ran.withLock { $0 += 1 } }, on: stalled, group: group)
        #expect(waitUntil(timeout: 10) { !warnings.withLock { $0 }.isEmpty })
        // A second stalled completion, watched past its delay (an early look could only miss a repeat).
        watch.run({ ran.withLock { $0 += 1 } }, on: stalled, group: group)
        let watched = DispatchGroup()
        watched.enter()
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { watched.leave() }
        #expect(watched.wait(timeout: .now() + 10) == .success)
        stalled.resume()
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(ran.withLock { $0 } == 2)
        #expect(warnings.withLock { $0 }.count == 1)
        #expect(warnings.withLock { $0 }.first?.contains("completionQueue") == true)
    }

    @Test func aCompletionThatStartsInTimeDoesNotWarn() {
        let queue = DispatchQueue(label: "FWNetworkingTests.running")
        let warnings = LockedBox(0)
        let watch = CompletionStallWatch(delay: 0.5, queueName: "a running queue") { _ in
            warnings.withLock { $0 += 1 }
        }
        let group = DispatchGroup()
        watch.run({}, on: queue, group: group)
        #expect(group.wait(timeout: .now() + 10) == .success)
        group.enter()
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { group.leave() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(warnings.withLock { $0 } == 0)
    }
}
