import Dispatch
import FWLoop
import FWNetworking
import FWTransport
import FWWire
import Foundation

// MARK: - Scenario

/// One way of sending sequential keep-alive GETs to the responder: `send(count)` runs that many requests, one
/// after the other, to their end and returns what went wrong, if anything.
struct Scenario {
    /// The name used in the budget file and the report ("urlsession", "transport").
    let name: String
    /// Sends `count` GETs one after the other and waits for the last; nil on success, else the first failure.
    let send: (_ count: Int) -> String?
    /// Releases the scenario's session or transport.
    let finish: () -> Void
}

// MARK: - URLSession with completion handlers

extension Scenario {
    /// `URLSession.dataTask(with:completionHandler:)` on a `.default` session (no URL cache, as the benchmark
    /// runs it) with its default serial delegate queue: what a user writes. Each request after the first is
    /// resumed from the previous one's completion handler (a closed loop, as the benchmark and
    /// `Scripts/profile.sh` run it). Resumed from the waiting thread instead, a request found the session's
    /// hosted loop either still in its slice or parked, by a race between that thread's wake-up and the slice's
    /// end, and a parked loop's wake-up allocates: the count moved between 109 and 161 a request (debug) on one
    /// machine and build, and crossed the budget by chance.
    static func urlSession(port: Int) -> Scenario {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/64b")!)
        let done = DispatchSemaphore(value: 0)
        // Written on the delegate queue, one request at a time, before `done.signal()`; read after `done.wait()`.
        nonisolated(unsafe) var failure: String?
        nonisolated(unsafe) var left = 0
        nonisolated(unsafe) var sendNext: () -> Void = {}
        sendNext = {
            session.dataTask(with: request) { data, response, error in
                failure = Self.check(data: data, response: response, error: error)
                left -= 1
                if failure == nil, left > 0 { sendNext() } else { done.signal() }
            }.resume()
        }
        return Scenario(name: "urlsession", send: { count in
            failure = nil
            left = count
            sendNext()
            done.wait()
            return failure
        }, finish: {
            sendNext = {}
            session.invalidateAndCancel()
        })
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
        return Scenario(name: "transport", send: { count in
            for _ in 0..<count {
                transport.execute(request, delegate: delegate)
                if let failure = delegate.waitForEnd() { return failure }
            }
            return nil
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
