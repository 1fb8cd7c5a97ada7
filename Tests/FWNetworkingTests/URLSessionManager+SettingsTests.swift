import Foundation
import FWNetworking
import Testing
import TestSupport

// The manager's settings, its task lists (synchronous, even from a delegate message on the operation
// queue), its completion group, and invalidation with and without a reset.

@Suite struct URLSessionManagerSettingsTests {
    @Test func settingsKeepWhatIsSet() {
        let manager = URLSessionManager()
        let serializer = PropertyListResponseSerializer()
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [])
        let queue = DispatchQueue(label: "settings")
        let group = DispatchGroup()
        manager.responseSerializer = serializer
        manager.securityPolicy = policy
        manager.completionQueue = queue
        manager.completionGroup = group
        manager.attemptsToRecreateUploadTasksForBackgroundSessions = true
        #expect(manager.responseSerializer === serializer && manager.securityPolicy === policy)
        #expect(manager.completionQueue === queue && manager.completionGroup === group)
        #expect(manager.attemptsToRecreateUploadTasksForBackgroundSessions)
        #expect(manager.reachabilityManager === NetworkReachabilityManager.default)
        let watcher = NetworkReachabilityManager(host: "127.0.0.1")
        manager.reachabilityManager = watcher
        #expect(manager.reachabilityManager === watcher)
    }

    @Test func theTaskListsAreReadSynchronouslyFromTheOperationQueue() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let seen = LockedBox<(all: Int, data: Int, upload: Int, download: Int)?>(nil)
        manager.dataTaskDidReceiveResponse = { _, _, _ in
            seen.withLock {
                $0 = (manager.tasks.count, manager.dataTasks.count, manager.uploadTasks.count,
                      manager.downloadTasks.count)
            }
            return .allow
        }
        var upload = ManagerTests.request(server, "/echo")
        upload.httpMethod = "POST"
        let slow = manager.dataTask(request: ManagerTests.request(server, "/slow"))
        let download = manager.downloadTask(request: ManagerTests.request(server, "/slow"))
        let posted = manager.uploadTask(request: upload, fromData: Data("x".utf8))
        #expect(manager.tasks.map(\.taskIdentifier) == [slow, download, posted].map(\.taskIdentifier))
        posted.resume()
        let lists = try #require(ManagerTests.wait(for: seen))
        #expect(lists.all == 3 && lists.data == 1 && lists.upload == 1 && lists.download == 1)
    }

    @Test func completionsRunInsideTheCompletionGroup() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let group = DispatchGroup()
        manager.completionGroup = group
        // Inside the group, the group cannot be empty: waiting on it without time out must time out.
        let insideGroup = LockedBox<[Bool]>([])
        for _ in 0..<3 {
            manager.dataTask(request: ManagerTests.request(server, "/text"), completionHandler: { _, _, _ in
                insideGroup.withLock { $0.append(group.wait(timeout: .now()) == .timedOut) }
            }).resume()
        }
        #expect(waitUntil(timeout: 20) { insideGroup.withLock { $0.count } == 3 })
        #expect(insideGroup.withLock { $0 } == [true, true, true])
        #expect(group.wait(timeout: .now() + 20) == .success)
    }

    @Test(arguments: [true, false])
    func invalidatingEndsOrFinishesTheTasks(_ cancelling: Bool) throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        let result = LockedBox<ManagerResult?>(nil)
        manager.dataTask(request: ManagerTests.request(server, "/slow"),
                         completionHandler: ManagerTests.record(into: result)).resume()
        #expect(waitUntil(timeout: 10) { server.requestCount == 1 })
        manager.invalidateSessionCancelingTasks(cancelling, resetSession: false)
        let done = try #require(ManagerTests.wait(for: result))
        if cancelling {
            #expect(done.urlError?.code == .cancelled)
        } else {
            #expect(done.status == 200 && done.error == nil)
        }
    }

    @Test func resettingTheSessionMakesANewOne() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let invalidated = LockedBox<[ObjectIdentifier]>([])
        manager.sessionDidBecomeInvalid = { session, _ in
            invalidated.withLock { $0.append(ObjectIdentifier(session)) }
        }
        let first = manager.session
        manager.invalidateSessionCancelingTasks(true, resetSession: true)
        let second = manager.session
        #expect(first !== second)
        #expect(second.delegate === manager)
        #expect(waitUntil(timeout: 10) { invalidated.withLock { $0 } == [ObjectIdentifier(first)] })
        let result = try #require(ManagerTests.load(manager, ManagerTests.request(server, "/text")))
        #expect(result.status == 200)
    }
}
