import Foundation

// MARK: - Making tasks: the internals behind URLSession's task factories

extension URLSession {
    /// An upload task whose response goes to `sink` (`completion`: the handler it was made with).
    final func makeUploadTask(_ request: URLRequest, body: UploadBody, sink: any ResponseSink,
                              completion: CollectingSink.Completion? = nil,
                              identifier: Int? = nil) -> URLSessionUploadTask {
        let expected: Int64 = switch body {
        case .data(let data): Int64(data.count)
        case .file(let url): (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? -1
        case .stream: request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) } ?? -1
        }
        let task = register(identifier: identifier) {
            URLSessionUploadTask(session: self, identifier: $0, request: request, sink: sink,
                                 sinkState: .data(completion))
        }
        task.withTransfer { $0.upload = body }
        task.update { machine in
            machine.counts.expectedToSend = expected
            machine.counts.tracksSending = true
        }
        if identifier == nil, case .file(let file) = body { durable?.adopt(task, request: request, file: file) }
        return task
    }

    final func makeDownloadTask(_ request: URLRequest, completion: DownloadSink.Completion?,
                                announcing: Bool = true) -> URLSessionDownloadTask {
        let task = register(announcing: announcing) {
            URLSessionDownloadTask(session: self, identifier: $0, request: request, completion: completion)
        }
        durable?.adopt(task, request: request)
        return task
    }

    final func makeResumedDownloadTask(_ data: Data, completion: DownloadSink.Completion?) -> URLSessionDownloadTask {
        let resume: DownloadResumeData
        do throws(URLError) {
            resume = try DownloadResumeData(data)
        } catch {
            let task = makeDownloadTask(URLRequest(url: URL(fileURLWithPath: "/")), completion: completion)
            task.withTransfer { $0.startFailure = error }
            return task
        }
        // Without its partial file (or with a shorter one) the download starts over.
        var usable = resume
        let file = DownloadFile.reopen(path: resume.temporaryFilePath, length: resume.bytesReceived)
        if file == nil { usable.bytesReceived = 0 }
        let task = makeDownloadTask(usable.resumingRequest(), completion: completion)
        task.withDownload { state in
            state.isResuming = true
            state.file = file
        }
        return task
    }

    /// The download task that takes over `dataTask`'s transfer (`.becomeDownload`): the data task's state
    /// moves into it (the machine running, with the response, the transport request and the counts; the
    /// transfer with its hop, metrics and resource deadline; the properties). nil when the data task is ending.
    final func adoptTransfer(of dataTask: URLSessionDataTask) -> URLSessionDownloadTask? {
        let request = dataTask.originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/"))
        // A transfer that changes hands is no new task for the delegate (it hears `didBecome downloadTask`).
        let download = makeDownloadTask(request, completion: nil, announcing: false)
        guard dataTask.handOver(to: download, keepingTransfer: true) else {
            taskDidComplete(download) // cancelled meanwhile: the unannounced download goes with it
            return nil
        }
        taskDeadlines.remove(dataTask.taskIdentifier)
        if let deadline = download.withTransfer({ $0.resourceDeadline }) { download.armResourceTimer(deadline: deadline) }
        return download
    }
}
