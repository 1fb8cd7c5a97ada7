import Foundation

// MARK: - Making tasks: the internals behind URLSession's task factories

extension URLSession {
    final func makeUploadTask(_ request: URLRequest, body: UploadBody, behaviour: URLSessionTask.Behaviour)
        -> URLSessionUploadTask {
        let expected: Int64 = switch body {
        case .data(let data): Int64(data.count)
        case .file(let url): (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? -1
        case .stream: request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) } ?? -1
        }
        let task = register {
            URLSessionUploadTask(session: self, identifier: $0, request: request, behaviour: behaviour)
        }
        task.guarded.withLock { state in
            state.upload = body
            state.countOfBytesExpectedToSend = expected
            state.tracksSending = true
        }
        return task
    }

    final func makeDownloadTask(_ request: URLRequest, behaviour: URLSessionTask.Behaviour) -> URLSessionDownloadTask {
        register { URLSessionDownloadTask(session: self, identifier: $0, request: request, behaviour: behaviour) }
    }

    final func makeResumedDownloadTask(_ data: Data, behaviour: URLSessionTask.Behaviour) -> URLSessionDownloadTask {
        let resume: DownloadResumeData
        do throws(URLError) {
            resume = try DownloadResumeData(data)
        } catch {
            let task = makeDownloadTask(URLRequest(url: URL(fileURLWithPath: "/")), behaviour: behaviour)
            task.guarded.withLock { $0.startFailure = error }
            return task
        }
        // Without its partial file (or with a shorter one) the download starts over.
        var usable = resume
        let file = DownloadFile.reopen(path: resume.temporaryFilePath, length: resume.bytesReceived)
        if file == nil { usable.bytesReceived = 0 }
        let task = makeDownloadTask(usable.resumingRequest(), behaviour: behaviour)
        task.guarded.withLock { state in
            state.download.isResuming = true
            state.download.file = file
        }
        return task
    }

    /// The download task that takes over `dataTask`'s transfer (`.becomeDownload`): same request, response,
    /// counts, metrics and resource deadline; running.
    final func adoptTransfer(of dataTask: URLSessionDataTask) -> URLSessionDownloadTask {
        let (snapshot, deadline) = dataTask.guarded.withLock { state in (state, state.resourceDeadline) }
        resourceTimeouts.remove(dataTask.taskIdentifier)
        let request = dataTask.originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/"))
        let download = register {
            URLSessionDownloadTask(session: self, identifier: $0, request: request, behaviour: .delegate)
        }
        download.guarded.withLock { state in
            var adopted = snapshot
            adopted.lifecycle = TaskLifecycle()
            _ = adopted.lifecycle.resume()
            adopted.deliveries = DeliveryQueue()
            adopted.body = Data()
            adopted.progress = nil
            adopted.download = DownloadState()
            adopted.becameDownload = nil
            state = adopted
        }
        if let deadline { armResourceTimer(for: download, deadline: deadline) }
        return download
    }
}
