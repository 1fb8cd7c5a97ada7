import Foundation
import FWNetworking
import Testing
import TestSupport

// The factories against real servers: uploads from a file, data and a stream to Python's http.server,
// downloads from nginx moved to their destination (or the move's failure reported), a download resumed
// from resume data with its progress, the tasks' progress objects, and the user info kept for a task; and
// the session's task and session settings through the manager: taskDescription, sessionDescription,
// priority (waiting tasks start highest first) and earliestBeginDate (seed 001).

@Suite struct URLSessionManagerFactoriesTests {
    static let size = 1024 * 1024 + 5
    static let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    /// nginx serving `/file.bin` and a rate-limited copy under `/slow/`.
    static func nginx() throws -> NginxServer {
        try NginxServer(files: ["file.bin": body, "slow/file.bin": body],
                        serverConfig: "location /slow/ { limit_rate 256k; }")
    }

    static func temporaryURL(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("fw-manager-\(UUID().uuidString)-\(name)")
    }

    /// Runs an upload made by `make` and returns the sink's JSON report.
    static func upload(
        _ make: (URLSessionManager, @escaping URLSessionManager.CompletionHandler) -> URLSessionUploadTask
    ) throws -> [String: Any]? {
        let manager = ManagerTests.manager(serializer: JSONResponseSerializer())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let result = LockedBox<ManagerResult?>(nil)
        make(manager) { response, object, error in
            result.withLock { $0 = ManagerResult(response: response, object: object, error: error) }
        }.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.error == nil)
        return done.object as? [String: Any]
    }

    @Test func uploadsFromAFileDataAndAStream() throws {
        let sink = try PythonHTTPServer.uploadSink()
        defer { sink.stop() }
        var request = URLRequest(url: try #require(URL(string: sink.baseURL + "/sink")))
        request.httpMethod = "PUT"
        let file = Self.temporaryURL("upload.bin")
        try Data(Self.body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try Self.upload { manager, done in
            manager.uploadTask(request: request, fromFile: file, completionHandler: done)
        }
        #expect(fromFile?["length"] as? Int == Self.size)
        let fromData = try Self.upload { manager, done in
            manager.uploadTask(request: request, fromData: Data(Self.body.prefix(1000)), completionHandler: done)
        }
        #expect(fromData?["length"] as? Int == 1000)
        let empty = try Self.upload { manager, done in
            manager.uploadTask(request: request, fromData: nil, completionHandler: done)
        }
        #expect(empty?["length"] as? Int == 0)
        var streamed = request
        streamed.httpBodyStream = InputStream(data: Data(Self.body.prefix(5000)))
        let fromStream = try Self.upload { manager, done in
            manager.uploadTask(streamedRequest: streamed, completionHandler: done)
        }
        #expect(fromStream?["length"] as? Int == 5000 && fromStream?["chunked"] as? Bool == true)
    }

    @Test func aDownloadIsMovedToItsDestination() throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let destination = Self.temporaryURL("download.bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        let result = LockedBox<(path: URL?, status: Int?, error: (any Error)?)?>(nil)
        let seenTarget = LockedBox<URL?>(nil)
        let file = try #require(URL(string: nginx.baseURL + "/file.bin"))
        let task = manager.downloadTask(request: URLRequest(url: file),
                                        destination: { target, _ in
                                            seenTarget.withLock { $0 = target }
                                            return destination
                                        }, completionHandler: { response, path, error in
            result.withLock { $0 = (path, (response as? HTTPURLResponse)?.statusCode, error) }
        })
        let moved = LockedBox(0)
        let observer = NotificationCenter.default.addObserver(
            forName: URLSessionManager.urlSessionDownloadTaskDidMoveFileSuccessfullyNotification, object: task,
            queue: nil) { _ in moved.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(observer) }
        task.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.error == nil && done.status == 200)
        #expect(done.path == destination)
        #expect(try [UInt8](Data(contentsOf: destination)) == Self.body)
        #expect(moved.withLock { $0 } == 1)
        let target = try #require(seenTarget.withLock { $0 })
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test func aFailedMoveIsReportedByNotificationAndCompletion() throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let nowhere = Self.temporaryURL("missing-directory").appendingPathComponent("file.bin")
        let result = LockedBox<(path: URL?, error: (any Error)?)?>(nil)
        let file = try #require(URL(string: nginx.baseURL + "/file.bin"))
        let task = manager.downloadTask(request: URLRequest(url: file),
                                        destination: { _, _ in nowhere }, completionHandler: { _, path, error in
            result.withLock { $0 = (path, error) }
        })
        let failure = LockedBox<[AnyHashable: Any]?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: URLSessionManager.urlSessionDownloadTaskDidFailToMoveFileNotification, object: task,
            queue: nil) { note in failure.withLock { $0 = note.userInfo ?? [:] } }
        defer { NotificationCenter.default.removeObserver(observer) }
        task.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.path == nil)
        let error = try #require(done.error as? NSError)
        #expect(error.domain == NSCocoaErrorDomain)
        let info = try #require(failure.withLock { $0 })
        #expect(info.count == error.userInfo.count)
    }

    @Test func aDownloadContinuesFromResumeDataWithItsProgress() throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let resumeData = LockedBox<Data?>(nil)
        let slowURL = try #require(URL(string: nginx.baseURL + "/slow/file.bin"))
        let interrupted = manager.downloadTask(request: URLRequest(url: slowURL))
        manager.downloadTaskDidWriteData = { _, task, _, total, _ in
            guard task === interrupted, total > 100_000 else { return }
            interrupted.cancel { data in resumeData.withLock { $0 = data ?? Data() } }
        }
        interrupted.resume()
        let data = try #require(ManagerTests.wait(for: resumeData))
        #expect(!data.isEmpty)
        manager.downloadTaskDidWriteData = nil
        let resumed = LockedBox<(offset: Int64, expected: Int64)?>(nil)
        manager.downloadTaskDidResume = { _, _, offset, expected in resumed.withLock { $0 = (offset, expected) } }
        let destination = Self.temporaryURL("resumed.bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        let fractions = LockedBox<[Double]>([])
        let result = LockedBox<(path: URL?, error: (any Error)?)?>(nil)
        let task = manager.downloadTask(resumeData: data, progress: { progress in
            fractions.withLock { $0.append(progress.fractionCompleted) }
        }, destination: { _, _ in destination }, completionHandler: { _, path, error in
            result.withLock { $0 = (path, error) }
        })
        task.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.error == nil && done.path == destination)
        let (offset, expected) = try #require(resumed.withLock { $0 })
        #expect(offset > 100_000 && expected == Int64(Self.size))
        #expect(try [UInt8](Data(contentsOf: destination)) == Self.body)
        let seen = fractions.withLock { $0 }
        #expect(seen.first ?? 0 > 0.05, "the progress starts from the resumed offset")
        #expect(seen.last == 1.0 && seen == seen.sorted())
    }

    @Test func progressIsKeptForTheManagersRunningTasksOnly() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let done = LockedBox(false)
        let task = manager.dataTask(request: ManagerTests.request(server, "/big"), completionHandler: { _, _, _ in
            done.withLock { $0 = true }
        })
        let foreign = manager.session.dataTask(with: ManagerTests.url(server, "/text"))
        let download = try #require(manager.downloadProgress(for: task))
        #expect(manager.uploadProgress(for: task) != nil)
        #expect(manager.downloadProgress(for: foreign) == nil && manager.uploadProgress(for: foreign) == nil)
        #expect(download.totalUnitCount == -1 && download.isCancellable && download.isPausable)
        task.resume()
        #expect(waitUntil(timeout: 20) { done.withLock { $0 } })
        #expect(download.completedUnitCount == 200_000 && download.totalUnitCount == 200_000)
        #expect(manager.downloadProgress(for: task) == nil)
    }

    @Test func userInfoIsKeptPerTask() {
        let manager = URLSessionManager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let first = manager.session.dataTask(with: URL(fileURLWithPath: "/"))
        let second = manager.session.dataTask(with: URL(fileURLWithPath: "/"))
        manager.setUserInfo(["attempt": 1], for: first)
        #expect(manager.userInfo(for: first)?["attempt"] as? Int == 1)
        #expect(manager.userInfo(for: second) == nil)
        #expect(URLSessionManager().userInfo(for: first)?["attempt"] as? Int == 1, "kept with the task, as FW does")
        manager.setUserInfo(nil, for: first)
        #expect(manager.userInfo(for: first) == nil)
    }

    // MARK: The session's settings through the manager

    @Test func descriptionsAreTheApps() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(manager.session.sessionDescription == nil)
        manager.session.sessionDescription = "api"
        let heard = LockedBox<(session: String?, task: String?)?>(nil)
        manager.taskDidComplete = { session, task, _ in
            heard.withLock { $0 = (session.sessionDescription, task.taskDescription) }
        }
        let task = manager.dataTask(request: ManagerTests.request(server, "/text"))
        #expect(task.taskDescription == nil, "the manager leaves taskDescription to the app")
        task.taskDescription = "greeting"
        task.resume()
        let seen = try #require(ManagerTests.wait(for: heard))
        #expect(seen.session == "api" && seen.task == "greeting")
        #expect(task.taskDescription == "greeting" && manager.session.sessionDescription == "api")
        let copy = try #require(manager.copy() as? URLSessionManager)
        defer { copy.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(copy.session.sessionDescription == nil, "a copy has a new session")
    }

    @Test func waitingTasksStartHighestPriorityFirst() throws {
        let gate = LockedBox(false)
        let server = try LoopbackHTTPServer { request in
            if request.target == "/first" { _ = waitUntil(timeout: 20) { gate.withLock { $0 } } }
            return .ok(request.target)
        }
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        let manager = ManagerTests.manager(configuration)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let done = LockedBox(0)
        let count: URLSessionManager.CompletionHandler = { _, _, _ in done.withLock { $0 += 1 } }
        let first = manager.dataTask(request: ManagerTests.request(server, "/first"), completionHandler: count)
        #expect(first.priority == URLSessionTask.defaultPriority)
        first.resume()
        #expect(waitUntil(timeout: 10) { server.requestCount == 1 })
        let levels = [("/low", URLSessionTask.lowPriority), ("/default", URLSessionTask.defaultPriority),
                      ("/high", URLSessionTask.highPriority)]
        let waiting = levels.map { path, priority in
            let task = manager.dataTask(request: ManagerTests.request(server, path), completionHandler: count)
            task.priority = priority
            return task
        }
        #expect(waiting.map(\.priority) == [0.25, 0.5, 0.75])
        waiting.forEach { $0.resume() }
        let url = ManagerTests.url(server, "/")
        #expect(waitUntil(timeout: 10) { manager.session.connectionPoolCounters(for: url).waiting == 3 })
        gate.withLock { $0 = true }
        #expect(waitUntil(timeout: 20) { done.withLock { $0 } == 4 })
        #expect(server.requests.map(\.target) == ["/first", "/high", "/default", "/low"])
        first.priority = 7
        #expect(first.priority == 1, "a priority is kept between 0 and 1")
    }

    @Test func aTaskDoesNotBeginBeforeItsEarliestBeginDate() throws {
        let server = try AttemptServer { _ in AttemptServer.response(200, "later") }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let result = LockedBox<ManagerResult?>(nil)
        let task = manager.dataTask(request: URLRequest(url: server.url),
                                    completionHandler: ManagerTests.record(into: result))
        let start = ContinuousClock.now
        task.earliestBeginDate = Date(timeIntervalSinceNow: 1)
        task.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.status == 200 && done.error == nil)
        let arrival = try #require(server.arrivals.withLock { $0.first?.at })
        let waited = start.duration(to: arrival)
        #expect(waited >= .milliseconds(990), "\(waited)")
    }
}
