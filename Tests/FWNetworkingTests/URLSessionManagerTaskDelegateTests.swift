import Foundation
import FWNetworking
import Testing
import TestSupport

// The per-task delegate: its progress objects control the task (cancel, pause, resume), the response is
// serialized off the operation and completion queues and only for a task that did not fail, and a task
// without a response completes with a placeholder response for its URL.

// MARK: - A serializer that notes where it runs

/// An `HTTPResponseSerializer` that records whether it ran on the operation queue or the completion queue.
final class WhereSerializer: HTTPResponseSerializer, @unchecked Sendable { // `calls` is a LockedBox
    let calls = LockedBox<[(onOperationQueue: Bool, onCompletionQueue: Bool)]>([])
    private let key = DispatchSpecificKey<Bool>()
    let operationQueue = LockedBox<OperationQueue?>(nil)

    required init() {
        super.init()
        ManagerTests.completionQueue.setSpecific(key: key, value: true)
    }

    required init?(coder: NSCoder) {
        nil
    }

    override func responseObject(for response: URLResponse?, data: Data) throws -> Any? {
        let onOperation = OperationQueue.current != nil && OperationQueue.current === operationQueue.withLock { $0 }
        calls.withLock { $0.append((onOperation, DispatchQueue.getSpecific(key: key) == true)) }
        return try super.responseObject(for: response, data: data)
    }
}

// MARK: - Tests

@Suite struct URLSessionManagerTaskDelegateTests {
    @Test func cancellingTheProgressCancelsTheTask() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let result = LockedBox<ManagerResult?>(nil)
        let task = manager.dataTask(request: ManagerTests.request(server, "/slow"),
                                    completionHandler: ManagerTests.record(into: result))
        task.resume()
        #expect(waitUntil(timeout: 10) { server.requestCount == 1 })
        manager.uploadProgress(for: task)?.cancel()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.urlError?.code == .cancelled)
        #expect(done.response.url == ManagerTests.url(server, "/slow"), "a placeholder response for the URL")
    }

    @Test func pausingAndResumingTheProgressSuspendsAndResumesTheTask() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let result = LockedBox<ManagerResult?>(nil)
        let task = manager.dataTask(request: ManagerTests.request(server, "/slow"),
                                    completionHandler: ManagerTests.record(into: result))
        task.resume()
        let progress = try #require(manager.downloadProgress(for: task))
        // Foundation calls the pausing and resuming handlers asynchronously.
        progress.pause()
        #expect(waitUntil(timeout: 10) { task.state == URLSessionTask.State.suspended })
        progress.resume()
        #expect(waitUntil(timeout: 10) { task.state == URLSessionTask.State.running })
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.status == 200)
    }

    @Test func responsesAreSerializedOnTheProcessingQueueOnlyForTasksThatDidNotFail() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let serializer = WhereSerializer()
        let manager = ManagerTests.manager(serializer: serializer)
        serializer.operationQueue.withLock { $0 = manager.operationQueue }
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let ok = try #require(ManagerTests.load(manager, ManagerTests.request(server, "/text")))
        #expect(String(decoding: ok.object as? Data ?? Data(), as: UTF8.self) == "hello manager")
        let refused = try #require(URL(string: "http://127.0.0.1:1/"))
        let failed = try #require(ManagerTests.load(manager, URLRequest(url: refused)))
        #expect(failed.urlError?.code == .cannotConnectToHost && failed.object == nil)
        let calls = serializer.calls.withLock { $0 }
        #expect(calls.count == 1)
        #expect(calls.allSatisfy { !$0.onOperationQueue && !$0.onCompletionQueue })
    }

    @Test func aSerializationErrorIsTheCompletionsError() throws {
        let server = try ManagerTests.server()
        defer { server.stop() }
        let manager = ManagerTests.manager(serializer: JSONResponseSerializer())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let result = try #require(ManagerTests.load(manager, ManagerTests.request(server, "/missing")))
        let error = try #require(result.error as? NSError)
        #expect(error.domain == HTTPResponseSerializer.URLResponseSerializationErrorDomain)
        #expect(result.status == 404)
    }
}
