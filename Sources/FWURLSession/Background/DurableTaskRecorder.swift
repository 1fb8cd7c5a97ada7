import Foundation
import FWTransport

// MARK: - DurableTaskRecorder
//
// Keeps one download task's journal record in step with its partial file, for a durable (background)
// session. The download sink calls it from the task's drain (one call at a time):
//
//   began     the response arrived and the file is open (new, continued or restarted): the record gets the
//             partial file, its length and the response's validators, and is written at once
//   wrote     a piece was appended: the record is rewritten only every `byteCadence` bytes or `timeCadence`,
//             whichever comes first, after the file's bytes were synced (the record never vouches for
//             bytes that are not on disk)
//   failed    the task ended with an error: a cancelled task leaves nothing behind (record and file go,
//             unless `cancel(byProducingResumeData:)` asked for the file); any other failure syncs and keeps
//             a resumable download for the next process, and drops one that cannot be resumed
//   finished  the body is complete: the record goes (the file is handed over and removed by the sink)
//
// A record that cannot be written (a full disk) fails the task with `cannotWriteToFile`; the previous
// record stays whole.

/// The journal side of one durable download task.
///
/// `@unchecked Sendable`: `progress` is a `LockedBox`; the other properties are immutable.
final class DurableTaskRecorder: @unchecked Sendable { // mutable state: `progress` (LockedBox)
    /// Rewrite the record after this many new bytes…
    static let byteCadence: Int64 = 4 << 20
    /// …or after this long, whichever comes first.
    static let timeCadence: Duration = .milliseconds(500)

    /// How often a failure before the response is retried (`URLSessionTask+DurableRetry.swift`).
    static let maxRetries = 5
    /// The failures that are retried.
    static let retriedCodes: Set<URLError.Code> = [.networkConnectionLost, .cannotConnectToHost, .timedOut,
                                                   .cannotFindHost, .dnsLookupFailed]

    let journal: BackgroundJournal
    /// The record as last written (or to be written).
    private let progress: LockedBox<(record: JournalRecord, journaledAt: ContinuousClock.Instant?)>
    /// The retries made so far.
    private let retries = LockedBox(0)

    init(journal: BackgroundJournal, record: JournalRecord) {
        self.journal = journal
        self.progress = LockedBox((record, nil))
    }

    /// Where the task's partial file is created.
    var partialFileTemplate: String {
        journal.partialFileTemplate(progress.withLock { $0.record.taskIdentifier })
    }

    /// The task's identifier.
    var taskIdentifier: Int { progress.withLock { $0.record.taskIdentifier } }

    /// The wait before the next retry (1 s, doubling, at most 30 s); nil when the retries are used up.
    func nextRetryDelay() -> Double? {
        retries.withLock { count in
            guard count < Self.maxRetries else { return nil }
            count += 1
            return min(30, Double(1 << (count - 1)))
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
        let due = progress.withLock { progress -> Bool in
            if file.length - progress.record.bytesWritten >= Self.byteCadence { return true }
            guard let last = progress.journaledAt else { return true }
            return now - last >= Self.timeCadence
        }
        guard due else { return }
        try file.sync()
        try journal(task: task, now: now) { $0.bytesWritten = file.length }
    }

    /// The task failed with `error` (after the sink settled it: `downloadTaskResumeData` is there when the
    /// sink kept the partial file); returns the error the task completes with (a plain cancel's loses the
    /// resume data, whose file is gone).
    func failed(_ error: URLError, producingResumeData: Bool, task: URLSessionTask) -> URLError {
        let record = progress.withLock { $0.record }
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
        let record = progress.withLock { progress -> JournalRecord in
            change(&progress.record)
            progress.record.taskDescription = description
            progress.journaledAt = now
            return progress.record
        }
        try journal.write(record)
    }
}
