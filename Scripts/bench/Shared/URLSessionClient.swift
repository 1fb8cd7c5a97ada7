// bench-fw and bench-foundation: one URLSession program in a closed loop (see BenchSupport/ClosedLoop.swift),
// compiled twice: against FWNetworking, and with FOUNDATION_NETWORKING defined against FoundationNetworking
// (source compatibility is the point, so the two clients share this file through symlinks).
//
// `--api handler` (the default): completion-handler data tasks; each handler, running on the session's
// serial delegate queue, resumes the next task. `--api async`: N Swift tasks each awaiting `data(for:)`;
// `--api async-executor` (bench-fw only): the same with the session's `fwExecutor` preferred.
// The two were within noise of each other on GET 64 B at c=1 and c=32 when the suite was written. Mode
// `stream` (whatever `--api`) uses a data delegate that counts and drops the bytes; mode `close` sends
// `Connection: close`, so every request opens a new TCP connection. Every completion handler and delegate
// message is counted, and one in eight checks that it runs on the session's delegate queue
// (`CallbackPlacement`; the JSON line's `off_queue_callbacks`, which must be 0).
//
// HTTPS: `--cacert FILE` becomes the session's only trust anchors through `tlsTrustRoots` (an FWNetworking
// addition). FoundationNetworking has no API for anchors: the suite sets SSL_CERT_FILE and CURL_CA_BUNDLE,
// and bench-foundation probes the server once and reports "n/a" when it is still not trusted.
// `--tls-resumption off`: FWNetworking turns its TLS session cache off (`tlsSessionResumption`, an
// FWNetworking addition), so every connection makes a full handshake on one session; FoundationNetworking
// has no such knob (it is n/a on HTTPS anyway). `on` needs nothing: one session resumes.
//
// Modes `download` and `upload`: `downloadTask(with:)` with a URLSessionDownloadDelegate that moves the
// file to `--file`, and a PUT with `uploadTask(with:fromFile:)`.

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
if arguments.mode == .idle { reportIdle(client: client, arguments: arguments) }
let configuration = URLSessionConfiguration.default
configuration.httpMaximumConnectionsPerHost = arguments.maxConnections
// Every request goes to the network, as curl's and AsyncHTTPClient's do (URLSession would otherwise serve
// nginx's static files from its cache).
configuration.urlCache = nil
#if FOUNDATION_NETWORKING
if arguments.url.scheme == "https" {
    do {
        _ = try await URLSession(configuration: .ephemeral).data(from: arguments.url)
    } catch {
        notApplicable(client, "FoundationNetworking cannot be made to trust the fixtures' root (no trust-anchor "
                      + "API, no server-trust challenge on Linux; its libcurl reads neither SSL_CERT_FILE nor "
                      + "CURL_CA_BUNDLE): \(error.localizedDescription)")
    }
}
#else
if arguments.tlsResumption == false { configuration.tlsSessionResumption = false }
if let seconds = arguments.busyPoll { configuration.busyPollInterval = seconds }
if let path = arguments.caCertificates {
    do {
        configuration.tlsTrustRoots = try TrustRoots.pemFile(path)
    } catch {
        fail("bench-fw", "cannot read the CA file \(path): \(error)")
    }
}
#endif
let request = {
    var request = URLRequest(url: arguments.url)
    if arguments.mode == .close { request.setValue("close", forHTTPHeaderField: "Connection") }
    if arguments.mode == .upload { request.httpMethod = "PUT" }
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
                CallbackPlacement.shared.record(onQueue: session.delegateQueue)
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
#if !FOUNDATION_NETWORKING // async-executor (Scripts/bench-ab.sh drops this block for commits before fwExecutor)
case (.get, "async-executor"), (.close, "async-executor"):
    // `async` with the session's executor preferred (`fwExecutor`, an FWNetworking addition): every task
    // resumes where the completion handlers run. One resumption in eight checks it is the delegate queue.
    let session = URLSession(configuration: configuration)
    await measure(client: client, api: "async-executor", arguments: arguments) {
        await withTaskExecutorPreference(session.fwExecutor) {
            await loop.runAsync {
                do {
                    let (data, response) = try await session.data(for: request)
                    CallbackPlacement.shared.record(onQueue: session.delegateQueue)
                    return outcome(data.count, response, nil)
                } catch {
                    return .failure("\(error)")
                }
            }
        }
    }
#endif
case (.download, _), (.upload, _):
    let file = URL(fileURLWithPath: arguments.file ?? "")
    let delegate = FileDelegate(destination: file)
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    let uploading = arguments.mode == .upload
    measure(client: client, api: uploading ? "uploadTask(with:fromFile:)" : "downloadTask(with:)",
            arguments: arguments) {
        loop.run { complete in
            let task = uploading ? session.uploadTask(with: request, fromFile: file)
                : session.downloadTask(with: request)
            delegate.register(task, bytes: uploading ? FileDelegate.size(of: file) : 0, complete)
            task.resume()
        }
    }
default:
    fail("bench-\(client)", "unknown --api \(arguments.api ?? ""); use handler, async or async-executor")
}

/// A response with an accepted status (200; uploads: any 2xx) and this many body bytes, or the failure.
func outcome(_ bytes: Int?, _ response: URLResponse?, _ error: (any Error)?,
             accepting statuses: Range<Int> = 200..<201) -> RequestOutcome {
    if let error { return .failure("\(error)") }
    guard let status = (response as? HTTPURLResponse)?.statusCode, statuses.contains(status) else {
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
        CallbackPlacement.shared.record(onQueue: session.delegateQueue)
        lock.withLock { running[dataTask.taskIdentifier]?.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        CallbackPlacement.shared.record(onQueue: session.delegateQueue)
        guard let entry = lock.withLock({ running.removeValue(forKey: task.taskIdentifier) }) else { return }
        entry.complete(outcome(entry.bytes, task.response, error))
    }
}

/// Moves each finished download to `destination` (what an app does with the temporary file) and counts
/// its bytes; an upload counts the size of the file sent. Reports each task's outcome when it completes.
final class FileDelegate: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    private struct Entry {
        var bytes: Int
        var failure: String?
        let complete: @Sendable (RequestOutcome) -> Void
    }

    // `running`: under `lock` (registered from the loop's threads, read on the delegate queue).
    private let lock = NSLock()
    private var running: [Int: Entry] = [:]
    private let destination: URL

    init(destination: URL) {
        self.destination = destination
    }

    /// The size of the file at `url`, 0 when it cannot be read.
    static func size(of url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    func register(_ task: URLSessionTask, bytes: Int, _ complete: @escaping @Sendable (RequestOutcome) -> Void) {
        lock.withLock { running[task.taskIdentifier] = Entry(bytes: bytes, complete: complete) }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        CallbackPlacement.shared.record(onQueue: session.delegateQueue)
        do {
            if FileManager.default.fileExists(atPath: destination.path) {
                try FileManager.default.removeItem(at: destination)
            }
            try FileManager.default.moveItem(at: location, to: destination)
            let size = Self.size(of: destination)
            lock.withLock { running[downloadTask.taskIdentifier]?.bytes = size }
        } catch {
            lock.withLock { running[downloadTask.taskIdentifier]?.failure = "cannot move the download: \(error)" }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        CallbackPlacement.shared.record(onQueue: session.delegateQueue)
        guard let entry = lock.withLock({ running.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = entry.failure {
            entry.complete(.failure(failure))
        } else {
            entry.complete(outcome(entry.bytes, task.response, error, accepting: 200..<300))
        }
    }
}
