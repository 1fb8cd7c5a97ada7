import Foundation
import FWNetworking

// MARK: - Background downloads
//
//   --background ID   download every URL (each with its -o FILE) in a durable session of identifier ID
//                     (`URLSessionConfiguration.background(withIdentifier:)`, journal under
//                     $XDG_CACHE_HOME/fwnetworking/background/ID). A run that is killed leaves its downloads
//                     in the journal; running the same command again re-attaches them and fetches only what
//                     is missing (Range + If-Range; the whole file again if the server's validator changed).
//                     A second fwcurl running on the same ID at the same time fails with exit status 23.
//
// Each task's description is its output path, so a re-attached task knows where its file goes. A URL whose
// output already has a journaled task is not fetched a second time. Redirects are followed (a background
// download has nobody to ask); `-f` fails an HTTP status of 400 or more (22) and writes no file.

extension Options {
    /// Parses `--background ID`; false when `argument` is something else.
    mutating func parseBackground(_ argument: String, value: (String) throws(UsageError) -> String)
        throws(UsageError) -> Bool {
        guard argument == "--background" else { return false }
        let identifier = try value(argument)
        guard !identifier.isEmpty else { throw UsageError(description: "--background needs an identifier") }
        background = identifier
        return true
    }
}

/// Runs the downloads of `options` in the durable session `identifier`; curl's exit status.
func fetchInBackground(_ options: Options, identifier: String, configuration: URLSessionConfiguration) async -> Int32 {
    guard options.outputFiles.count == options.urls.count else {
        Terminal.error("fwcurl: --background needs an -o FILE for each URL")
        return ExitCode.usage
    }
    configuration.identifier = identifier
    let run = BackgroundRun(fail: options.fail, verbose: options.verbose)
    let session = URLSession(configuration: configuration, delegate: run, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    var tasks = session.currentTasks
    let journaled = Set(tasks.compactMap(\.taskDescription))
    for task in tasks where options.verbose {
        Terminal.error("* re-attached \(task.taskDescription ?? "-") (task \(task.taskIdentifier))")
    }
    for index in options.urls.indices {
        let output = absolutePath(options.outputFiles[index])
        guard !journaled.contains(output) else { continue }
        let request: URLRequest
        do {
            request = try options.request(forURLAt: index, resumeOffset: nil)
        } catch {
            Terminal.error("fwcurl: (26) \(error.localizedDescription)")
            return ExitCode.readError
        }
        let task = session.downloadTask(with: request)
        task.taskDescription = output
        tasks.append(task)
        task.resume()
    }
    return await run.wait(for: tasks.count)
}

private func absolutePath(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}

/// The delegate of a `--background` run: moves each finished file to its task's output and counts the
/// completions. `@unchecked Sendable`: `stored` is read and written only under `lock`; the rest is immutable.
private final class BackgroundRun: NSObject, URLSessionDownloadDelegate, @unchecked Sendable { // `stored`: under `lock`
    private struct State {
        var completed = 0
        var expected: Int?
        var status: Int32 = 0
        var waiter: CheckedContinuation<Int32, Never>?
    }

    private let fail: Bool
    private let verbose: Bool
    private let lock = NSLock()
    private var stored = State() // under `lock`

    private func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }

    init(fail: Bool, verbose: Bool) {
        self.fail = fail
        self.verbose = verbose
    }

    /// Waits until `count` tasks completed; the last failure's exit status, else 0.
    func wait(for count: Int) async -> Int32 {
        await withCheckedContinuation { continuation in
            let ready = withLock { state -> Int32? in
                state.expected = count
                guard state.completed < count else { return state.status }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let output = downloadTask.taskDescription else { return }
        if fail, let status = (downloadTask.response as? HTTPURLResponse)?.statusCode, status >= 400 {
            Terminal.error("fwcurl: (22) The requested URL returned error: \(status)")
            withLock { $0.status = ExitCode.httpError }
            return
        }
        do {
            if FileManager.default.fileExists(atPath: output) { try FileManager.default.removeItem(atPath: output) }
            try FileManager.default.moveItem(atPath: location.path, toPath: output)
        } catch {
            Terminal.error("fwcurl: (23) cannot write \(output): \(error.localizedDescription)")
            withLock { $0.status = 23 }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        if verbose, metrics.restartedFromZero {
            Terminal.error("* \(task.taskDescription ?? "-"): the server's copy changed; started over from byte 0")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            let urlError = error as? URLError ?? URLError(.unknown)
            let code: Int32 = [.cannotOpenFile, .cannotCreateFile, .cannotWriteToFile].contains(urlError.code) ? 23
                : urlError.code == .timedOut ? 28 : urlError.code == .cannotConnectToHost ? 7 : 56
            Terminal.error("fwcurl: (\(code)) \(urlError.localizedDescription)")
            withLock { $0.status = code }
        }
        let waiter = withLock { state -> (CheckedContinuation<Int32, Never>, Int32)? in
            state.completed += 1
            guard let expected = state.expected, state.completed >= expected, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.status)
        }
        if let (continuation, status) = waiter { continuation.resume(returning: status) }
    }
}
