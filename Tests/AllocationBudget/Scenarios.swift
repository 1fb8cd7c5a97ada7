import Dispatch
import FWLoop
import FWNetworking
import FWTransport
import FWWire
import Foundation

// MARK: - Scenario

/// One way of sending sequential keep-alive GETs to the responder: `send` runs one request to its end
/// and returns what went wrong, if anything.
struct Scenario {
    /// The name used in the budget file and the report ("urlsession", "transport").
    let name: String
    /// Sends one GET and waits for its completion; nil on success, else a description of the failure.
    let send: () -> String?
    /// Releases the scenario's session or transport.
    let finish: () -> Void
}

// MARK: - URLSession with completion handlers

extension Scenario {
    /// `URLSession.dataTask(with:completionHandler:)` on a `.default` session (no URL cache, as the benchmark
    /// runs it) with its default serial delegate queue: what a user writes.
    static func urlSession(port: Int) -> Scenario {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/64b")!)
        let done = DispatchSemaphore(value: 0)
        // Written by the completion handler before `done.signal()`, read after `done.wait()`.
        nonisolated(unsafe) var failure: String?
        return Scenario(name: "urlsession", send: {
            session.dataTask(with: request) { data, response, error in
                failure = Self.check(data: data, response: response, error: error)
                done.signal()
            }.resume()
            done.wait()
            return failure
        }, finish: { session.invalidateAndCancel() })
    }

    private static func check(data: Data?, response: URLResponse?, error: (any Error)?) -> String? {
        if let error { return "\(error)" }
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return "unexpected response \(String(describing: response))" }
        guard data?.count == LoopbackResponder.bodyLength else { return "body of \(data?.count ?? 0) bytes" }
        return nil
    }
}

// MARK: - HTTPTransport alone

extension Scenario {
    /// `HTTPTransport.execute` on a one-loop group, with one delegate that counts body bytes and signals
    /// the waiting thread at the terminal event: the engine without the session layer.
    static func transport(port: Int) throws -> Scenario {
        let group = try EventLoopGroup(loopCount: 1, namePrefix: "alloc-loop")
        let transport = HTTPTransport(group: group)
        let delegate = CompletionDelegate()
        let request = TransportRequest(
            key: ConnectionKey(scheme: "http", host: "127.0.0.1", port: port),
            head: HTTPRequestHead(method: "GET", target: "/64b", headers: HTTPHeaders()))
        return Scenario(name: "transport", send: {
            transport.execute(request, delegate: delegate)
            return delegate.waitForEnd()
        }, finish: {
            transport.shutdown()
            group.shutdown()
        })
    }
}

/// Counts one request's body bytes on the loop thread and hands the outcome to the thread that waits.
private final class CompletionDelegate: TransportTaskDelegate, @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // `bodyBytes` and `status`: loop thread only while a request runs; `failure`: written on the loop thread
    // before `done.signal()`, read after `done.wait()`.
    private var bodyBytes = 0
    private var status = 0
    private var failure: String?

    func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
        switch event {
        case .head(let head): status = head.status
        case .body(let bytes): bodyBytes += bytes.count
        case .end:
            failure = status == 200 && bodyBytes == LoopbackResponder.bodyLength
                ? nil : "status \(status), \(bodyBytes) body bytes"
            done.signal()
        case .failed(let error):
            failure = "\(error)"
            done.signal()
        default: break
        }
    }

    /// Waits for the running request's terminal event; nil when it succeeded.
    func waitForEnd() -> String? {
        done.wait()
        defer { bodyBytes = 0; status = 0; failure = nil }
        return failure
    }
}
