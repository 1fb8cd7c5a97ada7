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
// download has nobody to ask); `-f` fails an HTTP status of 400 or more (22) and writes no file. The TLS
// flags apply as to any transfer (`--cacert` through the configuration; `-k`, `--pinnedpubkey` and the
// pinning-lab flags through `TLSPolicy`, with their exit codes), and on a terminal each download draws the
// progress meter (`BackgroundRun.swift`).

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
func fetchInBackground(_ options: Options, identifier: String, configuration: URLSessionConfiguration,
                       policy: TLSPolicy) async -> Int32 {
    guard options.outputFiles.count == options.urls.count else {
        Terminal.error("fwcurl: --background needs an -o FILE for each URL")
        return ExitCode.usage
    }
    configuration.identifier = identifier
    let meter = options.plan(forURLAt: 0).downloadMeter
    let run = BackgroundRun(fail: options.fail, verbose: options.verbose, meter: meter, policy: policy)
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
    return await run.wait(for: tasks.count, on: session)
}

private func absolutePath(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}
