// bench-fw and bench-foundation: one URLSession program in a closed loop (see BenchSupport/ClosedLoop.swift),
// compiled twice: against FWNetworking, and with FOUNDATION_NETWORKING defined against FoundationNetworking
// (source compatibility is the point, so the two clients share this file through symlinks).
//
// `--api handler` (the default): completion-handler data tasks; each handler, running on the session's
// serial delegate queue, resumes the next task. `--api async`: N Swift tasks each awaiting `data(for:)`.
// The two were within noise of each other on GET 64 B at c=1 and c=32 when the suite was written. Mode
// `stream` (whatever `--api`) uses a data delegate that counts and drops the bytes; mode `close` sends
// `Connection: close`, so every request opens a new TCP connection.

import BenchSupport
import Foundation
#if FOUNDATION_NETWORKING
import FoundationNetworking
let client = "foundation"
#else
import FWNetworking
let client = "fw"
#endif

let arguments = ClientArguments.parseOrExit(client: "bench-\(client)")
let configuration = URLSessionConfiguration.default
configuration.httpMaximumConnectionsPerHost = arguments.maxConnections
let request = {
    var request = URLRequest(url: arguments.url)
    if arguments.mode == .close { request.setValue("close", forHTTPHeaderField: "Connection") }
    return request
}()
let loop = ClosedLoop(concurrency: arguments.concurrency, amount: arguments.amount)

switch (arguments.mode, arguments.api ?? "handler") {
case (.stream, _):
    let counter = DroppingDelegate()
    let session = URLSession(configuration: configuration, delegate: counter, delegateQueue: nil)
    measure(client: client, api: "delegate", arguments: arguments) {
        loop.run { complete in
            let task = session.dataTask(with: request)
            counter.register(task, complete)
            task.resume()
        }
    }
case (.get, "handler"), (.close, "handler"):
    let session = URLSession(configuration: configuration)
    measure(client: client, api: "handler", arguments: arguments) {
        loop.run { complete in
            session.dataTask(with: request) { data, response, error in
                complete(outcome(data?.count, response, error))
            }.resume()
        }
    }
case (.get, "async"), (.close, "async"):
    let session = URLSession(configuration: configuration)
    await measure(client: client, api: "async", arguments: arguments) {
        await loop.runAsync {
            do {
                let (data, response) = try await session.data(for: request)
                return outcome(data.count, response, nil)
            } catch {
                return .failure("\(error)")
            }
        }
    }
default:
    fail("bench-\(client)", "unknown --api \(arguments.api ?? ""); use handler or async")
}

/// A 200 response with a body, or the failure.
func outcome(_ bytes: Int?, _ response: URLResponse?, _ error: (any Error)?) -> RequestOutcome {
    if let error { return .failure("\(error)") }
    guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 else {
        return .failure("unexpected response \(String(describing: response))")
    }
    return .success(bytes: bytes ?? 0)
}

/// Counts each task's body bytes and drops them; reports the task's outcome when it completes.
final class DroppingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `running`: under `lock` (registered from the loop's threads, read on the delegate queue).
    private let lock = NSLock()
    private var running: [Int: (bytes: Int, complete: @Sendable (RequestOutcome) -> Void)] = [:]

    func register(_ task: URLSessionTask, _ complete: @escaping @Sendable (RequestOutcome) -> Void) {
        lock.withLock { running[task.taskIdentifier] = (0, complete) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { running[dataTask.taskIdentifier]?.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ running.removeValue(forKey: task.taskIdentifier) }) else { return }
        entry.complete(outcome(entry.bytes, task.response, error))
    }
}
