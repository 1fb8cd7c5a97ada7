import Foundation
import FWNetworking

// MARK: - Demo: the session manager

extension Demo {
    /// What a manager's completion handler got.
    struct ManagerOutcome: @unchecked Sendable { // lets only: handed from the completion queue to the demo
        let response: URLResponse
        let object: Any?
        let error: (any Error)?
        let attempts: Int
        let seconds: Double
    }

    /// A manager completing on a queue of its own (a command-line tool does not run the main queue).
    static func manager(_ configuration: URLSessionConfiguration = .default) -> URLSessionManager {
        let manager = URLSessionManager(sessionConfiguration: configuration)
        manager.completionQueue = DispatchQueue(label: "fwcurl.demo.manager")
        return manager
    }

    /// Runs a data task made by `manager` and waits for its completion handler.
    static func load(_ manager: URLSessionManager, _ request: URLRequest) async -> ManagerOutcome {
        await withCheckedContinuation { continuation in
            manager.dataTask(request: request, completionHandler: { response, object, error in
                continuation.resume(returning: ManagerOutcome(response: response, object: object, error: error,
                                                              attempts: 1, seconds: 0))
            }).resume()
        }
    }

    mutating func managerJSON() async {
        step("8. The session manager: a JSON request, serialized by JSONResponseSerializer")
        let manager = Self.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let outcome = await Self.load(manager, URLRequest(url: url("/json")))
        guard let object = outcome.object as? [String: Any], outcome.error == nil else {
            show("failed: \(String(describing: outcome.error))", ok: false)
            return
        }
        let fields = object.keys.sorted().map { "\($0) = \(object[$0].map { "\($0)" } ?? "nil")" }
        show("a [String: Any] with \(fields.joined(separator: ", "))",
             ok: object["project"] as? String == "FWNetworking" && object["pure_swift"] as? Bool == true)
    }

    mutating func retriedFlakyRequest() async {
        step("9. The retrying request builder: a route that answers 503 twice, then 200")
        let manager = Self.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.responseSerializer = HTTPResponseSerializer()
        let target = url("/flaky")
        let outcome = await withCheckedContinuation { continuation in
            manager.dataTask(requestBuilder: { URLRequest(url: target) }, retryCount: 3, retryInterval: 0.2,
                             timeoutInterval: 10, completionHandler: { response, object, error in
                let attempts = manager.requestTotalCount(for: response)
                continuation.resume(returning: ManagerOutcome(
                    response: response, object: object, error: error, attempts: attempts,
                    seconds: manager.requestTotalTime(for: response)))
            }).resume()
        }
        let status = (outcome.response as? HTTPURLResponse)?.statusCode ?? 0
        show(String(format: "status %d after %d attempts in %.2f s (requestTotalCount, requestTotalTime)",
                    status, outcome.attempts, outcome.seconds),
             ok: status == 200 && outcome.attempts == 3 && outcome.seconds >= 0.4)
    }
}

// MARK: - FlakyRoute

/// A route that answers 503 (with a short body) `failures` times, then 200 every time.
final class FlakyRoute: @unchecked Sendable { // `served`: the demo server's queue only (routes run there)
    private let failures: Int
    private var served = 0

    init(failures: Int) {
        self.failures = failures
    }

    /// The reply to the next request.
    func reply() -> DemoServer.Reply {
        served += 1
        guard served > failures else {
            let body = "busy, try again\n"
            return DemoServer.Reply(bytes: Array(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        }
        return .ok("steady now\n")
    }
}
