import Foundation
import FWTransport

// MARK: - DurableSession
//
// What makes a `URLSessionConfiguration.background(withIdentifier:)` session durable on Linux. When the
// session is created, the identifier's journal (`BackgroundJournal`) is opened and locked, and its records
// are read: a record that cannot be trusted is logged and set aside. If the session has a delegate, every
// record becomes a task again (`reattach`), with its old `taskIdentifier` and `taskDescription`, and is
// resumed at once: a download continues from its partial file with `Range` + `If-Range` (the server's 200
// instead of a 206 starts it over from byte 0, reported by `URLSessionTaskMetrics.restartedFromZero`); an
// upload from a file is sent again from its start. Without a delegate the records wait for a session that
// has one.
//
// Each download or upload-from-file task made in the session is journaled (`DurableTaskRecorder`, the
// upload's record when it is made). When the delegate queue has delivered every re-attached task's
// completion, the delegate hears `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
//
// When the journal is locked by another live process, or cannot be created, the session still works but
// is not durable: its download and upload tasks fail when resumed, with the `URLError` that says why
// (`cannotOpenFile` / `cannotCreateFile`), and the reason is logged once.

/// A background session's journal and its re-attached tasks.
///
/// `Sendable`: everything is immutable but `state`, a `LockedBox` reached through `update` only (nothing is
/// called with its lock held).
final class DurableSession: Sendable {
    /// What changes while the session lives.
    private struct State {
        /// The records read when the session was created, not yet made tasks again.
        var unattached: [JournalRecord]
        /// Re-attached tasks whose completion was not delivered yet; the delegate hears
        /// `urlSessionDidFinishEvents` when the last one is.
        var pending: Set<Int> = []
    }

    let identifier: String
    /// The locked journal; nil when it could not be opened (`openError` says why).
    let journal: BackgroundJournal?
    let openError: URLError?
    /// The identifiers the journal already uses: new tasks are numbered after them.
    let highestJournaledIdentifier: Int
    private let state: LockedBox<State>
    /// The records that could not be trusted (also logged).
    let problems: [BackgroundJournal.Problem]

    /// The durable side of a session with `configuration`; nil unless it has a background identifier.
    static func make(_ configuration: URLSessionConfiguration,
                     log: @Sendable (String) -> Void = PersistentFile.standardErrorLog) -> DurableSession? {
        guard let identifier = configuration.identifier else { return nil }
        let directory = configuration.backgroundSessionDirectory?.path
            ?? BackgroundJournal.defaultDirectory(identifier: identifier)
        guard let directory else {
            let error = URLError(.cannotCreateFile, url: nil, description:
                "background session \(identifier): neither XDG_CACHE_HOME nor HOME is set; "
                    + "set backgroundSessionDirectory")
            log(error.localizedDescription)
            return DurableSession(identifier: identifier, journal: nil, openError: error, records: [], problems: [])
        }
        do throws(URLError) {
            let journal = try BackgroundJournal.open(directory: directory)
            let (records, problems) = journal.load()
            for problem in problems {
                log("background session \(identifier): not trusting \(problem) (kept as .corrupt)")
            }
            return DurableSession(identifier: identifier, journal: journal, openError: nil, records: records,
                                  problems: problems)
        } catch {
            log("background session \(identifier): \(error.userInfo[NSLocalizedDescriptionKey] ?? error)")
            return DurableSession(identifier: identifier, journal: nil, openError: error, records: [], problems: [])
        }
    }

    private init(identifier: String, journal: BackgroundJournal?, openError: URLError?, records: [JournalRecord],
                 problems: [BackgroundJournal.Problem]) {
        self.identifier = identifier
        self.journal = journal
        self.openError = openError
        self.highestJournaledIdentifier = records.map(\.taskIdentifier).max() ?? 0
        self.state = LockedBox(State(unattached: records))
        self.problems = problems
    }

    /// The one door to `state`: `change` must not call out.
    private func update<Result>(_ change: (inout State) -> Result) -> Result {
        state.withLock(change)
    }

    // MARK: New tasks

    /// Journals a download task made in the session (or fails it when the journal is unusable).
    func adopt(_ task: URLSessionDownloadTask, request: URLRequest) {
        guard let journal else {
            if let openError { task.withTransfer { $0.startFailure = $0.startFailure ?? openError } }
            return
        }
        let recorder = DurableTaskRecorder(journal: journal, record: Self.record(.download, task.taskIdentifier,
                                                                                request))
        task.withDownload { $0.journal = recorder }
    }

