import Foundation
import FWTransport

// MARK: - DurableTaskRecorder
//
// Keeps one download task's journal record in step with its partial file, for a durable (background)
// session, and counts the task's network retries. The download sink calls it from the task's drain (one call
// at a time):
//
//   began     the response arrived and the file is open (new, continued or restarted): the record gets the
//             partial file, its length and the response's validators, and is written at once
//   wrote     a piece was appended: the record is rewritten only every `byteCadence` bytes or `timeCadence`,
//             whichever comes first, after the file's bytes were synced (the record never vouches for
//             bytes that are not on disk); body bytes arrived, so the retries start counting again
//   kept      a failure in the middle of the body is retried: the record vouches for the synced file
//   failed    the task ended with an error: a cancelled task leaves nothing behind (record and file go,
//             unless `cancel(byProducingResumeData:)` asked for the file); any other failure syncs and keeps
//             a resumable download for the next process, and drops one that cannot be resumed
//   finished  the body is complete: the record goes (the file is handed over and removed by the sink)
//
// A record that cannot be written (a full disk) fails the task with `cannotWriteToFile`; the previous
// record stays whole. The retry side (`URLSessionTask+DurableRetry.swift`): `scheduleRetry` takes the
// request to send again and answers the wait (1 s, doubling, at most 30 s; nil once `maxRetries` failures
// in a row were retried), `takeRetry` hands the request over when the wait is over.
//
// All mutable state is one value (`State`) behind one lock, reached through `update` only; nothing is
// called and no file is touched with the lock held.

/// The journal side of one durable download task.
///
/// `Sendable`: `journal` and `taskIdentifier` are immutable; the rest is `state`, a `LockedBox`.
final class DurableTaskRecorder: Sendable {
    /// Rewrite the record after this many new bytes…
    static let byteCadence: Int64 = 4 << 20
    /// …or after this long, whichever comes first.
    static let timeCadence: Duration = .milliseconds(500)

    /// How many failures in a row are retried (`URLSessionTask+DurableRetry.swift`).
    static let maxRetries = 5
    /// The failures that are retried.
    static let retriedCodes: Set<URLError.Code> = [.networkConnectionLost, .cannotConnectToHost, .timedOut,
                                                   .cannotFindHost, .dnsLookupFailed]

    /// The recorder's mutable state.
    private struct State {
        /// The record as last written (or to be written).
        var record: JournalRecord
        /// When it was last written.
        var journaledAt: ContinuousClock.Instant?
        /// Failures retried since body bytes last arrived.
        var retries = 0
        /// The request to send when the retry's wait is over.
        var pendingRetry: URLRequest?
    }

    let journal: BackgroundJournal
    /// The task's identifier (the record's).
    let taskIdentifier: Int
    private let state: LockedBox<State>

    init(journal: BackgroundJournal, record: JournalRecord) {
        self.journal = journal
        self.taskIdentifier = record.taskIdentifier
        self.state = LockedBox(State(record: record))
    }

    /// The one door to `state`: `change` must not call out.
    private func update<Result>(_ change: (inout State) -> Result) -> Result {
        state.withLock(change)
    }

    /// Where the task's partial file is created.
    var partialFileTemplate: String {
        journal.partialFileTemplate(taskIdentifier)
    }

    /// The validator the record keeps (a strong `ETag`, else `Last-Modified`), for `If-Range`.
    var validator: String? {
        update { $0.record.validator }
    }

    // MARK: Retries

    /// Keeps `request` to send again and returns the wait before it (1 s, doubling, at most 30 s); nil when
    /// `maxRetries` failures in a row were retried already.
    func scheduleRetry(_ request: URLRequest) -> Double? {
        update { state in
            guard state.retries < Self.maxRetries else { return nil }
            state.retries += 1
            state.pendingRetry = request
            return min(30, Double(1 << (state.retries - 1)))
        }
    }

    /// The request kept by `scheduleRetry`, once (nil when there is none).
    func takeRetry() -> URLRequest? {
        update { state in
            defer { state.pendingRetry = nil }
            return state.pendingRetry
        }
    }

    // MARK: Inputs

    /// The response arrived; `file` holds what the download has so far.
    func began(_ file: DownloadFile, response: URLResponse, task: URLSessionTask) throws(URLError) {
        let http = response as? HTTPURLResponse
        let expected = response.expectedContentLength
        try file.sync()
        try journal(task: task, now: ContinuousClock.now) { record in
            record.partialFilePath = file.url.path
            record.bytesWritten = file.length
            record.entityTag = http?.value(forHTTPHeaderField: "ETag")
            record.lastModified = http?.value(forHTTPHeaderField: "Last-Modified")
            if let range = ContentRange(http?.value(forHTTPHeaderField: "Content-Range")), http?.statusCode == 206 {
                record.expectedTotalBytes = range.completeLength
            } else {
                record.expectedTotalBytes = expected >= 0 ? expected : nil
            }
        }
    }

    /// A piece was appended to `file`.
    func wrote(_ file: DownloadFile, task: URLSessionTask) throws(URLError) {
        let now = ContinuousClock.now
        let due = update { state -> Bool in
            state.retries = 0
            if file.length - state.record.bytesWritten >= Self.byteCadence { return true }
            guard let last = state.journaledAt else { return true }
            return now - last >= Self.timeCadence
        }
        guard due else { return }
        try file.sync()
        try journal(task: task, now: now) { $0.bytesWritten = file.length }
    }

    /// The body stopped at `file.length` bytes and the task goes on: the record vouches for the synced file.
    func kept(_ file: DownloadFile, task: URLSessionTask) throws(URLError) {
        try file.sync()
        try journal(task: task, now: ContinuousClock.now) { $0.bytesWritten = file.length }
    }

    /// The task failed with `error` (after the sink settled it: `downloadTaskResumeData` is there when the
    /// sink kept the partial file); returns the error the task completes with (a plain cancel's loses the
    /// resume data, whose file is gone).
    func failed(_ error: URLError, producingResumeData: Bool, task: URLSessionTask) -> URLError {
        let record = update { $0.record }
        let kept = error.downloadTaskResumeData != nil
        if error.code == .cancelled || !kept {
            journal.remove(record.taskIdentifier)
            guard kept, !producingResumeData else { return error }
            if let path = record.partialFilePath { unlink(path) }
            var info = error.userInfo
            info[NSURLSessionDownloadTaskResumeData] = nil
            return URLError(error.code, userInfo: info)
        }
        // Resumable: the record keeps the bytes the partial file now holds (synced by the sink's close).
        if let data = error.downloadTaskResumeData, let resume = try? DownloadResumeData(data) {
            let fd = open(resume.temporaryFilePath, O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = fdatasync(fd)
                close(fd)
            }
            try? journal(task: task, now: ContinuousClock.now) { $0.bytesWritten = resume.bytesReceived }
        }
        return error
    }

    /// The body is complete: the record goes.
    func finished(task: URLSessionTask) {
        journal.remove(taskIdentifier)
    }

    // MARK: Writing

    private func journal(task: URLSessionTask, now: ContinuousClock.Instant,
                         _ change: (inout JournalRecord) -> Void) throws(URLError) {
        let description = task.taskDescription
        let record = update { state -> JournalRecord in
            change(&state.record)
            state.record.taskDescription = description
            state.journaledAt = now
            return state.record
        }
        try journal.write(record)
    }
}
