import Foundation
import FWNetworking
import Testing
import TestSupport

// The manager's settings (a response serializer that is any URLResponseSerialization conformer), its task
// lists (synchronous, even from a delegate message on the operation queue), its completion group, and
// invalidation with and without a reset (a factory called afterwards completes at once).

/// A response serializer that is not an HTTPResponseSerializer: the body's length and the status.
final class LengthSerializer: URLResponseSerialization {
    func responseObject(for response: URLResponse?, data: Data) throws -> Any? {
        "\((response as? HTTPURLResponse)?.statusCode ?? 0):\(data.count)"
    }
}

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

    @Test func anyResponseSerializationConformerSerializes() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let serializer = LengthSerializer()
        let manager = ManagerTests.manager(serializer: serializer)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(manager.responseSerializer === serializer)
        let result = try #require(ManagerTests.load(manager, ManagerTests.request(server, "/text")))
        #expect(result.error == nil && result.object as? String == "200:13")
        let copy = try #require(manager.copy() as? URLSessionManager)
        #expect(copy.responseSerializer === serializer, "a serializer that cannot be copied is shared")
    }

    @Test(arguments: [true, false])
    func aFactoryOnAnInvalidatedSessionCompletesAtOnce(_ cancelling: Bool) throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        let invalidated = LockedBox(false)
        manager.sessionDidBecomeInvalid = { _, _ in invalidated.withLock { $0 = true } }
        manager.invalidateSessionCancelingTasks(cancelling, resetSession: false)
        let result = LockedBox<ManagerResult?>(nil)
        let task = manager.dataTask(request: ManagerTests.request(server, "/text"),
                                    completionHandler: ManagerTests.record(into: result))
        task.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.urlError?.code == .unknown)
        #expect(done.urlError?.failingURL == ManagerTests.url(server, "/text"))
        #expect(done.errorDescription.contains("invalidated"))
        // The task itself was cancelled, so the session still becomes invalid, and nothing was sent.
        #expect(waitUntil(timeout: 10) { invalidated.withLock { $0 } })
        #expect(task.state == .completed || task.state == .canceling)
        #expect(server.requestCount == 0)
        let download = LockedBox<(URL?, (any Error)?)?>(nil)
        manager.downloadTask(request: ManagerTests.request(server, "/text"), completionHandler: { _, path, error in
            download.withLock { $0 = (path, error) }
        }).resume()
        let downloaded = try #require(ManagerTests.wait(for: download))
        #expect(downloaded.0 == nil && (downloaded.1 as? URLError)?.code == .unknown)
    }

    @Test func aFactoryAfterAResetRunsOnTheNewSession() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.invalidateSessionCancelingTasks(false, resetSession: true)
        let result = try #require(ManagerTests.load(manager, ManagerTests.request(server, "/text")))
        #expect(result.status == 200 && result.error == nil)
    }
}