    /// Journals an upload-from-file task made in the session: its record is written now and removed when
    /// it completes.
    func adopt(_ task: URLSessionUploadTask, request: URLRequest, file: URL) {
        guard let journal else {
            if let openError { task.withTransfer { $0.startFailure = $0.startFailure ?? openError } }
            return
        }
        var record = Self.record(.upload, task.taskIdentifier, request)
        record.uploadFilePath = file.path
        do throws(URLError) {
            try journal.write(record)
        } catch {
            task.withTransfer { $0.startFailure = error }
        }
    }

    /// `task` delivered its completion: an upload's record goes; the delegate hears that the session's
    /// events were delivered when this was the last re-attached task.
    func taskDidComplete(_ task: URLSessionTask, session: URLSession) {
        if task is URLSessionUploadTask { journal?.remove(task.taskIdentifier) }
        let finishedEvents = update { state -> Bool in
            guard state.pending.remove(task.taskIdentifier) != nil else { return false }
            return state.pending.isEmpty
        }
        if finishedEvents { DelegateRouter.didFinishEvents(forBackgroundURLSession: session) }
    }

    // MARK: Re-attaching

    /// Makes the journal's records tasks again and resumes them (a session with a delegate only).
    func reattach(to session: URLSession) {
        guard session.delegate != nil, let journal else { return }
        let records = update { state in
            defer { state.unattached = [] }
            state.pending = Set(state.unattached.map(\.taskIdentifier))
            return state.unattached
        }
        var tasks: [URLSessionTask] = []
        for record in records {
            var request = URLRequest(url: record.url)
            request.httpMethod = record.method
            for field in record.headerFields { request.addValue(field[1], forHTTPHeaderField: field[0]) }
            switch record.kind {
            case .upload:
                guard let path = record.uploadFilePath else { continue }
                let task = session.makeUploadTask(request, body: .file(URL(fileURLWithPath: path)),
                                                  sink: DataDelegateSink.shared, identifier: record.taskIdentifier)
                task.taskDescription = record.taskDescription
                tasks.append(task)
            case .download:
                let task = session.makeDownloadTask(continuing: record, request: request, journal: journal)
                tasks.append(task)
            }
        }
        tasks.forEach { $0.resume() }
    }

    static func record(_ kind: JournalRecord.Kind, _ identifier: Int, _ request: URLRequest) -> JournalRecord {
        JournalRecord(kind: kind, taskIdentifier: identifier, taskDescription: nil,
                      url: request.url ?? URL(fileURLWithPath: "/"), method: request.httpMethod ?? "GET",
                      headerFields: request.orderedHeaderFields.map { [$0.name, $0.value] },
                      uploadFilePath: nil, partialFilePath: nil, bytesWritten: 0, expectedTotalBytes: nil,
                      entityTag: nil, lastModified: nil)
    }
}

extension URLSession {
    /// A journaled download made a task again: it continues from its partial file when the record has a
    /// validator and the file is there, else starts from byte 0.
    final func makeDownloadTask(continuing record: JournalRecord, request: URLRequest,
                                journal: BackgroundJournal) -> URLSessionDownloadTask {
        let file = record.validator == nil ? nil : record.partialFilePath.flatMap {
            DownloadFile.reopen(path: $0, length: record.bytesWritten)
        }
        if file == nil, let stale = record.partialFilePath { unlink(stale) }
        let resume = DownloadResumeData(
            url: record.url, headerFields: request.orderedHeaderFields.map { [$0.name, $0.value] },
            temporaryFilePath: record.partialFilePath ?? "", bytesReceived: file == nil ? 0 : record.bytesWritten,
            entityTag: record.entityTag, lastModified: record.lastModified,
            expectedTotalBytes: record.expectedTotalBytes)
        var continued = resume.resumingRequest()
        continued.httpMethod = record.method
        let task = register(identifier: record.taskIdentifier) {
            URLSessionDownloadTask(session: self, identifier: $0, request: continued, completion: nil)
        }
        task.taskDescription = record.taskDescription
        var kept = record
        kept.partialFilePath = file?.url.path
        kept.bytesWritten = file?.length ?? 0
        let recorder = DurableTaskRecorder(journal: journal, record: kept)
        task.withDownload { state in
            state.isResuming = file != nil
            state.file = file
            state.journal = recorder
        }
        return task
    }
}
