import Foundation
import FWTransport

// MARK: - DownloadSink
//
// A download task's response goes into a file, in the task's drain on the delegate queue. The response
// decides where: a fresh temporary file; or, for a task made from resume data, the partial file — appended
// to when the server answers 206 from the right offset, emptied first when it sends the whole resource
// again (200). On success the file is handed over (the delegate's `didFinishDownloadingTo`, before the
// metrics, or the completion handler) and removed when that returns; on failure a resumable partial file
// is kept and resume data joins the error. What a download keeps (`State`) is in the task's core
// (`SinkState.download`, through `withDownload`): the sink itself holds nothing, and one serves every task.

/// Where a download task's body goes, and how it resumes.
final class DownloadSink: ResponseSink {
    typealias Completion = @Sendable (URL?, URLResponse?, (any Error)?) -> Void

    /// The file and the resume state, in the task's core.
    struct State {
        /// The file the body goes to; created (or reopened, when resuming) when the response arrives.
        var file: DownloadFile?
        /// The task was made from resume data: its response continues (206) or replaces (200) `file`.
        var isResuming = false
        /// The body length the response announced, counting the bytes resumed from; -1 when unknown.
        var expectedTotalBytes: Int64 = -1
        /// `cancel(byProducingResumeData:)` is waiting for the resume data.
        var resumeDataHandler: (@Sendable (Data?) -> Void)?
        /// The outcome was settled: a later `cancel(byProducingResumeData:)` gets nil.
        var isSettled = false
        /// A resumed download's partial file was emptied because the server sent the whole resource (a
        /// changed validator or a 200 for a range): reported in the task's metrics.
        var restartedFromZero = false
        /// A durable session's journal of this download (Background/DurableTaskRecorder.swift); nil otherwise.
        var journal: DurableTaskRecorder?
    }

    /// The one instance: the sink keeps nothing of its own.
    static let shared = DownloadSink()

    private init() {}

    // MARK: ResponseSink

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {
        try receive(nonHTTP: response, for: task)
    }

