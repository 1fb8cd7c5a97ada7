import Foundation
import FWTransport

// MARK: - DownloadSink
//
// A download task's response goes into a file, in the task's drain on the delegate queue. The response
// decides where: a fresh temporary file; or, for a task made from resume data, the partial file — appended
// to when the server answers 206 from the right offset, emptied first when it sends the whole resource
// again (200). On success the file is handed over (the delegate's `didFinishDownloadingTo`, before the
// metrics, or the completion handler) and removed when that returns; on failure a resumable partial file
// is kept and resume data joins the error.

/// Where a download task's body goes, and how it resumes.
final class DownloadSink: ResponseSink {
    typealias Completion = @Sendable (URL?, URLResponse?, (any Error)?) -> Void

    /// The file and the resume state.
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

    let state = LockedBox(State())
    /// nil: the delegate hears the outcome.
    private let completion: Completion?

    init(completion: Completion?) {
        self.completion = completion
    }

    // MARK: ResponseSink

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {
        try receive(nonHTTP: response, for: task)
    }

    /// Any response: an HTTP one may continue a resumed download (206) or restart it (200).
    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError) {
        let download = task.asTask(URLSessionDownloadTask.self)
        let contentLength = response.expectedContentLength
        let (file, isResuming, journal) = state.withLock { ($0.file, $0.isResuming, $0.journal) }
        var resumedOffset: Int64?
        var expectedTotal = contentLength
        if let file, isResuming {
            let http = response as? HTTPURLResponse
            let range = ContentRange(http?.value(forHTTPHeaderField: "Content-Range"))
            if http?.statusCode == 206, let range, range.first == file.length {
                resumedOffset = file.length
                expectedTotal = range.completeLength ?? (contentLength >= 0 ? file.length + contentLength : -1)
            } else {
                let restarted = file.length > 0
                try file.truncate()
                if http?.statusCode == 200 { resumedOffset = 0 }
                state.withLock { $0.restartedFromZero = restarted }
            }
        } else {
            let created = try DownloadFile.create(template: journal?.partialFileTemplate)
            state.withLock { $0.file = created }
        }
        if let journal, let file = state.withLock({ $0.file }) {
            try journal.began(file, response: response, task: task)
        }
        state.withLock { $0.expectedTotalBytes = expectedTotal }
        task.core.withLock { core in
            core.machine.counts.expectedToReceive = expectedTotal
            if let resumedOffset { core.machine.counts.received = resumedOffset }
        }
        task.updateProgress()
        if let resumedOffset {
            DelegateRouter.didResume(task: download, atOffset: resumedOffset, expected: expectedTotal)
        }
    }

    func receive(_ bytes: [UInt8], for task: URLSessionTask) throws(URLError) {
        guard let file = state.withLock({ $0.file }) else { return }
        try file.append(bytes)
        try state.withLock { $0.journal }?.wrote(file, task: task)
        let expected = state.withLock { $0.expectedTotalBytes }
        DelegateRouter.didWriteData(task: task.asTask(URLSessionDownloadTask.self), Int64(bytes.count),
                                    total: file.length, expected: expected)
    }

    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError? {
        let (journal, producingResumeData) = state.withLock { state in
            state.isSettled = true
            return (state.journal, state.resumeDataHandler != nil)
        }
        if let error {
            let settled = settleFailure(error, of: task)
            return journal?.failed(settled, producingResumeData: producingResumeData, task: task) ?? settled
        }
        journal?.finished(task: task)
        // The delegate gets the file before the metrics and the completion (a handler gets it at the end).
        if completion == nil { handOverFile(of: task, response: response) }
        return nil
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        guard let completion else {
            DelegateRouter.didComplete(task: task, error: error)
            return
        }
        if let error {
            completion(nil, nil, error)
        } else {
            handOverFile(of: task, response: response)
        }
    }

    /// Keeps `handler` for the resume data of a failure still to come; false when the outcome is settled.
    func awaitResumeData(_ handler: @escaping @Sendable (Data?) -> Void) -> Bool {
        state.withLock { state in
            guard !state.isSettled else { return false }
            state.resumeDataHandler = handler
            return true
        }
    }

    // MARK: Outcomes

    /// The download succeeded: hands the file over, then removes it.
    private func handOverFile(of task: URLSessionTask, response: URLResponse?) {
        let file = state.withLock { state -> DownloadFile? in
            defer { state.file = nil }
            return state.file
        }
        file?.close()
        if let completion {
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
        let encoded = task.core.withLock { $0.machine.counts.bodyIsEncoded }
        let (file, handler, resumeData) = state.withLock { state in
            defer {
                state.file = nil
                state.resumeDataHandler = nil
            }
            let resumeData = encoded ? nil : Self.resumeData(state, request: request, response: response)
            return (state.file, state.resumeDataHandler, resumeData)
        }
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
