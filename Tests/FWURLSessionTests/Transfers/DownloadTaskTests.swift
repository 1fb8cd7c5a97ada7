import Foundation
@testable import FWURLSession
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// Download tasks against nginx (issue 6, "Downloads" and "Resume"): the body lands in a file in pieces,
// the file is handed over and removed, and a stopped download continues with Range / If-Range — across
// a simulated process restart, from a new URL, and starting over cleanly when the server sends 200.
@Suite struct DownloadTaskTests {
    static let size = 3 * 1024 * 1024 + 17
    static let body = patternBytes(size)

    /// nginx serving `/file.bin` and a rate-limited copy under `/slow/` (so a test can stop it mid-way).
    static func nginx() throws -> NginxServer {
        try NginxServer(files: ["file.bin": body, "slow/file.bin": body],
                        serverConfig: "location /slow/ { limit_rate 1m; }")
    }

    static func session(_ delegate: (any URLSessionDelegate)?) -> URLSession {
        URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    }

    // MARK: Whole downloads

    @Test func delegateGetsTheFileInPiecesThenItIsRemoved() throws {
        let server = try Self.nginx()
        let delegate = RecordingDownloadDelegate()
        let session = Self.session(delegate)
        defer { session.invalidateAndCancel() }
        let task = session.downloadTask(with: URL(string: server.baseURL + "/file.bin")!)
        task.resume()
        #expect(delegate.waitForCompletion())
        let log = delegate.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.fileContents.map { [UInt8]($0) } == Self.body)
        #expect(log.messages.suffix(3) == ["finished", "metrics", "complete"])
        let totals = log.writes.map(\.total)
        #expect(totals == totals.sorted() && totals.last == Int64(Self.size))
        #expect(log.writes.map(\.written).reduce(0, +) == Int64(Self.size))
        #expect(log.writes.allSatisfy { $0.expected == Int64(Self.size) })
        #expect(log.writes.count > 1, "a 3 MiB body arrives in more than one piece")
        let location = try #require(log.fileLocation)
        #expect(!FileManager.default.fileExists(atPath: location.path), "removed after the delegate returned")
        #expect(task.countOfBytesReceived == Int64(Self.size))
        #expect(task.progress.completedUnitCount == Int64(Self.size))
        #expect(task.progress.totalUnitCount == Int64(Self.size))
    }

    @Test func completionHandlerGetsTheFile() throws {
        let server = try Self.nginx()
        let session = Self.session(nil)
        defer { session.invalidateAndCancel() }
        let result = LockedBox<(contents: Data?, status: Int?, error: (any Error)?)?>(nil)
        session.downloadTask(with: URL(string: server.baseURL + "/file.bin")!) { location, response, error in
            let contents = location.flatMap { FileManager.default.contents(atPath: $0.path) }
            result.withLock { $0 = (contents, (response as? HTTPURLResponse)?.statusCode, error) }
        }.resume()
        #expect(waitUntil(timeout: 10) { result.withLock { $0 != nil } })
        let (contents, status, error) = try #require(result.withLock { $0 })
        #expect(error == nil)
        #expect(status == 200)
        #expect(contents.map { [UInt8]($0) } == Self.body)
    }

    @Test func asyncDownloadLeavesTheFileToTheCaller() async throws {
        let server = try Self.nginx()
        let session = Self.session(nil)
        defer { session.invalidateAndCancel() }
        let (location, response) = try await session.download(from: URL(string: server.baseURL + "/file.bin")!)
        defer { try? FileManager.default.removeItem(at: location) }
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(FileManager.default.contents(atPath: location.path).map { [UInt8]($0) } == Self.body)
    }

    @Test func anErrorStatusIsDownloadedLikeAnyBody() throws {
        let server = try Self.nginx()
        let delegate = RecordingDownloadDelegate()
        let session = Self.session(delegate)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: URL(string: server.baseURL + "/missing")!).resume()
        #expect(delegate.waitForCompletion())
        let log = delegate.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.fileContents.map { String(decoding: $0, as: UTF8.self).contains("404") } == true)
    }

    // MARK: Resume

    /// Starts a rate-limited download and cancels it after its first piece; returns the resume data.
    static func interruptedDownload(from server: NginxServer) throws -> Data {
        let resumeData = LockedBox<Data?>(nil)
        let answered = LockedBox(false)
        let delegate = RecordingDownloadDelegate { task in
            task.cancel { data in
                resumeData.withLock { $0 = data }
                answered.withLock { $0 = true }
            }
        }
        let session = Self.session(delegate)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: URL(string: server.baseURL + "/slow/file.bin")!).resume()
        #expect(delegate.waitForCompletion())
        #expect(answered.withLock { $0 })
        #expect(delegate.log.withLock { $0.error?.code } == .cancelled)
        #expect(delegate.log.withLock { $0.error?.downloadTaskResumeData } != nil, "the error carries it too")
        return try #require(resumeData.withLock { $0 })
    }

    /// Resumes `data` on a new session and returns the delegate's log.
    static func resume(_ data: Data) -> RecordingDownloadDelegate.Log {
        let delegate = RecordingDownloadDelegate()
        let session = Self.session(delegate)
        defer { session.invalidateAndCancel() }
        session.downloadTask(withResumeData: data).resume()
        #expect(delegate.waitForCompletion())
        return delegate.log.withLock { $0 }
    }

    @Test func cancelWithResumeDataContinuesAfterARestart() throws {
        let server = try Self.nginx()
        let data = try Self.interruptedDownload(from: server)
        // A "process restart": the resume data only survives as bytes on disk.
        let saved = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)")
        try data.write(to: saved)
        defer { try? FileManager.default.removeItem(at: saved) }
        let reloaded = try Data(contentsOf: saved)
        let resume = try DownloadResumeData(reloaded)
        #expect(resume.bytesReceived > 0 && resume.bytesReceived < Int64(Self.size))
        #expect(resume.entityTag != nil)
        #expect(resume.expectedTotalBytes == Int64(Self.size))

        let log = Self.resume(reloaded)
        #expect(log.error == nil)
        #expect(log.resumedAt?.offset == resume.bytesReceived)
        #expect(log.resumedAt?.expected == Int64(Self.size))
        #expect(log.writes.first.map { $0.total - $0.written } == resume.bytesReceived)
        #expect(log.fileContents.map { [UInt8]($0) } == Self.body)
        // nginx logs a request after its response went out.
        _ = waitUntil(timeout: 5) { server.accessLog.last?.contains("range=bytes=\(resume.bytesReceived)-") == true }
        let last = try #require(server.accessLog.last)
        #expect(last.contains("206") && last.contains("range=bytes=\(resume.bytesReceived)-"), "\(last)")
        #expect(!FileManager.default.fileExists(atPath: resume.temporaryFilePath))
    }

    @Test func resumeDataCanPointAtANewURL() throws {
        let server = try Self.nginx()
        let data = try Self.interruptedDownload(from: server)
        // The same resource under another name, with the same modification time (so the same ETag).
        let original = server.root + "/slow/file.bin"
        let copy = server.root + "/mirror.bin"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let modified = try FileManager.default.attributesOfItem(atPath: original)[.modificationDate]
        try FileManager.default.setAttributes([.modificationDate: modified as Any], ofItemAtPath: copy)

        var resume = try DownloadResumeData(data)
        resume.url = URL(string: server.baseURL + "/mirror.bin")!
        let log = Self.resume(resume.encoded())
        #expect(log.error == nil)
        #expect(log.resumedAt?.offset == resume.bytesReceived)
        #expect(log.fileContents.map { [UInt8]($0) } == Self.body)
        _ = waitUntil(timeout: 5) { server.accessLog.last?.hasPrefix("\"GET /mirror.bin") == true }
        #expect(server.accessLog.last?.hasPrefix("\"GET /mirror.bin") == true)
    }

    @Test func aChangedResourceStartsOverFromZero() throws {
        let server = try Self.nginx()
        let data = try Self.interruptedDownload(from: server)
        let replacement = patternBytes(Self.size / 2, seed: 99)
        let path = server.root + "/slow/file.bin"
        try Data(replacement).write(to: URL(fileURLWithPath: path))
        let written = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        let aMinuteLater = try #require(written).addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: aMinuteLater], ofItemAtPath: path)

        let log = Self.resume(data)
        #expect(log.error == nil)
        #expect(log.resumedAt?.offset == 0, "If-Range failed: the server sent 200 and the file starts over")
        #expect(log.fileContents.map { [UInt8]($0) } == replacement)
    }

    @Test func aServerThatIgnoresRangesStartsOverCleanly() throws {
        let server = try Self.nginx()
        let data = try Self.interruptedDownload(from: server)
        let python = try PythonHTTPServer(files: ["file.bin": Self.body])
        defer { python.stop() }
        var resume = try DownloadResumeData(data)
        resume.url = URL(string: python.baseURL + "/file.bin")!
        let log = Self.resume(resume.encoded())
        #expect(log.error == nil)
        #expect(log.resumedAt?.offset == 0)
        #expect(log.resumedAt?.expected == Int64(Self.size))
        #expect(log.fileContents.map { [UInt8]($0) } == Self.body)
    }

    /// Downloads from a server that sends 400 of 1000 bytes (with `field` in the head) and closes; returns
    /// the task's error.
    static func downloadCutShort(headField field: String) throws -> URLError? {
        let server = try ScriptedServer { connection in
            guard try connection.readRequest() != nil else { return }
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\(field)\r\n")
            try connection.write([UInt8](repeating: 7, count: 400))
            connection.close()
        }
        defer { server.stop() }
        let delegate = RecordingDownloadDelegate()
        let session = Self.session(delegate)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: URL(string: "http://127.0.0.1:\(server.port)/big")!).resume()
        #expect(delegate.waitForCompletion())
        return delegate.log.withLock { $0.error }
    }

    @Test func aConnectionLostMidBodyLeavesResumeDataInTheError() throws {
        let error = try #require(try Self.downloadCutShort(headField: "ETag: \"v1\"\r\n"))
        #expect(error.code == .networkConnectionLost)
        let resume = try DownloadResumeData(try #require(error.downloadTaskResumeData))
        #expect(resume.bytesReceived == 400)
        #expect(resume.entityTag == "\"v1\"")
        #expect(FileManager.default.fileExists(atPath: resume.temporaryFilePath), "the partial file is kept")
        try? FileManager.default.removeItem(atPath: resume.temporaryFilePath)
    }

    @Test func withoutAValidatorThereIsNoResumeData() throws {
        let error = try Self.downloadCutShort(headField: "")
        #expect(error?.code == .networkConnectionLost)
        #expect(error?.downloadTaskResumeData == nil)
    }

    @Test func unusableResumeDataFailsTheTask() {
        let log = Self.resume(Data("not resume data".utf8))
        #expect(log.error?.code == .cannotDecodeRawData)
    }

    // MARK: Dispositions

    @Test func becomeDownloadHandsTheRestOfTheBodyToADownloadTask() throws {
        let server = try Self.nginx()
        let delegate = RecordingDownloadDelegate(disposition: .becomeDownload)
        let session = Self.session(delegate)
        defer { session.invalidateAndCancel() }
        let dataTask = session.dataTask(with: URL(string: server.baseURL + "/file.bin")!)
        dataTask.resume()
        #expect(delegate.waitForCompletion())
        let log = delegate.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.messages.first == "response")
        #expect(log.messages.contains("became download"))
        #expect(!log.messages.contains("data"), "no data message once the task became a download")
        #expect(log.fileContents.map { [UInt8]($0) } == Self.body)
        let download = try #require(log.becameDownload)
        #expect(download.taskIdentifier != dataTask.taskIdentifier)
        #expect(download.state == .completed)
        #expect(dataTask.state == .completed)
        #expect((download.response as? HTTPURLResponse)?.statusCode == 200)
    }

    // MARK: Bookkeeping

    @Test func getTasksSortsTasksByKind() throws {
        let session = Self.session(nil)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:9/")!
        let data = session.dataTask(with: url)
        let upload = session.uploadTask(with: URLRequest(url: url), from: Data("x".utf8))
        let download = session.downloadTask(with: url)
        let result = LockedBox<([Int], [Int], [Int])?>(nil)
        session.getTasksWithCompletionHandler { data, uploads, downloads in
            result.withLock { $0 = (data.map(\.taskIdentifier), uploads.map(\.taskIdentifier),
                                    downloads.map(\.taskIdentifier)) }
        }
        #expect(waitUntil(timeout: 5) { result.withLock { $0 != nil } })
        let (dataIDs, uploadIDs, downloadIDs) = try #require(result.withLock { $0 })
        #expect(dataIDs == [data.taskIdentifier])
        #expect(uploadIDs == [upload.taskIdentifier])
        #expect(downloadIDs == [download.taskIdentifier])
    }
}
