import Foundation
import FWNetworking
import TestSupport

// MARK: - The four ways of running a request

extension FaultSuite {
    /// How the measured request is run.
    enum API: String, CaseIterable, Sendable {
        case completionHandler, delegate, async, download

        /// Whether the row's restrictive timeout is the session's (else the request's own).
        var restrictsOnTheSession: Bool { self == .delegate || self == .download }
    }

    /// How a request ended.
    struct Outcome: Sendable {
        var error: URLError?
        var bodyCount = 0
        var seconds = 0.0
    }

    /// Runs `request` through `api` on the fixture's session and waits (bounded) for its end.
    static func run(_ request: URLRequest, _ api: API, on fixture: Fixture, bound: Double) async -> Outcome? {
        let result = LockedBox<Outcome?>(nil)
        let start = ContinuousClock.now
        let finish: @Sendable (URLError?, Int) -> Void = { error, count in
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            result.withLock { $0 = $0 ?? Outcome(error: error, bodyCount: count, seconds: seconds) }
        }
        let session = fixture.session
        switch api {
        case .completionHandler:
            session.dataTask(with: request) { data, _, error in finish(error as? URLError, data?.count ?? 0) }
                .resume()
        case .delegate:
            let task = session.dataTask(with: request)
            task.delegate = fixture.delegate
            fixture.delegate.onComplete.withLock { $0 = finish }
            task.resume()
        case .async:
            Task {
                do {
                    let (data, _) = try await session.data(for: request)
                    finish(nil, data.count)
                } catch {
                    finish(error as? URLError ?? URLError(.unknown), 0)
                }
            }
        case .download:
            session.downloadTask(with: request) { location, _, error in
                let count = location.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path) }?[.size]
                finish(Self.keepingNoPartialFile(error as? URLError), (count as? Int) ?? 0)
            }.resume()
        }
        guard await waitFor(bound + 5, { result.withLock { $0 } != nil }) else { return nil }
        return result.withLock { $0 }
    }

    /// A failed download that can be resumed keeps its partial file for the resume data: the row owns it and
    /// removes it (the error is returned as it was).
    private static func keepingNoPartialFile(_ error: URLError?) -> URLError? {
        if let data = error?.downloadTaskResumeData, let resume = try? DownloadResumeData(data) {
            try? FileManager.default.removeItem(atPath: resume.temporaryFilePath)
        }
        return error
    }

    /// Polls `condition` every `interval` without blocking a thread, until it holds or `timeout` seconds pass.
    static func waitFor(_ timeout: Double, every interval: Duration = .milliseconds(10),
                        _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: interval)
        }
        return true
    }
}

// MARK: - FaultDelegate

/// The data delegate of the delegate rows: counts the body, reports the completion.
final class FaultDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let received = LockedBox(0)
    let onComplete = LockedBox<(@Sendable (URLError?, Int) -> Void)?>(nil)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.withLock { $0 += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let count = received.withLock { $0 }
        onComplete.withLock { $0 }?(error as? URLError, count)
    }
}
