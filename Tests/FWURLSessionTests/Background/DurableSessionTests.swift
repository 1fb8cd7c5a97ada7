import Foundation
@testable import FWURLSession
import Testing
import TestSupport

/// A durable session in one process: a journaled task given back to a new session (listed with its
/// identifier and description, continued with Range + If-Range, then `urlSessionDidFinishEvents`), a
/// cancelled task leaving nothing behind, and a record that cannot be written (an injected full disk)
/// failing the task while the journal stays consistent.
@Suite struct DurableSessionTests {
    /// A delegate that also hears `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
    final class BackgroundDelegate: NSObject, URLSessionDownloadDelegate, @unchecked Sendable { // `recording` is
        // a let; `finishedEvents` a LockedBox
        let recording = RecordingDownloadDelegate()
        let finishedEvents = LockedBox(false)

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                        didFinishDownloadingTo location: URL) {
            recording.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            recording.urlSession(session, task: task, didCompleteWithError: error)
        }

        func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            finishedEvents.withLock { $0 = true }
        }
    }

    static func configuration(_ directory: String, identifier: String = "tests") -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.backgroundSessionDirectory = URL(fileURLWithPath: directory)
        return configuration
    }

    @Test func aJournaledDownloadIsGivenBackAndContinued() throws {
        let server = try PythonHTTPServer.rangeFile(size: 1 << 20, seed: 9)
        try server.setRangeDelay(0)
        let work = try TemporaryDirectory(prefix: "fw-durable-session")
        let served = try Data(contentsOf: URL(fileURLWithPath: server.rangeFilePath))
        // What a killed process left: 300 000 bytes on disk and the record that vouches for them.
        let partial = work.file("journal/12-abcdef.part")
        try FileManager.default.createDirectory(atPath: work.file("journal"), withIntermediateDirectories: true)
        try served.prefix(300_000).write(to: URL(fileURLWithPath: partial))
        let journal = try BackgroundJournal.open(directory: work.file("journal"))
        var record = DurableSession.record(.download, 12, URLRequest(url: URL(string: "\(server.baseURL)/file.bin")!))
        record.taskDescription = "weights"
        record.partialFilePath = partial
        record.bytesWritten = 300_000
        record.entityTag = "\"v1\""
        try journal.write(record)
        journal.unlock()

        let delegate = BackgroundDelegate()
        let session = URLSession(configuration: Self.configuration(work.file("journal")), delegate: delegate,
                                 delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let listed = LockedBox<[String]>([])
        let done = DispatchSemaphore(value: 0)
        session.getTasksWithCompletionHandler { data, uploads, downloads in
            listed.withLock { $0 = downloads.map { "\($0.taskIdentifier) \($0.taskDescription ?? "-")" } }
            #expect(data.isEmpty && uploads.isEmpty)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(listed.withLock { $0 } == ["12 weights"])
        #expect(delegate.recording.waitForCompletion(timeout: 30))
        #expect(waitUntil(timeout: 10) { delegate.finishedEvents.withLock { $0 } })
        let log = delegate.recording.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.fileContents == served)
        #expect(server.rangeRequests.first == "GET /file.bin range=bytes=300000- if-range=\"v1\" status=206")
        // A new task is numbered after the journaled one.
        #expect(session.downloadTask(with: URL(string: "\(server.baseURL)/file.bin")!).taskIdentifier == 13)
    }

    @Test func aCancelledTaskLeavesNothingBehind() throws {
        let server = try PythonHTTPServer.rangeFile(size: 8 << 20, seed: 4)
        try server.setRangeDelay(0.05)
        let work = try TemporaryDirectory(prefix: "fw-durable-session")
        let delegate = RecordingDownloadDelegate(onFirstWrite: { $0.cancel() })
        let session = URLSession(configuration: Self.configuration(work.path), delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: URL(string: "\(server.baseURL)/file.bin")!).resume()
        #expect(delegate.waitForCompletion(timeout: 30))
        #expect(delegate.log.withLock { $0.error?.code } == .cancelled)
        #expect(delegate.log.withLock { $0.error?.downloadTaskResumeData } == nil)
        #expect(work.fileNames == ["lock"])
    }

    @Test func aRecordThatCannotBeWrittenFailsTheTaskAndKeepsTheJournalConsistent() throws {
        let server = try PythonHTTPServer.rangeFile(size: 16 << 20, seed: 5)
        try server.setRangeDelay(0.02)
        let work = try TemporaryDirectory(prefix: "fw-durable-session")
        let delegate = RecordingDownloadDelegate(onFirstWrite: { task in
            task.session.durable?.journal?.injectedWriteFailure.withLock { $0 = ENOSPC }
        })
        let session = URLSession(configuration: Self.configuration(work.path), delegate: delegate, delegateQueue: nil)
        session.downloadTask(with: URL(string: "\(server.baseURL)/file.bin")!).resume()
        #expect(delegate.waitForCompletion(timeout: 30))
        #expect(delegate.log.withLock { $0.error?.code } == .cannotWriteToFile)
        let journal = try #require(session.durable?.journal)
        journal.injectedWriteFailure.withLock { $0 = nil }
        let (records, problems) = journal.load()
        #expect(problems.isEmpty)
        #expect(records.count == 1)
        // The record still vouches only for bytes that are on disk.
        if let record = records.first, let path = record.partialFilePath {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? -1
            #expect(size >= record.bytesWritten)
        }
        session.invalidateAndCancel()
    }

    @Test func aSessionWithoutADelegateLeavesTheRecordsForOneThatHasOne() throws {
        let work = try TemporaryDirectory(prefix: "fw-durable-session")
        let journal = try BackgroundJournal.open(directory: work.path)
        try journal.write(DurableSession.record(.download, 3, URLRequest(url: URL(string: "http://127.0.0.1:9/x")!)))
        journal.unlock()
        let session = URLSession(configuration: Self.configuration(work.path))
        #expect(session.currentTasks.isEmpty)
        session.invalidateAndCancel()
        #expect(work.fileNames.contains("3.record"))
    }

    @Test func aFailureBeforeTheResponseIsRetriedWithBackoff() throws {
        let server = try PythonHTTPServer.rangeFile(size: 1 << 20, seed: 6)
        try server.setRangeDelay(0)
        // The first connection is reset as the request arrives; the ones after it are relayed.
        let proxy = try FaultProxy(upstreamPort: server.port, fault: .reset(.upstream, atByte: 0))
        let work = try TemporaryDirectory(prefix: "fw-durable-session")
        let delegate = RecordingDownloadDelegate()
        let session = URLSession(configuration: Self.configuration(work.path), delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: URL(string: "http://127.0.0.1:\(proxy.port)/file.bin")!).resume()
        // The first connection was reset and closed (the retry waits 1 s): the next ones are relayed.
        #expect(waitUntil(timeout: 10) { proxy.connectionCount >= 1 && proxy.openConnectionCount == 0 })
        proxy.fault = .none
        #expect(delegate.waitForCompletion(timeout: 60))
        let log = delegate.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.fileContents == (try? Data(contentsOf: URL(fileURLWithPath: server.rangeFilePath))))
        #expect(proxy.connectionCount >= 2)
        #expect(server.rangeRequests.filter { $0.hasPrefix("GET") }.count == 1)
    }

    @Test func anOrdinarySessionDoesNotRetry() throws {
        let server = try PythonHTTPServer.rangeFile(size: 1 << 10, seed: 6)
        let proxy = try FaultProxy(upstreamPort: server.port, fault: .reset(.upstream, atByte: 0))
        let delegate = RecordingDownloadDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: URL(string: "http://127.0.0.1:\(proxy.port)/file.bin")!).resume()
        #expect(delegate.waitForCompletion(timeout: 30))
        #expect(delegate.log.withLock { $0.error?.code } == .networkConnectionLost)
        #expect(proxy.connectionCount == 1)
    }

    @Test func aJournaledUploadFromAFileIsSentAgainAndItsRecordGoes() throws {
        let server = try PythonHTTPServer.uploadSink()
        let work = try TemporaryDirectory(prefix: "fw-durable-session")
        let body = work.file("body.bin")
        try Data(patternBytes(200_000)).write(to: URL(fileURLWithPath: body))
        let journal = try BackgroundJournal.open(directory: work.file("journal"))
        var request = URLRequest(url: URL(string: "\(server.baseURL)/sink")!)
        request.httpMethod = "PUT"
        var record = DurableSession.record(.upload, 4, request)
        record.uploadFilePath = body
        record.taskDescription = "backup"
        try journal.write(record)
        journal.unlock()

        let delegate = BackgroundDelegate()
        let session = URLSession(configuration: Self.configuration(work.file("journal")), delegate: delegate,
                                 delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let upload = session.currentTasks.first as? URLSessionUploadTask
        #expect(upload?.taskIdentifier == 4)
        #expect(upload?.taskDescription == "backup")
        #expect(delegate.recording.waitForCompletion(timeout: 30))
        #expect(delegate.recording.log.withLock { $0.error } == nil)
        #expect(upload?.countOfBytesSent == 200_000)
        #expect(waitUntil(timeout: 10) { !FileManager.default.fileExists(atPath: journal.recordPath(4)) })
        #expect(waitUntil(timeout: 10) { delegate.finishedEvents.withLock { $0 } })
    }
}
