import Foundation

// MARK: - Making tasks: the internals behind URLSession's task factories

extension URLSession {
    final func makeUploadTask(_ request: URLRequest, body: UploadBody, sink: any ResponseSink) -> URLSessionUploadTask {
        let expected: Int64 = switch body {
        case .data(let data): Int64(data.count)
        case .file(let url): (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? -1
        case .stream: request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) } ?? -1
        }
        let task = register { URLSessionUploadTask(session: self, identifier: $0, request: request, sink: sink) }
        task.transfer.withLock { $0.upload = body }
        task.counts.withLock { counts in
            counts.expectedToSend = expected
            counts.tracksSending = true
        }
        return task
    }

    final func makeDownloadTask(_ request: URLRequest, completion: DownloadSink.Completion?,
                                announcing: Bool = true) -> URLSessionDownloadTask {
        register(announcing: announcing) {
            URLSessionDownloadTask(session: self, identifier: $0, request: request,
                                   downloadSink: DownloadSink(completion: completion))
        }
    }

    final func makeResumedDownloadTask(_ data: Data, completion: DownloadSink.Completion?) -> URLSessionDownloadTask {
        let resume: DownloadResumeData
        do throws(URLError) {
            resume = try DownloadResumeData(data)
        } catch {
            let task = makeDownloadTask(URLRequest(url: URL(fileURLWithPath: "/")), completion: completion)
            task.transfer.withLock { $0.startFailure = error }
            return task
        }
        // Without its partial file (or with a shorter one) the download starts over.
        var usable = resume
        let file = DownloadFile.reopen(path: resume.temporaryFilePath, length: resume.bytesReceived)
        if file == nil { usable.bytesReceived = 0 }
        let task = makeDownloadTask(usable.resumingRequest(), completion: completion)
        task.downloadSink.state.withLock { state in
            state.isResuming = true
            state.file = file
        }
        return task
    }

    /// The download task that takes over `dataTask`'s transfer (`.becomeDownload`): same request, response,
    /// counts, metrics and resource deadline; running.
    final func adoptTransfer(of dataTask: URLSessionDataTask) -> URLSessionDownloadTask {
        let transfer = dataTask.transfer.withLock { $0 }
        let counts = dataTask.counts.withLock { $0 }
        let control = dataTask.control.withLock { $0 }
        taskDeadlines.remove(dataTask.taskIdentifier)
        let request = dataTask.originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/"))
        // A transfer that changes hands is no new task for the delegate (it hears `didBecome downloadTask`).
        let download = makeDownloadTask(request, completion: nil, announcing: false)
        download.transfer.withLock { $0 = transfer }
        download.counts.withLock { state in
            state = counts
            state.progress = nil
        }
        download.control.withLock { state in
            _ = state.lifecycle.resume()
            state.requestID = control.requestID
            state.pauseVersion = control.pauseVersion
            state.response = control.response
            state.taskDescription = control.taskDescription
            state.priority = control.priority
            state.delegate = control.delegate
        }
        if let deadline = transfer.resourceDeadline { download.armResourceTimer(deadline: deadline) }
        return download
    }
}
