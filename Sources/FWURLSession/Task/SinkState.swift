import Foundation

// MARK: - SinkState
//
// What a task's response sink keeps between its calls: the body it collects, the completion handler the task
// was made with, a download's file. It is task state, so it lives in the task's core under the task's one
// lock (`URLSessionTask.withSink`), and the sinks themselves hold nothing: one `CollectingSink`, one
// `DataDelegateSink` and one `DownloadSink` serve every task. What a finished task lets go of (the body, the
// handler and what it captured, the file) is cleared here, in one place.

/// A task's sink state, in the task's core.
struct SinkState {
    /// The body gathered in memory: a completion-handler task's, or the body a collecting data delegate
    /// (`URLSessionDataCollectingDelegate`) is handed. Made when the response arrives.
    var collector: BodyCollector?
    /// The completion handler the task was made with, until it is called.
    var completion: SinkCompletion?
    /// A download task's file and resume state; nil for every other task.
    var download: DownloadSink.State?

    /// A data or upload task's state: `completion` when it was made with a handler.
    static func data(_ completion: CollectingSink.Completion? = nil) -> SinkState {
        SinkState(completion: completion.map(SinkCompletion.data))
    }

    /// A download task's state: `completion` when it was made with a handler.
    static func download(_ completion: DownloadSink.Completion?) -> SinkState {
        SinkState(completion: completion.map(SinkCompletion.download), download: DownloadSink.State())
    }

    /// Lets go of everything: the task handed its transfer over (`.becomeDownload`, `.becomeStream`) and ends
    /// without a completion; its successor has its own sink state.
    mutating func letGo() {
        self = SinkState()
    }
}

/// The completion handler a task was made with.
enum SinkCompletion {
    /// A data or upload task's: the whole body.
    case data(CollectingSink.Completion)
    /// A download task's: the file.
    case download(DownloadSink.Completion)
}
