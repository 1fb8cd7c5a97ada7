import Foundation
import FWNetworking
import Testing
import TestSupport

// The manager's handling of messages beyond one line: the bytes-sent block with the session's totals, and
// finished downloads moved by the manager-wide block (for the manager's tasks and for others of its
// session) or by the task's own destination.

@Suite struct URLSessionManagerEventsTests {
    @Test(arguments: [true, false])
    func theBytesSentBlockGetsTheExpectedTotal(_ announcesLength: Bool) throws {
        let sink = try PythonHTTPServer.uploadSink()
        defer { sink.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let expected = LockedBox<Set<Int64>>([])
        manager.taskDidSendBodyData = { _, _, _, _, total in expected.withLock { _ = $0.insert(total) } }
        var request = URLRequest(url: try #require(URL(string: sink.baseURL + "/sink")))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data(repeating: 1, count: 3000))
        if announcesLength { request.setValue("3000", forHTTPHeaderField: "Content-Length") }
        let result = LockedBox<ManagerResult?>(nil)
        manager.uploadTask(streamedRequest: request, completionHandler: ManagerTests.record(into: result)).resume()
        #expect(try #require(ManagerTests.wait(for: result)).status == 200)
        #expect(expected.withLock { $0 } == [announcesLength ? 3000 : -1])
    }

    @Test func theManagerWideBlockMovesEveryDownloadOfTheSession() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fw-moves-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        manager.downloadTaskDidFinishDownloading = { _, task, _ in
            let name = "\(task.taskIdentifier)"
            return task.originalRequest?.url?.path == "/json" ? nil : directory.appendingPathComponent(name)
        }
        // A download the session made directly: only the manager-wide block can place it.
        let done = LockedBox(0)
        let foreign = manager.session.downloadTask(with: ManagerTests.url(server, "/text"))
        // A download of the manager whose own destination decides when the block returns nil.
        let own = directory.appendingPathComponent("own.json")
        let path = LockedBox<URL??>(nil)
        let mine = manager.downloadTask(request: ManagerTests.request(server, "/json"),
                                        destination: { _, _ in own }, completionHandler: { _, filePath, _ in
            path.withLock { $0 = .some(filePath) }
            done.withLock { $0 += 1 }
        })
        let moves = LockedBox(0)
        let observer = NotificationCenter.default.addObserver(
            forName: URLSessionManager.urlSessionDownloadTaskDidMoveFileSuccessfullyNotification, object: nil,
            queue: nil) { note in
            let object = note.object as AnyObject?
            if object === foreign || object === mine { moves.withLock { $0 += 1 } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        foreign.resume()
        mine.resume()
        #expect(waitUntil(timeout: 20) {
            done.withLock { $0 } == 1 && moves.withLock { $0 } == 2
        })
        #expect(path.withLock { $0 } == .some(own))
        let placed = directory.appendingPathComponent("\(foreign.taskIdentifier)")
        #expect(try String(contentsOf: placed, encoding: .utf8) == "hello manager")
        #expect(try String(contentsOf: own, encoding: .utf8).hasPrefix("{\"name\""))
    }
}
