// The `waits` scenarios of ReachabilityProbe (see main.swift).

import FWNetworking
import Foundation
import TestSupport

/// Counts `taskIsWaitingForConnectivity` and reports the first one of its task.
final class WaitRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // count: a LockedBox
    let count = LockedBox(0)

    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        if count.withLock({ count -> Int in
            count += 1
            return count
        }) == 1 {
            emit("waiting")
        }
    }
}

/// Fetches `url` on a session of its own; returns the RESULT of main.swift's description.
func fetch(_ url: URL, waits: Bool, resourceTimeout: TimeInterval) -> String {
    let configuration = URLSessionConfiguration.default
    configuration.waitsForConnectivity = waits
    configuration.timeoutIntervalForResource = resourceTimeout
    let recorder = WaitRecorder()
    let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let outcome = LockedBox<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    session.dataTask(with: url) { data, response, error in
        let status = (response as? HTTPURLResponse)?.statusCode
        let text = switch (status, error as? URLError) {
        case (let status?, nil): "status=\(status) body=\(String(decoding: data ?? Data(), as: UTF8.self))"
        case (_, let error?): "error=\(error.code.rawValue)"
        default: "error=none"
        }
        outcome.withLock { $0 = text }
        done.signal()
    }.resume()
    guard done.wait(timeout: .now() + 60) == .success else {
        return "hung messages=\(recorder.count.withLock { $0 })"
    }
    return "\(outcome.withLock { $0 } ?? "") messages=\(recorder.count.withLock { $0 })"
}

/// The three fetches, in order, against a loopback server that answers "hello".
func runWaitScenarios() {
    let server: LoopbackHTTPServer
    do {
        server = try LoopbackHTTPServer { _ in .ok("hello") }
    } catch {
        emit("no server: \(error)")
        return
    }
    guard let url = URL(string: server.baseURL + "/") else {
        return
    }
    emit("nowait \(fetch(url, waits: false, resourceTimeout: 60))")
    if let named = URL(string: "http://example.com:\(server.port)/") {
        emit("nowait-name \(fetch(named, waits: false, resourceTimeout: 60))")
    }
    emit("timeout \(fetch(url, waits: true, resourceTimeout: 1))")
    emit("waited \(fetch(url, waits: true, resourceTimeout: 60))")
    emit("requests=\(server.requestCount)")
    server.stop()
}
