import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Which delegate hears a message, end to end against a loopback server: per message, the task's own
// delegate when it implements the message, else the session's (Apple's rule) — whether the task's delegate
// does not conform to the message's protocol at all, or conforms but leaves the method to its default.
@Suite struct DelegateRouterTests {
    /// A task delegate that implements only the completion (not the data messages, not the metrics).
    final class CompletionOnly: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // `heard` is a LockedBox
        let heard = LockedBox<[String]>([])

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            heard.withLock { $0.append("complete") }
        }
    }

    /// A data delegate that implements only `didReceive data`: the response and the completion are its
    /// protocols' defaults, which must hand them on to the session delegate.
    final class DataOnly: NSObject, URLSessionDataDelegate, @unchecked Sendable { // `heard` is a LockedBox
        let heard = LockedBox<[String]>([])

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            heard.withLock { $0.append("data") }
        }
    }

    static func server() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { _ in .ok("routed") }
    }

    static func run(task delegate: (any URLSessionTaskDelegate)?, session sessionDelegate: RecordingDataDelegate?,
                    server: LoopbackHTTPServer) -> Bool {
        let session = URLSession(configuration: .ephemeral, delegate: sessionDelegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: URL(string: server.baseURL + "/")!)
        task.delegate = delegate
        task.resume()
        return waitUntil(timeout: 5) { task.state == .completed }
    }

    @Test func aTaskDelegateHearsOnlyWhatItImplements() throws {
        let server = try Self.server()
        defer { server.stop() }
        let sessionDelegate = RecordingDataDelegate()
        let taskDelegate = CompletionOnly()
        #expect(Self.run(task: taskDelegate, session: sessionDelegate, server: server))
        #expect(waitUntil(timeout: 5) { taskDelegate.heard.withLock { $0 } == ["complete"] })
        let log = sessionDelegate.log.withLock { $0 }
        #expect(log.messages.filter { $0 != "invalid" } == ["response 200", "data", "metrics"],
                "the session hears the rest, not the completion")
        #expect(String(decoding: log.data, as: UTF8.self) == "routed")
    }

    @Test func aMethodLeftToItsDefaultGoesOnToTheSessionDelegate() throws {
        let server = try Self.server()
        defer { server.stop() }
        let sessionDelegate = RecordingDataDelegate()
        let taskDelegate = DataOnly()
        #expect(Self.run(task: taskDelegate, session: sessionDelegate, server: server))
        #expect(sessionDelegate.waitForCompletion())
        #expect(taskDelegate.heard.withLock { $0 } == ["data"])
        let log = sessionDelegate.log.withLock { $0 }
        #expect(log.messages.filter { $0 != "invalid" } == ["response 200", "metrics", "complete"])
        #expect(log.data.isEmpty, "the body went to the task's own delegate")
    }

    @Test func oneObjectAsBothDelegatesHearsEachMessageOnce() throws {
        let server = try Self.server()
        defer { server.stop() }
        let both = RecordingDataDelegate()
        #expect(Self.run(task: both, session: both, server: server))
        #expect(both.waitForCompletion())
        #expect(both.log.withLock { $0.messages }.filter { $0 != "invalid" }
                    == ["response 200", "data", "metrics", "complete"])
    }

    @Test func withoutASessionDelegateTheDefaultsDoTheDefaultThing() throws {
        let server = try Self.server()
        defer { server.stop() }
        let taskDelegate = DataOnly()
        #expect(Self.run(task: taskDelegate, session: nil, server: server))
        #expect(taskDelegate.heard.withLock { $0 } == ["data"], "the response was allowed by default")
    }

    @Test func theFallbackIsOnlyForATasksOwnDelegate() throws {
        let session = URLSession(configuration: .ephemeral, delegate: RecordingDataDelegate(), delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
        let own = DataOnly()
        let stranger = DataOnly()
        task.delegate = own
        #expect(DelegateRouter.fallback(from: own, session: session, task: task,
                                        (any URLSessionDataDelegate).self) != nil)
        #expect(DelegateRouter.fallback(from: stranger, session: session, task: task,
                                        (any URLSessionDataDelegate).self) == nil)
        let sessionDelegate = try #require(session.delegate)
        #expect(DelegateRouter.fallback(from: sessionDelegate, session: session, task: task,
                                        (any URLSessionDataDelegate).self) == nil)
    }
}
