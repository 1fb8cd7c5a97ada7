// The memory scenarios of issue 29: finished tasks held by the caller, and a reader that lags behind
// `bytes(from:)`.

import FWNetworking
import Foundation
import TestSupport

// MARK: - HeldTasks

/// Finished completion-handler tasks the caller keeps: they must hold their metadata, not their bodies.
enum HeldTasks {
    struct Growth {
        var grown: Int
        var trimmed: Int
        var failures: Int
    }

    /// Loads `url` `count` times, one after another, keeping every task; the RSS growth it cost.
    static func run(_ url: URL, count: Int, ephemeral: Bool, caFile: String?) -> Growth {
        let configuration: URLSessionConfiguration = ephemeral ? .ephemeral : .default
        if let caFile, let roots = try? Certificate.certificates(pemFile: caFile) {
            configuration.tlsTrustRoots = .certificates(roots)
        }
        let session = URLSession(configuration: configuration)
        // One request first: what the first connection and TLS handshake allocate once is not the tasks'.
        var failures = load(url, on: session) == nil ? 0 : 1
        ProcessResources.releaseFreeMemory()
        let before = ProcessResources.residentBytes
        var tasks: [URLSessionTask] = []
        for _ in 0..<count {
            let (task, error) = loadKeeping(url, on: session)
            tasks.append(task)
            if error != nil { failures += 1 }
        }
        let grown = ProcessResources.residentBytes - before
        ProcessResources.releaseFreeMemory()
        let trimmed = ProcessResources.residentBytes - before
        withExtendedLifetime(tasks) {}
        return Growth(grown: grown, trimmed: trimmed, failures: failures)
    }

    private static func load(_ url: URL, on session: URLSession) -> (any Error)? {
        loadKeeping(url, on: session).1
    }

    /// One completion-handler task, run to its end: the task and its error.
    private static func loadKeeping(_ url: URL, on session: URLSession) -> (URLSessionTask, (any Error)?) {
        let done = DispatchSemaphore(value: 0)
        let failure = LockedBox<(any Error)?>(URLError(.timedOut))
        let task = session.dataTask(with: url) { data, _, error in
            failure.withLock { $0 = error ?? (data?.isEmpty == false ? nil : URLError(.zeroByteResource)) }
            done.signal()
        }
        task.resume()
        _ = done.wait(timeout: .now() + 30)
        return (task, failure.withLock { $0 })
    }
}

// MARK: - LaggingReader

/// A `bytes(from:)` reader slower than the network: only the unread window may be held.
enum LaggingReader {
    static func run(_ url: URL, pauseMilliseconds: Int) -> ProbeOutcome {
        let result = LockedBox<ProbeOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            var count = 0
            do {
                for try await _ in try await URLSession(configuration: .ephemeral).bytes(from: url).0 {
                    count += 1
                    if count % (1 << 20) == 0 { try await Task.sleep(for: .milliseconds(pauseMilliseconds)) }
                }
                result.withLock { $0 = ProbeOutcome(bytes: count) }
            } catch {
                result.withLock { $0 = ProbeOutcome(error: error as? URLError ?? URLError(.unknown), bytes: count) }
            }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 300)
        return result.withLock { $0 } ?? ProbeOutcome(error: URLError(.unknown), bytes: -1)
    }
}
