import Foundation
@testable import FWNetworking
import Testing
import TestSupport

// The manager's notifications: resume and suspend of its own tasks, did-complete with every documented
// userInfo key, on the completion queue; and the warning for a completion stuck on a queue nobody runs.

@Suite struct URLSessionManagerNotificationsTests {
    /// Records the notifications named `name` (object, userInfo, and whether it came on the tests'
    /// completion queue). Other tests run meanwhile: look only at the objects of your own test.
    final class Observer: Sendable {
        let received = LockedBox<[(object: AnyObject?, userInfo: [AnyHashable: Any]?, onQueue: Bool)]>([])
        private let token: LockedBox<(any NSObjectProtocol)?> = LockedBox(nil)

        init(_ name: Notification.Name) {
            let key = DispatchSpecificKey<Bool>()
            ManagerTests.completionQueue.setSpecific(key: key, value: true)
            let received = received
            let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                let onQueue = DispatchQueue.getSpecific(key: key) == true
                received.withLock { $0.append((note.object as AnyObject?, note.userInfo, onQueue)) }
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
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager(serializer: JSONResponseSerializer())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let completed = Observer(URLSessionManager.networkingTaskDidCompleteNotification)
        defer { completed.stop() }
        let task = manager.dataTask(request: ManagerTests.request(server, "/json"))
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
        #expect(completed.allOnQueue(task))
    }

    @Test func didCompleteCarriesTheErrorOfAFailure() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager(serializer: JSONResponseSerializer())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let completed = Observer(URLSessionManager.networkingTaskDidCompleteNotification)
        defer { completed.stop() }
        let missing = manager.dataTask(request: ManagerTests.request(server, "/missing"))
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
