import Foundation
import FWNetworking
import TestSupport

// MARK: - Helpers for the session-manager tests

/// What a manager's completion handler was given.
struct ManagerResult: @unchecked Sendable { // lets only: handed from the completion queue to the test
    let response: URLResponse
    let object: Any?
    let error: (any Error)?

    var status: Int? { (response as? HTTPURLResponse)?.statusCode }
    var urlError: URLError? { error as? URLError }
    /// The error's localized description; empty without an error.
    var errorDescription: String { error.map { ($0 as NSError).localizedDescription } ?? "" }
}

/// An ordered log of what happened, written from any thread.
final class EventLog: Sendable {
    let entries = LockedBox<[String]>([])

    func add(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var all: [String] { entries.withLock { $0 } }

    /// The entries, keeping only those that start with one of `prefixes` (in `all`'s order).
    func only(_ prefixes: String...) -> [String] {
        all.filter { entry in prefixes.contains { entry.hasPrefix($0) } }
    }
}

enum ManagerTests {
    /// The completion queue of the tests' managers (the main queue is left to the default-queue test).
    static let completionQueue = DispatchQueue(label: "FWNetworkingTests.completion")

    /// A manager completing on `completionQueue`, serializing with `serializer`.
    static func manager(_ configuration: URLSessionConfiguration? = nil,
                        serializer: any URLResponseSerialization = HTTPResponseSerializer()) -> URLSessionManager {
        let manager = URLSessionManager(sessionConfiguration: configuration)
        manager.completionQueue = completionQueue
        manager.responseSerializer = serializer
        return manager
    }

    /// Marks the main queue, so that work can tell it runs there (on Linux the main queue may be served
    /// by another thread than the main thread once `dispatchMain()` runs).
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main queue.
    static var onMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

    /// A configuration that trusts the TLS fixtures' root.
    static func fixtureTrust() throws -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root)
        return configuration
    }

    /// Runs a data task made by `manager` for `request` and waits (bounded) for its completion handler.
    static func load(_ manager: URLSessionManager, _ request: URLRequest, timeout: Double = 20) -> ManagerResult? {
        let result = LockedBox<ManagerResult?>(nil)
        manager.dataTask(request: request, completionHandler: record(into: result)).resume()
        return wait(for: result, timeout: timeout)
    }

    /// A completion handler that puts what it gets into `box`.
    static func record(into box: LockedBox<ManagerResult?>) -> URLSessionManager.CompletionHandler {
        { response, object, error in
            box.withLock { $0 = ManagerResult(response: response, object: object, error: error) }
        }
    }

    /// Waits (bounded) until `box` holds a value and returns it.
    static func wait<Value>(for box: LockedBox<Value?>, timeout: Double = 20) -> Value? {
        _ = waitUntil(timeout: timeout) { box.withLock { $0 != nil } }
        return box.withLock { $0 }
    }

    /// A loopback server with the routes the manager tests use.
    static func server() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            switch (request.method, request.target) {
            case (_, "/json"): return .ok(#"{"name":"fw","list":[1,2],"none":null}"#, contentType: "application/json")
            case (_, "/text"): return .ok("hello manager")
            case (_, "/cacheable"): return .ok("kept for ten minutes", headers: [("Cache-Control", "max-age=600")])
            case (_, "/slow"):
                var reply = LoopbackHTTPServer.Reply.ok("slow")
                reply.delay = 1.5
                return reply
            case (_, "/big"): return .ok(String(repeating: "0123456789", count: 20_000))
            case ("POST", "/echo"), ("PUT", "/echo"): return .ok("\(request.body.count)")
            case (_, "/missing"): return .status(404, body: Array("no".utf8))
            case (_, "/redirect"): return .status(302, headers: [("Location", "/text")])
            default: return .status(500)
            }
        }
    }

    static func url(_ server: LoopbackHTTPServer, _ path: String) -> URL {
        URL(string: server.baseURL + path) ?? URL(fileURLWithPath: "/")
    }

    static func request(_ server: LoopbackHTTPServer, _ path: String) -> URLRequest {
        URLRequest(url: url(server, path))
    }
}
