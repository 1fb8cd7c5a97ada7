import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// The lifecycle messages through the router: interim (1xx) responses, the per-message fallback of the new
// messages, and the data messages a collecting task keeps from the session's delegate.
@Suite struct DelegateRouterLifecycleTests {
    @Test func interimResponsesReachTheDelegateBeforeTheFinalOne() throws {
        let server = try LoopbackHTTPServer { _ in
            .raw("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                 + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", closeAfter: false)
        }
        defer { server.stop() }
        let recorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: url(server, "/")).resume()
        #expect(recorder.waitForCompletion())
        #expect(recorder.lines.filter { !$0.hasPrefix("willCache") }
                == ["created", "informational 103", "response 200", "data 2", "metrics", "complete"])
    }

    @Test func aTaskDelegateWithoutTheNewMessagesHandsThemToTheSessionDelegate() throws {
        let server = try LoopbackHTTPServer { _ in
            .raw("HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", closeAfter: false)
        }
        defer { server.stop() }
        let sessionRecorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: sessionRecorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url(server, "/"))
        task.delegate = TaskOnlyDelegate()
        task.earliestBeginDate = Date().addingTimeInterval(-1)
        task.resume()
        #expect(sessionRecorder.waitForCompletion())
        #expect(sessionRecorder.lines.contains("delayed /"))
        #expect(sessionRecorder.lines.contains("informational 103"))
    }

    @Test func aCollectingTaskKeepsItsDataMessagesFromTheSessionDelegate() async throws {
        let server = try LoopbackHTTPServer { _ in .ok("body") }
        defer { server.stop() }
        let sessionRecorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: sessionRecorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        // The task's delegate is a data delegate that implements none of the data messages.
        let (data, _) = try await session.data(from: url(server, "/"), delegate: TaskOnlyDataDelegate())
        #expect(data == Data("body".utf8))
        // The task-level messages the task's delegate left out reached the session's delegate; data did not.
        #expect(sessionRecorder.lines.contains("metrics"))
        #expect(!sessionRecorder.lines.contains { $0.hasPrefix("response") || $0.hasPrefix("data") })
    }
}

/// A task delegate that implements none of the lifecycle messages.
final class TaskOnlyDelegate: NSObject, URLSessionTaskDelegate, Sendable {}

/// A data delegate that implements none of the data messages.
final class TaskOnlyDataDelegate: NSObject, URLSessionDataDelegate, Sendable {}
