import Foundation

// MARK: - TaskDelegateReportingSink
//
// The sink of the async `data(for:delegate:)` family: the body is collected for the call's result (by
// `CollectingSink`, into the task's `SinkState`), and the delegate given to the call — the task's own delegate — hears
// the data messages too, as it does with Apple's URLSession: `didReceive response` (delivery waits for its
// disposition: `.cancel` cancels the task, `.becomeDownload` and `.becomeStream` cannot apply to a collected
// body and go on as `.allow`) and every `didReceive data`. The session's delegate hears neither
// (`DelegateRouter.dataFallback`).

/// Collects the body through `CollectingSink` and reports the data messages to the task's own data delegate.
final class TaskDelegateReportingSink: ResponseSink {
    /// The one instance: the sink keeps nothing of its own.
    static let shared = TaskDelegateReportingSink()

    private let collector = CollectingSink.shared

    private init() {}

    var collectsBody: Bool { true }

    func collectedBody(of task: URLSessionTask) -> Data? {
        collector.collectedBody(of: task)
    }

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {
        try collector.receive(response, for: task)
        report(response, for: task)
    }

    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError) {
        try collector.receive(nonHTTP: response, for: task)
        report(response, for: task)
    }

    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError) {
        try task.collect(bytes) // as `collector` does, but the piece goes on to the delegate
        let dataTask = task.asTask(URLSessionDataTask.self)
        DelegateRouter.dataDelegate(ofCollecting: dataTask)?.urlSession(
            task.session, dataTask: dataTask, didReceive: Data(adopting: bytes, recycling: task.bodyPieces))
    }

    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError? {
        collector.settle(error, response: response, for: task)
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        collector.complete(with: error, response: response, for: task)
    }

    func willCache(_ proposal: CachedURLResponse, for task: URLSessionTask,
                   decide: @escaping @Sendable (CachedURLResponse?) -> Void) {
        collector.willCache(proposal, for: task, decide: decide)
    }

    /// `didReceive response` to the task's own data delegate, with delivery held for its disposition; nothing
    /// when the task has none.
    private func report(_ response: URLResponse, for task: URLSessionTask) {
        let dataTask = task.asTask(URLSessionDataTask.self)
        guard let delegate = DelegateRouter.dataDelegate(ofCollecting: dataTask) else { return }
        task.hold(.awaitingDisposition)
        delegate.urlSession(task.session, dataTask: dataTask, didReceive: response) { disposition in
            dataTask.answer(disposition == .becomeDownload || disposition == .becomeStream ? .allow : disposition)
        }
    }
}
