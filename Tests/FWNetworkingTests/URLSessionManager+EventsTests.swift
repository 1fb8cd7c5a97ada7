import Foundation
import FWNetworking
import Testing
import TestSupport

// The manager's handling of messages beyond one line: the bytes-sent block with the session's totals,
// finished downloads moved by the manager-wide block (for the manager's tasks and for others of its
// session) or by the task's own destination, a streamed body sent again after a 307 (a copy of a copyable
// stream, a clear failure otherwise), and taskDidComplete after the per-task completion was handed on.

/// An input stream that can be copied (NSCopying): a copy reads the same bytes from the start.
final class CopyableDataStream: InputStream, NSCopying {
    let bytes: Data

    init(_ bytes: Data) {
        self.bytes = bytes
        super.init(data: bytes)
    }

    func copy(with zone: NSZone? = nil) -> Any {
        CopyableDataStream(bytes)
    }
}

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

    // MARK: Sending a streamed body again

    /// A server that answers `/moved` with a 307 to `/echo` (the body must be sent again), and `/echo` with
    /// the length of the body it got.
    static func resendServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            request.target == "/moved" ? .status(307, headers: [("Location", "/echo")]) : .ok("\(request.body.count)")
        }
    }

    /// Uploads `stream` as the body of a POST to `/moved` through a manager; what the completion got.
    static func resend(_ stream: InputStream, length: Int, to server: LoopbackHTTPServer) throws -> ManagerResult {
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        var request = ManagerTests.request(server, "/moved")
        request.httpMethod = "POST"
        request.setValue("\(length)", forHTTPHeaderField: "Content-Length")
        request.httpBodyStream = stream
        let result = LockedBox<ManagerResult?>(nil)
        manager.uploadTask(streamedRequest: request, completionHandler: ManagerTests.record(into: result)).resume()
        return try #require(ManagerTests.wait(for: result))
    }

    @Test func aCopyableBodyStreamIsCopiedToBeSentAgain() throws {
        let server = try Self.resendServer()
        defer { server.stop() }
        let body = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0) })
        let result = try Self.resend(CopyableDataStream(body), length: body.count, to: server)
        #expect(result.error == nil && result.status == 200)
        #expect((result.object as? Data).map { String(decoding: $0, as: UTF8.self) } == "5000")
        #expect(server.requests.map(\.target) == ["/moved", "/echo"])
        #expect(server.requests.map { Data($0.body) } == [body, body])
    }

    @Test func aMultipartBodyIsCopiedToBeSentAgain() throws {
        let server = try Self.resendServer()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: server.baseURL + "/moved", parameters: ["field": "value"]) { form in
            form.appendPart(fileData: Data(repeating: 7, count: 3000), name: "file", fileName: "f.bin",
                            mimeType: "application/octet-stream")
        }
        let result = LockedBox<ManagerResult?>(nil)
        manager.uploadTask(streamedRequest: request, completionHandler: ManagerTests.record(into: result)).resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.error == nil && done.status == 200)
        let bodies = server.requests.map(\.body)
        #expect(bodies.count == 2 && bodies.first == bodies.last && (bodies.first?.count ?? 0) > 3000)
    }

    @Test func aBodyStreamThatCannotBeCopiedFailsSayingWhy() throws {
        let server = try Self.resendServer()
        defer { server.stop() }
        let result = try Self.resend(InputStream(data: Data(repeating: 1, count: 100)), length: 100, to: server)
        #expect(result.urlError?.code == .requestBodyStreamExhausted)
        let description = result.errorDescription
        #expect(description.contains("NSCopying") && description.contains("taskNeedNewBodyStream"))
        #expect(server.requests.map(\.target) == ["/moved"])
    }

    // MARK: Completion order

    @Test func taskDidCompleteRunsAfterTheCompletionWasHandedOn() throws {
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        // The completion queue is held, so the completion waits inside the group: when the block runs after
        // the per-task delegate handed the completion on (seed 004), the group cannot be empty.
        let held = DispatchQueue(label: "FWNetworkingTests.held")
        held.suspend()
        let group = DispatchGroup()
        manager.completionQueue = held
        manager.completionGroup = group
        let seen = LockedBox<(handedOn: Bool, progressGone: Bool)?>(nil)
        manager.taskDidComplete = { _, task, _ in
            let handedOn = group.wait(timeout: .now()) == .timedOut
            seen.withLock { $0 = (handedOn, manager.downloadProgress(for: task) == nil) }
        }
        let completed = LockedBox<ManagerResult?>(nil)
        let refused = URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/")))
        manager.dataTask(request: refused, completionHandler: ManagerTests.record(into: completed)).resume()
        let order = try #require(ManagerTests.wait(for: seen))
        #expect(order.handedOn && order.progressGone)
        #expect(completed.withLock { $0 } == nil)
        held.resume()
        #expect(ManagerTests.wait(for: completed)?.urlError?.code == .cannotConnectToHost)
    }
}
