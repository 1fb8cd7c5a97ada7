import Foundation
import Testing
@testable import FWURLSession
import TestSupport

// Issue 28, item 4: every URLError a task ends with carries NSErrorFailingURLKey and NSErrorFailingURLStringKey
// in its userInfo (FoundationNetworking's behaviour), whatever ended it: cancel(), invalidateAndCancel(), a
// refused connection, a timeout, a bad response. The task's completion handler and its `error` agree.
@Suite struct FailingURLTests {
    enum Failure: String, CaseIterable, Sendable {
        case cancel, invalidateAndCancel, connectionRefused, timeout, badResponse
    }

    @Test(arguments: Failure.allCases)
    func theErrorNamesTheURLThatFailed(_ failure: Failure) throws {
        let server = try LoopbackHTTPServer { _ in .raw("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n") }
        defer { server.stop() }
        let silent = try UnacceptedListener()
        defer { silent.stop() }
        let refused = try RefusingPort()
        defer { refused.close() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }

        let target: URL
        let expected: URLError.Code
        switch failure {
        case .cancel, .invalidateAndCancel:
            target = URL(string: "http://127.0.0.1:\(silent.port)/waits?for=ever")!
            expected = .cancelled
        case .timeout:
            target = URL(string: "http://127.0.0.1:\(silent.port)/times/out")!
            expected = .timedOut
        case .connectionRefused:
            target = URL(string: "http://127.0.0.1:\(refused.port)/refused")!
            expected = .cannotConnectToHost
        case .badResponse:
            target = URL(string: server.baseURL + "/malformed")!
            expected = .badServerResponse
        }
        var request = URLRequest(url: target)
        if failure == .timeout { request.timeoutInterval = 0.3 }

        let result = LockedBox<(any Error)??>(nil)
        let task = session.dataTask(with: request) { _, _, error in result.withLock { $0 = .some(error) } }
        task.resume()
        switch failure {
        case .cancel: task.cancel()
        case .invalidateAndCancel: session.invalidateAndCancel()
        default: break
        }
        #expect(waitUntil(timeout: 10) { result.withLock { $0 != nil } })

        let error = try #require(result.withLock { $0 ?? nil } as? URLError, "\(failure)")
        #expect(error.code == expected)
        #expect(error.userInfo["NSErrorFailingURLKey"] as? URL == target)
        #expect(error.userInfo["NSErrorFailingURLStringKey"] as? String == target.absoluteString)
        #expect(error.failingURL == target)
        let taskError = try #require(task.error as? URLError)
        #expect(taskError.userInfo["NSErrorFailingURLStringKey"] as? String == target.absoluteString)
    }

    @Test func aKeyTheErrorHasIsKeptAndTheMissingOneIsFilled() {
        let first = URL(string: "http://127.0.0.1:1/first")!
        let other = URL(string: "http://127.0.0.1:1/other")!
        let bare = URLError(.cancelled).addingFailingURL(first)
        #expect(bare.failingURL == first)
        #expect(bare.userInfo["NSErrorFailingURLStringKey"] as? String == first.absoluteString)

        let named = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: first]).addingFailingURL(other)
        #expect(named.failingURL == first)
        #expect(named.userInfo["NSErrorFailingURLStringKey"] as? String == first.absoluteString)
        #expect(URLError(.unknown).addingFailingURL(nil).userInfo.isEmpty)
    }
}
