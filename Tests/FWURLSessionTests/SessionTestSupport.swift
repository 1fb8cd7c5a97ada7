import Foundation
@testable import FWURLSession
import TestSupport

// MARK: - Helpers for session tests

/// A data delegate that records every message, the thread it came on, and can refuse responses.
final class RecordingDataDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // vars: in `log`
    struct Log {
        var messages: [String] = []
        var data = Data()
        var error: (any Error)?
        var completed = false
        var invalidated = false
        var offDelegateQueue = 0
        var metrics: [URLSessionTaskMetrics] = []
    }

    let log = LockedBox(Log())
    let disposition: URLSession.ResponseDisposition
    /// The queue messages must arrive on (set after the session exists).
    let expectedQueue = LockedBox<OperationQueue?>(nil)

    init(disposition: URLSession.ResponseDisposition = .allow) {
        self.disposition = disposition
    }

    private func record(_ message: String) {
        let onQueue = OperationQueue.current === expectedQueue.withLock { $0 }
        log.withLock {
            $0.messages.append(message)
            if !onQueue { $0.offDelegateQueue += 1 }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        record("response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        completionHandler(disposition)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        record("data")
        log.withLock { $0.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        record("metrics")
        log.withLock { $0.metrics.append(metrics) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        record("complete")
        log.withLock {
            $0.error = error
            $0.completed = true
        }
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        record("invalid")
        log.withLock { $0.invalidated = true }
    }

    func waitForCompletion(timeout: Double = 5) -> Bool {
        waitUntil(timeout: timeout) { log.withLock { $0.completed } }
    }

    func reset() {
        log.withLock { $0 = Log() }
    }
}

/// Runs a completion-handler data task and waits (bounded) for its result.
func load(_ session: URLSession, _ request: URLRequest, timeout: Double = 5)
    -> (data: Data?, response: HTTPURLResponse?, error: URLError?) {
    let result = LockedBox<(Data?, URLResponse?, (any Error)?)?>(nil)
    session.dataTask(with: request) { data, response, error in
        result.withLock { $0 = (data, response, error) }
    }.resume()
    _ = waitUntil(timeout: timeout) { result.withLock { $0 != nil } }
    guard let (data, response, error) = result.withLock({ $0 }) else { return (nil, nil, URLError(.timedOut)) }
    return (data, response as? HTTPURLResponse, error as? URLError)
}

func url(_ server: LoopbackHTTPServer, _ path: String) -> URL {
    URL(string: server.baseURL + path)!
}
