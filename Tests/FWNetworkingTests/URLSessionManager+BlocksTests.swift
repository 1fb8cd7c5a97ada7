import Foundation
import FWNetworking
import Testing
import TestSupport

// The manager's blocks: each seeds' setter sets its property, and the blocks fire in the documented order
// for data, upload and download tasks, redirects, body streams, a data task that becomes a download,
// invalidation and the background-session event.

@Suite struct URLSessionManagerBlocksTests {
    @Test func everySetterSetsItsBlock() {
        let manager = URLSessionManager()
        manager.setSessionDidBecomeInvalidBlock { _, _ in }
        manager.setSessionDidReceiveAuthenticationChallengeBlock { _, _, _ in .performDefaultHandling }
        manager.setTaskNeedNewBodyStreamBlock { _, _ in nil }
        manager.setTaskWillPerformHTTPRedirectionBlock { _, _, _, request in request }
        manager.setAuthenticationChallengeHandler { _, _, _, _ in .handled }
        manager.setTaskDidSendBodyDataBlock { _, _, _, _, _ in }
        manager.setTaskDidCompleteBlock { _, _, _ in }
        manager.setTaskDidFinishCollectingMetricsBlock { _, _, _ in }
        manager.setDataTaskDidReceiveResponseBlock { _, _, _ in .allow }
        manager.setDataTaskDidBecomeDownloadTaskBlock { _, _, _ in }
        manager.setDataTaskDidReceiveDataBlock { _, _, _ in }
        manager.setDataTaskWillCacheResponseBlock { _, _, proposed in proposed }
        manager.setDidFinishEventsForBackgroundURLSessionBlock { _ in }
        manager.setDownloadTaskDidFinishDownloadingBlock { _, _, _ in nil }
        manager.setDownloadTaskDidWriteDataBlock { _, _, _, _, _ in }
        manager.setDownloadTaskDidResumeBlock { _, _, _, _ in }
        let set: [Bool] = [
            manager.sessionDidBecomeInvalid != nil, manager.sessionDidReceiveAuthenticationChallenge != nil,
            manager.taskNeedNewBodyStream != nil, manager.taskWillPerformHTTPRedirection != nil,
            manager.authenticationChallengeHandler != nil, manager.taskDidSendBodyData != nil,
            manager.taskDidComplete != nil, manager.taskDidFinishCollectingMetrics != nil,
            manager.dataTaskDidReceiveResponse != nil, manager.dataTaskDidBecomeDownloadTask != nil,
            manager.dataTaskDidReceiveData != nil, manager.didFinishEventsForBackgroundURLSession != nil,
            manager.downloadTaskDidFinishDownloading != nil, manager.downloadTaskDidWriteData != nil,
            manager.downloadTaskDidResume != nil, manager.dataTaskWillCacheResponse != nil,
        ]
        #expect(set.allSatisfy { $0 })
        manager.setTaskDidCompleteBlock(nil)
        manager.setDataTaskDidReceiveDataBlock(nil)
        #expect(manager.taskDidComplete == nil && manager.dataTaskDidReceiveData == nil)
    }

    /// Logs every block of `manager` (and the did-complete notification) into `log`.
    private static func logBlocks(of manager: URLSessionManager, into log: EventLog) {
        manager.taskDidSendBodyData = { _, _, _, total, expected in log.add("sent \(total)/\(expected)") }
        manager.dataTaskDidReceiveResponse = { _, _, response in
            log.add("response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
            return .allow
        }
        manager.dataTaskDidReceiveData = { _, _, _ in log.add("data") }
        manager.downloadTaskDidWriteData = { _, _, _, _, _ in log.add("wrote") }
        manager.taskDidFinishCollectingMetrics = { _, _, metrics in
            log.add("metrics \(metrics?.transactionMetrics.count ?? 0)")
        }
        manager.taskDidComplete = { _, _, error in log.add("complete \(error == nil ? "ok" : "error")") }
    }

    /// Observes the did-complete notification of `task`.
    private static func observeCompletion(of task: URLSessionTask, into log: EventLog) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(
            forName: URLSessionManager.networkingTaskDidCompleteNotification, object: task, queue: nil) { _ in
            log.add("notification")
        }
    }