    /// Any response: an HTTP one may continue a resumed download (206) or restart it (200).
    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError) {
        let download = task.asTask(URLSessionDownloadTask.self)
        let contentLength = response.expectedContentLength
        let (current, isResuming, journal) = task.withDownload { ($0.file, $0.isResuming, $0.journal) }
        var resumedOffset: Int64?
        var expectedTotal = contentLength
        var restarted = false
        let file: DownloadFile
        if let current, isResuming {
            file = current
            let http = response as? HTTPURLResponse
            let range = ContentRange(http?.value(forHTTPHeaderField: "Content-Range"))
            if http?.statusCode == 206, let range, range.first == file.length {
                resumedOffset = file.length
                expectedTotal = range.completeLength ?? (contentLength >= 0 ? file.length + contentLength : -1)
            } else {
                restarted = file.length > 0
                try file.truncate()
                if http?.statusCode == 200 { resumedOffset = 0 }
            }
        } else {
            file = try DownloadFile.create(template: journal?.partialFileTemplate)
        }
        task.withDownload { state in
            state.file = file
            state.expectedTotalBytes = expectedTotal
            if restarted { state.restartedFromZero = true }
        }
        try journal?.began(file, response: response, task: task)
        task.update { machine in
            machine.counts.expectedToReceive = expectedTotal
            if let resumedOffset { machine.counts.received = resumedOffset }
        }
        task.updateProgress()
        if let resumedOffset {
            DelegateRouter.didResume(task: download, atOffset: resumedOffset, expected: expectedTotal)
        }
    }

    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError) {
        let (file, journal, expected) = task.withDownload { ($0.file, $0.journal, $0.expectedTotalBytes) }
        guard let file else { return }
        try file.append(bytes)
        try journal?.wrote(file, task: task)
        DelegateRouter.didWriteData(task: task.asTask(URLSessionDownloadTask.self), Int64(bytes.count),
                                    total: file.length, expected: expected)
        task.bodyPieces?.giveBack(bytes) // written out: its pages serve a later read
    }

    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError? {
        let (journal, producingResumeData, hasHandler) = task.withSink { sink in
            sink.download?.isSettled = true
            return (sink.download?.journal, sink.download?.resumeDataHandler != nil, sink.completion != nil)
        }
        if let error {
            let settled = settleFailure(error, of: task)
            return journal?.failed(settled, producingResumeData: producingResumeData, task: task) ?? settled
        }
        journal?.finished(task: task)
        // The delegate gets the file before the metrics and the completion (a handler gets it at the end).
        if !hasHandler { handOverFile(of: task, response: response) }
        return nil
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        guard case .download(let completion) = task.withSink({ $0.completion }) else {
            DelegateRouter.didComplete(task: task, error: error)
            return
        }
        if let error {
            task.withSink { $0.completion = nil }
            completion(nil, nil, error)
        } else {
            handOverFile(of: task, response: response)
        }
    }

    // MARK: Outcomes

    /// The download succeeded: hands the file over (to the completion handler, which then leaves the task, or
    /// to the delegate), then removes it.
    private func handOverFile(of task: URLSessionTask, response: URLResponse?) {
        let (file, completion) = task.withSink { sink -> (DownloadFile?, SinkCompletion?) in
            defer {
                sink.download?.file = nil
                sink.completion = nil
            }
            return (sink.download?.file, sink.completion)
        }
        file?.close()
        if case .download(let completion) = completion {
            completion(file?.url, response, nil)
        } else if let file {
            _ = DelegateRouter.didFinishDownloading(task: task.asTask(URLSessionDownloadTask.self), to: file.url)
        }
        file?.remove()
    }

    /// The download failed with `error`: keeps the partial file and adds resume data to the error when the
    /// download can be resumed, removes the file otherwise; answers `cancel(byProducingResumeData:)`.
    private func settleFailure(_ error: URLError, of task: URLSessionTask) -> URLError {
        let request = task.currentRequest
        let response = task.response as? HTTPURLResponse
        let encoded = task.read(\.machine.counts.bodyIsEncoded)
        // The file and the handler leave the task's state; the resume data is made after the lock.
        let stopped = task.withDownload { state in
            defer {
                state.file = nil
                state.resumeDataHandler = nil
            }
            return state
        }
        let (file, handler) = (stopped.file, stopped.resumeDataHandler)
        let resumeData = encoded ? nil : Self.resumeData(stopped, request: request, response: response)
        file?.close()
        if resumeData == nil { file?.remove() }
        handler?(resumeData)
        guard let resumeData else { return error }
        var info = error.userInfo
        info[NSURLSessionDownloadTaskResumeData] = resumeData
        return URLError(error.code, userInfo: info)
    }

    /// Resume data for the state a download stopped in: a GET whose 200 or 206 response had a strong ETag
    /// or a Last-Modified date and did not refuse ranges; nil otherwise.
    private static func resumeData(_ state: State, request: URLRequest?, response: HTTPURLResponse?) -> Data? {
        guard let file = state.file, let request, let url = request.url, (request.httpMethod ?? "GET") == "GET",
              let response, [200, 206].contains(response.statusCode),
              response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased() != "none" else { return nil }
        let resume = DownloadResumeData(
            url: url,
            headerFields: request.orderedHeaderFields.map { [$0.name, $0.value] },
            temporaryFilePath: file.url.path,
            bytesReceived: file.length,
            entityTag: response.value(forHTTPHeaderField: "ETag"),
            lastModified: response.value(forHTTPHeaderField: "Last-Modified"),
            expectedTotalBytes: state.expectedTotalBytes >= 0 ? state.expectedTotalBytes : nil)
        return resume.ifRangeValue == nil ? nil : resume.encoded()
    }
}

extension URLSessionTask {
    /// Reads or changes a download's state (`DownloadSink.State`, in the task's core) under the task's lock;
    /// a task that is no download has none, and `body` then changes a throwaway.
    final func withDownload<Result>(_ body: (inout DownloadSink.State) -> Result) -> Result {
        withSink { sink in
            var state = sink.download ?? DownloadSink.State()
            defer { if sink.download != nil { sink.download = state } }
            return body(&state)
        }
    }
}

// MARK: - Content-Range

/// A `Content-Range: bytes first-last/complete` value (RFC 9110 §14.4).
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    /// nil for `*` (unknown).
    var completeLength: Int64?

    init?(_ value: String?) {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count).split(separator: "/", maxSplits: 1)
        guard spec.count == 2 else { return nil }
        let bounds = spec[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
            return nil
        }
        self.first = first
        self.last = last
        if spec[1] == "*" {
            completeLength = nil
        } else {
            guard let complete = Int64(spec[1]), complete > last else { return nil }
            completeLength = complete
        }
    }
}
