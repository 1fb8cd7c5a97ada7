import Foundation
import FWNetworking
import TestSupport

// Helpers for the HTTPSessionManager tests: a loopback server that answers every request with a JSON
// echo of it, managers completing on a marked queue, and a recorder of what success or failure got.

enum HTTPManagerTests {
    /// The completion queue of the tests' managers, marked so a handler can tell it runs there.
    static let completionQueue: DispatchQueue = {
        let queue = DispatchQueue(label: "FWNetworkingTests.http-manager.completion")
        queue.setSpecific(key: completionQueueKey, value: true)
        return queue
    }()

    static let completionQueueKey = DispatchSpecificKey<Bool>()

    /// Whether the caller runs on `completionQueue`.
    static var onCompletionQueue: Bool { DispatchQueue.getSpecific(key: completionQueueKey) == true }

    /// A manager for `baseURL` completing on `completionQueue`.
    static func manager(_ baseURL: String?) -> HTTPSessionManager {
        let manager = HTTPSessionManager(baseURL: baseURL.flatMap { URL(string: $0) })
        manager.completionQueue = completionQueue
        return manager
    }

    /// A server answering `/missing` with 404 and a JSON body, `/text` with plain text, HEAD with headers
    /// only, and anything else with 200 and a JSON echo: `method`, `target`, `body` (as text) and
    /// `contentType`.
    static func echoServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            if request.target.hasPrefix("/missing") {
                return .ok(#"{"error":"not here"}"#, contentType: "application/json", status: 404)
            }
            if request.target.hasPrefix("/text") { return .ok("plain words") }
            if request.method == "HEAD" { return .status(200, headers: [("Content-Length", "42")]) }
            let echo: [String: Any] = [
                "method": request.method, "target": request.target,
                "body": String(decoding: request.body, as: UTF8.self),
                "contentType": request.header("Content-Type") ?? "",
            ]
            let data = (try? JSONSerialization.data(withJSONObject: echo, options: [.sortedKeys])) ?? Data()
            return .ok(String(decoding: data, as: UTF8.self), contentType: "application/json")
        }
    }
}

/// What a verb method's success or failure got, and whether it ran on the completion queue.
struct VerbOutcome: @unchecked Sendable { // lets only: handed from the completion queue to the test
    let task: URLSessionDataTask?
    let object: Any?
    let error: (any Error)?
    let onCompletionQueue: Bool

    /// The HTTP status of the task's response.
    var status: Int? { (task?.response as? HTTPURLResponse)?.statusCode }
    /// The success object as a JSON dictionary.
    var json: [String: Any]? { object as? [String: Any] }
    /// The error as an NSError.
    var nsError: NSError? { error.map { $0 as NSError } }
}

/// Collects one outcome from success or failure, and waits (bounded) for it.
final class VerbRecorder: Sendable {
    private let box = LockedBox<VerbOutcome?>(nil)

    var success: HTTPSessionManager.SuccessHandler {
        { [box] task, object in
            let outcome = VerbOutcome(task: task, object: object, error: nil,
                                      onCompletionQueue: HTTPManagerTests.onCompletionQueue)
            box.withLock { $0 = outcome }
        }
    }

    var taskOnlySuccess: @Sendable (URLSessionDataTask) -> Void {
        { [box] task in
            let outcome = VerbOutcome(task: task, object: nil, error: nil,
                                      onCompletionQueue: HTTPManagerTests.onCompletionQueue)
            box.withLock { $0 = outcome }
        }
    }

    var failure: HTTPSessionManager.FailureHandler {
        { [box] task, error in
            let outcome = VerbOutcome(task: task, object: nil, error: error,
                                      onCompletionQueue: HTTPManagerTests.onCompletionQueue)
            box.withLock { $0 = outcome }
        }
    }

    /// The outcome, once there is one (nil after 20 s).
    func wait() -> VerbOutcome? {
        ManagerTests.wait(for: box)
    }
}