    /// Collapses repeated entries ("data", "data" → "data").
    private static func collapsed(_ entries: [String]) -> [String] {
        entries.reduce(into: []) { result, entry in if result.last != entry { result.append(entry) } }
    }

    @Test func aDataTasksBlocksFireInOrder() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let log = EventLog()
        Self.logBlocks(of: manager, into: log)
        let done = LockedBox(false)
        let task = manager.dataTask(request: ManagerTests.request(server, "/big"),
                                    downloadProgress: { _ in log.add("progress") }, completionHandler: { _, object, _ in
            log.add("completion \((object as? Data)?.count ?? 0)")
            done.withLock { $0 = true }
        })
        let observer = Self.observeCompletion(of: task, into: log)
        defer { NotificationCenter.default.removeObserver(observer) }
        task.resume()
        // `taskDidComplete` runs after the completion is handed on, and may follow the completion handler and its
        // notification (URLSessionManager+Events.swift): its place among them is not fixed.
        #expect(waitUntil(timeout: 20) { log.all.contains("notification") && log.all.contains("complete ok") })
        let order = Self.collapsed(log.all.filter { $0 != "progress" })
        #expect(order.filter { $0 != "complete ok" } ==
            ["response 200", "data", "metrics 1", "completion 200000", "notification"])
        #expect(order.firstIndex(of: "complete ok") ?? 0 > order.firstIndex(of: "metrics 1") ?? .max)
        #expect(log.all.filter { $0 == "progress" }.count == log.all.filter { $0 == "data" }.count)
    }

    @Test func anUploadReportsItsBodyBeforeTheResponse() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let log = EventLog()
        Self.logBlocks(of: manager, into: log)
        var request = ManagerTests.request(server, "/echo")
        request.httpMethod = "POST"
        let body = Data(repeating: 7, count: 100_000)
        let result = LockedBox<ManagerResult?>(nil)
        manager.uploadTask(request: request, fromData: body, progress: { progress in
            log.add("progress \(progress.completedUnitCount)/\(progress.totalUnitCount)")
        }, completionHandler: ManagerTests.record(into: result)).resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(String(decoding: done.object as? Data ?? Data(), as: UTF8.self) == "100000")
        // The completion handler and `taskDidComplete` may run in either order (URLSessionManager+Events.swift).
        #expect(waitUntil(timeout: 10) { log.all.contains("complete ok") })
        let entries = log.all
        #expect(entries.last(where: { $0.hasPrefix("sent") }) == "sent 100000/100000")
        #expect(entries.last(where: { $0.hasPrefix("progress") }) == "progress 100000/100000")
        let lastSent = try #require(entries.lastIndex { $0.hasPrefix("sent") })
        let response = try #require(entries.firstIndex(of: "response 200"))
        #expect(lastSent < response)
        #expect(Self.collapsed(Array(entries[response...])).filter { !$0.hasPrefix("data") } ==
            ["response 200", "metrics 1", "complete ok"])
    }

    @Test func aRedirectIsWhatTheBlockReturns() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let proposed = LockedBox<String?>(nil)
        manager.taskWillPerformHTTPRedirection = { _, _, response, request in
            proposed.withLock { $0 = "\((response as? HTTPURLResponse)?.statusCode ?? 0) \(request.url?.path ?? "")" }
            return ManagerTests.request(server, "/json")
        }
        let followed = try #require(ManagerTests.load(manager, ManagerTests.request(server, "/redirect")))
        #expect(proposed.withLock { $0 } == "302 /text")
        #expect(followed.response.url?.path == "/json")
        manager.taskWillPerformHTTPRedirection = { _, _, _, _ in nil }
        let stopped = try #require(ManagerTests.load(manager, ManagerTests.request(server, "/redirect")))
        #expect(stopped.status == 302)
    }

    @Test func aStreamedBodySentAgainComesFromTheBlock() throws {
        let sink = try PythonHTTPServer.uploadSink()
        defer { sink.stop() }
        let manager = ManagerTests.manager(serializer: JSONResponseSerializer())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let body = Data(repeating: 0x41, count: 5_000)
        let asked = LockedBox(0)
        manager.taskNeedNewBodyStream = { _, _ in
            asked.withLock { $0 += 1 }
            return InputStream(data: body)
        }
        var request = URLRequest(url: try #require(URL(string: sink.baseURL + "/redirect/307")))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: body)
        request.setValue("\(body.count)", forHTTPHeaderField: "Content-Length")
        let result = LockedBox<ManagerResult?>(nil)
        manager.uploadTask(streamedRequest: request, completionHandler: ManagerTests.record(into: result)).resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.error == nil)
        #expect((done.object as? [String: Any])?["length"] as? Int == 5_000)
        #expect(asked.withLock { $0 } == 1)
    }

    @Test func aDataTaskThatBecomesADownloadKeepsItsCompletion() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let log = EventLog()
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("fw-become-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: destination) }
        manager.dataTaskDidReceiveResponse = { _, _, _ in .becomeDownload }
        manager.dataTaskDidBecomeDownloadTask = { _, _, _ in log.add("became download") }
        manager.downloadTaskDidFinishDownloading = { _, _, _ in
            log.add("finished")
            return destination
        }
        let result = LockedBox<ManagerResult?>(nil)
        let task = manager.dataTask(request: ManagerTests.request(server, "/big"),
                                    completionHandler: ManagerTests.record(into: result))
        task.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.status == 200 && done.error == nil)
        #expect(done.object as? URL == destination)
        #expect(log.all == ["became download", "finished"])
        #expect(try Data(contentsOf: destination).count == 200_000)
    }

    @Test func invalidationCallsItsBlockThenPostsItsNotification() throws {
        let manager = ManagerTests.manager()
        let log = EventLog()
        manager.sessionDidBecomeInvalid = { _, error in log.add("block \(error == nil)") }
        let session = manager.session
        let observer = NotificationCenter.default.addObserver(
            forName: URLSessionManager.urlSessionDidInvalidateNotification, object: session, queue: nil) { _ in
            log.add("notification")
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        manager.invalidateSessionCancelingTasks(false, resetSession: false)
        #expect(waitUntil(timeout: 10) { log.all.count == 2 })
        #expect(log.all == ["block true", "notification"])
    }

    @Test func theBackgroundEventsBlockRunsOnTheMainQueue() {
        let manager = URLSessionManager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        _ = ManagerTests.mainQueueKey
        let onMain = LockedBox<Bool?>(nil)
        manager.didFinishEventsForBackgroundURLSession = { _ in onMain.withLock { $0 = ManagerTests.onMainQueue } }
        manager.urlSessionDidFinishEvents(forBackgroundURLSession: manager.session)
        #expect(ManagerTests.wait(for: onMain) == true)
    }

    @Test func theWillCacheBlockDecidesWhatIsStored() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0)
        configuration.urlCache = cache
        let manager = ManagerTests.manager(configuration)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let request = ManagerTests.request(server, "/cacheable")

        let proposals = EventLog()
        manager.dataTaskWillCacheResponse = { _, _, proposed in
            proposals.add(String(decoding: proposed.data, as: UTF8.self))
            return nil
        }
        #expect(ManagerTests.load(manager, request)?.error == nil)
        #expect(proposals.all == ["kept for ten minutes"])
        #expect(cache.cachedResponse(for: request) == nil)

        manager.dataTaskWillCacheResponse = nil
        #expect(ManagerTests.load(manager, request)?.error == nil)
        #expect(cache.cachedResponse(for: request)?.data == Data("kept for ten minutes".utf8))
    }
}
