import Foundation
import FWNetworking
@testable import FWURLSession
import Testing
import TestSupport

/// The manager on a durable session: the download a journal holds is given back to the manager's session,
/// continues, and `didFinishEventsForBackgroundURLSession` runs (on the main queue) once it completed.
@Suite struct URLSessionManagerBackgroundTests {
    @Test func theBackgroundEventsBlockRunsOnceTheReattachedDownloadCompleted() throws {
        let server = try PythonHTTPServer.rangeFile(size: 2 << 20, seed: 11)
        try server.setRangeDelay(0.05)
        let work = try TemporaryDirectory(prefix: "fw-manager-background")
        let served = try Data(contentsOf: URL(fileURLWithPath: server.rangeFilePath))
        let partial = work.file("3-abcdef.part")
        try served.prefix(100_000).write(to: URL(fileURLWithPath: partial))
        let journal = try BackgroundJournal.open(directory: work.path)
        var record = DurableSession.record(.download, 3, URLRequest(url: URL(string: "\(server.baseURL)/file.bin")!))
        record.partialFilePath = partial
        record.bytesWritten = 100_000
        record.entityTag = "\"v1\""
        try journal.write(record)
        journal.unlock()

        let configuration = URLSessionConfiguration.background(withIdentifier: "manager")
        configuration.backgroundSessionDirectory = work.url
        let manager = URLSessionManager(sessionConfiguration: configuration)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let delivered = LockedBox<Data?>(nil)
        manager.downloadTaskDidFinishDownloading = { _, _, location in
            delivered.withLock { $0 = FileManager.default.contents(atPath: location.path) }
            return nil
        }
        let finished = LockedBox<Bool?>(nil)
        _ = ManagerTests.mainQueueKey
        manager.didFinishEventsForBackgroundURLSession = { _ in finished.withLock { $0 = ManagerTests.onMainQueue } }
        #expect(manager.downloadTasks.map(\.taskIdentifier) == [3])
        #expect(ManagerTests.wait(for: finished) == true)
        #expect(delivered.withLock { $0 } == served)
        #expect(server.rangeRequests.first == "GET /file.bin range=bytes=100000- if-range=\"v1\" status=206")
    }
}
