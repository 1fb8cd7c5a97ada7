import Foundation
import FWNetworking

// MARK: - Pipelining option
//
//   --pipeline   send the URLs' GET (or HEAD) requests back to back on one connection, before their
//                responses came (HTTP/1.1 pipelining, `URLSessionConfiguration.httpShouldUsePipelining`, up to
//                `httpPipeliningDepth` at once): the transfers run together and their results are reported in
//                the order of the URLs. Every URL must have the same origin (scheme, host and port), and no
//                request body may be given (-d, -T, -F). Requests the server left unanswered when it closed
//                are sent again on a new connection.

/// What `--pipeline` asks for.
struct PipelineOptions: Sendable {
    /// `--pipeline`.
    var enabled = false

    /// The usage lines of the flag.
    static let usage = """
          --pipeline       send the URLs (one origin, GET or HEAD) back to back on one connection (HTTP/1.1
                           pipelining); the results come in the order of the URLs
        """

    /// Applies the flag to the session's configuration.
    func apply(to configuration: URLSessionConfiguration) {
        if enabled { configuration.httpShouldUsePipelining = true }
    }
}

extension Options {
    /// Parses `--pipeline` into `pipeline`; false when `argument` is not it.
    mutating func parsePipelining(_ argument: String) -> Bool {
        guard argument == "--pipeline" else { return false }
        pipeline.enabled = true
        return true
    }

    /// What `--pipeline` cannot be combined with.
    func validatePipelining() throws(UsageError) {
        guard pipeline.enabled else { return }
        let origins = Set(urls.map { url in
            "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
        })
        if origins.count > 1 { throw UsageError(description: "--pipeline needs URLs of one origin") }
        if urls.contains(where: { !["http", "https"].contains($0.scheme?.lowercased() ?? "") }) {
            throw UsageError(description: "--pipeline takes http:// and https:// URLs")
        }
        if body != nil || uploadFile != nil || !formFields.isEmpty {
            throw UsageError(description: "--pipeline sends GET or HEAD requests only (no -d, -T or -F)")
        }
        if retry.count > 0 || background != nil {
            throw UsageError(description: "--pipeline cannot be used with --retry or --background")
        }
    }
}

// MARK: - Running the transfers together

/// Runs every URL's transfer at once on `session` (so that the pool pipelines them); the results come in the
/// order of the URLs. Nil (after a message) when a request cannot be made.
func fetchPipelined(_ options: Options, session: URLSession,
                    makeTrace: @escaping @Sendable () -> FetchTrace) async -> [FetchResult]? {
    var requests: [(Int, TransferPlan, URLRequest)] = []
    for index in options.urls.indices {
        let plan = options.plan(forURLAt: index)
        do {
            requests.append((index, plan, try options.request(forURLAt: index, resumeOffset: plan.resumeOffset)))
        } catch {
            Terminal.error("fwcurl: (26) \(error.localizedDescription)")
            return nil
        }
    }
    let results = await withTaskGroup(of: (Int, FetchResult).self) { group in
        for (index, plan, request) in requests {
            // Each transfer's start is queued before the next transfer is made, so the requests reach the
            // pool, and the wire, in the order of the URLs (the tasks of a group run in any order).
            await withCheckedContinuation { queued in
                group.addTask {
                    let transfer = Transfer(plan: plan, trace: makeTrace())
                    return (index, await transfer.run(request, uploading: nil, on: session, queued: { queued.resume() }))
                }
            }
        }
        var collected: [Int: FetchResult] = [:]
        for await (index, result) in group { collected[index] = result }
        return collected
    }
    return options.urls.indices.compactMap { results[$0] }
}
