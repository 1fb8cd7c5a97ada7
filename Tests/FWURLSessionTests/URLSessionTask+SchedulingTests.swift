import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Task creation (`didCreateTask`), the earliest begin date (`willBeginDelayedRequest` and its dispositions),
// the client's transfer-size hints, copying and progress reporting.
@Suite struct URLSessionTaskSchedulingTests {
    /// A server that notes when each request arrived.
    private static func makeServer(arrivals: LockedBox<[(String, Date)]>) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            arrivals.withLock { $0.append((request.target, Date())) }
            return .ok("ok")
        }
    }

    // MARK: Creation

    @Test func theDelegateHearsOfEveryTaskFirstEvenOneNeverResumed() throws {
        let recorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        _ = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
        #expect(waitUntil(timeout: 5) { recorder.lines == ["created"] })
    }

    @Test func aTransferThatBecomesADownloadIsAnnouncedOnce() throws {
        let server = try LoopbackHTTPServer { _ in .ok("body") }
        defer { server.stop() }
        let recorder = ProtocolRecorder(ProtocolRecorder.Answers(disposition: .becomeDownload))
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: url(server, "/")).resume()
        #expect(recorder.waitForCompletion())
        #expect(recorder.lines.filter { $0 == "created" }.count == 1)
        #expect(recorder.lines.first == "created")
    }

    @Test func theAsyncMethodsDelegateHearsOfItsTask() async throws {
        let server = try LoopbackHTTPServer { _ in .ok("ok") }
        defer { server.stop() }
        let sessionRecorder = ProtocolRecorder()
        let taskRecorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: sessionRecorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: url(server, "/"), delegate: taskRecorder)
        #expect(taskRecorder.lines.first == "created")
        #expect(!sessionRecorder.lines.contains("created"))
    }

    // MARK: Earliest begin date

    @Test(arguments: [
        (URLSession.DelayedRequestDisposition.continueLoading, "/a", ["/a"]),
        (.useNewRequest, "/b", ["/b"]),
        (.cancel, "", []),
    ])
    func aDelayedTaskWaitsThenAsksItsDelegate(_ disposition: URLSession.DelayedRequestDisposition,
                                              _ expectedPath: String, _ served: [String]) throws {
        let arrivals = LockedBox<[(String, Date)]>([])
        let server = try Self.makeServer(arrivals: arrivals)
        defer { server.stop() }
        let replacement = URLRequest(url: url(server, "/b"))
        let recorder = ProtocolRecorder(ProtocolRecorder.Answers(delayed: (disposition, replacement)))
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url(server, "/a"))
        let beginDate = Date().addingTimeInterval(0.3)
        task.earliestBeginDate = beginDate
        task.resume()
        #expect(task.state == .running)
        #expect(recorder.waitForCompletion())
        #expect(Array(recorder.lines.prefix(2)) == ["created", "delayed /a"])
        #expect(arrivals.withLock { $0.map(\.0) } == served)
        // Nothing reached the server before the begin date.
        #expect(arrivals.withLock { $0.allSatisfy { $0.1 >= beginDate } })
        if disposition == .cancel {
            #expect((recorder.log.withLock { $0.error } as? URLError)?.code == .cancelled)
        } else {
            #expect(task.currentRequest?.url?.path == expectedPath)
        }
    }

    @Test func aTaskResumedAfterItsBeginDateAsksAtOnceAndWithoutADelegateGoesOn() throws {
        let arrivals = LockedBox<[(String, Date)]>([])
        let server = try Self.makeServer(arrivals: arrivals)
        defer { server.stop() }
        let recorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let late = session.dataTask(with: url(server, "/late"))
        late.earliestBeginDate = Date().addingTimeInterval(-10)
        late.resume()
        #expect(recorder.waitForCompletion())
        #expect(recorder.lines.contains("delayed /late"))

        let plain = URLSession(configuration: .ephemeral)
        defer { plain.invalidateAndCancel() }
        let beginDate = Date().addingTimeInterval(0.2)
        let done = DispatchSemaphore(value: 0)
        let task = plain.dataTask(with: url(server, "/plain")) { _, _, _ in done.signal() }
        task.earliestBeginDate = beginDate
        task.resume()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(task.error == nil)
        #expect(arrivals.withLock { $0.last.map { $0.0 == "/plain" && $0.1 >= beginDate } } == true)
    }

    @Test func cancellingAWaitingTaskCompletesItWithCancelled() throws {
        let recorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
        task.earliestBeginDate = Date().addingTimeInterval(60)
        task.resume()
        task.cancel()
        #expect(recorder.waitForCompletion())
        #expect((recorder.log.withLock { $0.error } as? URLError)?.code == .cancelled)
        #expect(!recorder.lines.contains { $0.hasPrefix("delayed") })
    }

    // MARK: Hints and copying

    @Test func transferSizeHintsAreKeptAndUnknownByDefault() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
        #expect(task.countOfBytesClientExpectsToSend == NSURLSessionTransferSizeUnknown)
        #expect(task.countOfBytesClientExpectsToReceive == -1)
        #expect(task.earliestBeginDate == nil)
        task.countOfBytesClientExpectsToSend = 10
        task.countOfBytesClientExpectsToReceive = 20
        #expect((task.countOfBytesClientExpectsToSend, task.countOfBytesClientExpectsToReceive) == (10, 20))
    }

    @Test func aCopyOfATaskIsTheTask() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
        #expect(task.copy() as AnyObject === task)
        #expect(task.copy(with: nil) as AnyObject === task)
        #expect((task as any ProgressReporting).progress === task.progress)
    }
}
