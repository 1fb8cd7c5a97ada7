import Foundation

// MARK: - Download tasks: the body into a file
//
// Runs in the task's drain on the delegate queue. The response decides where the body goes: a fresh
// temporary file; or, for a task made from resume data, the partial file — appended to when the server
// answers 206 from the right offset, emptied first when it sends the whole resource again (200).

extension URLSessionDownloadTask {
    /// Opens the file for `response` and, when resuming, tells the delegate from where.
    final func prepareFile(for response: HTTPURLResponse) throws(URLError) {
        let contentLength = response.expectedContentLength
        let (file, isResuming) = guarded.withLock { ($0.download.file, $0.download.isResuming) }
        var resumedOffset: Int64?
        var expectedTotal = contentLength
        if let file, isResuming {
            let range = ContentRange(response.value(forHTTPHeaderField: "Content-Range"))
            if response.statusCode == 206, let range, range.first == file.length {
                resumedOffset = file.length
                expectedTotal = range.completeLength ?? (contentLength >= 0 ? file.length + contentLength : -1)
            } else {
                try file.truncate()
                if response.statusCode == 200 { resumedOffset = 0 }
            }
        } else {
            let created = try DownloadFile.create()
            guarded.withLock { $0.download.file = created }
        }
        guarded.withLock { state in
            state.download.expectedTotalBytes = expectedTotal
            state.countOfBytesExpectedToReceive = expectedTotal
            if let resumedOffset { state.countOfBytesReceived = resumedOffset }
        }
        updateProgress()
        if let resumedOffset, let delegate = taskDelegate as? any URLSessionDownloadDelegate {
            delegate.urlSession(session, downloadTask: self, didResumeAtOffset: resumedOffset,
                                expectedTotalBytes: expectedTotal)
        }
    }

    /// Writes a piece of the body and reports it.
    final func writeBody(_ bytes: [UInt8]) throws(URLError) {
        guard let file = guarded.withLock({ $0.download.file }) else { return }
        try file.append(bytes)
        let expected = guarded.withLock { state -> Int64 in
            if !state.bodyIsEncoded { state.countOfBytesReceived += Int64(bytes.count) }
            return state.download.expectedTotalBytes
        }
        updateProgress()
        if let delegate = taskDelegate as? any URLSessionDownloadDelegate {
            delegate.urlSession(session, downloadTask: self, didWriteData: Int64(bytes.count),
                                totalBytesWritten: file.length, totalBytesExpectedToWrite: expected)
        }
    }

    /// The download succeeded: hands the file over, then removes it.
    final func handOverFile(response: URLResponse?,
                            completion: (@Sendable (URL?, URLResponse?, (any Error)?) -> Void)?) {
        let file = guarded.withLock { state -> DownloadFile? in
            defer { state.download.file = nil }
            return state.download.file
        }
        file?.close()
        if let completion {
            completion(file?.url, response, nil)
        } else if let file, let delegate = taskDelegate as? any URLSessionDownloadDelegate {
            delegate.urlSession(session, downloadTask: self, didFinishDownloadingTo: file.url)
        }
        file?.remove()
    }

    /// The download failed with `error`: keeps the partial file and adds resume data to the error when the
    /// download can be resumed, removes the file otherwise; answers `cancel(byProducingResumeData:)`.
    final func settleFailure(_ error: URLError) -> URLError {
        let (file, handler, resumeData) = guarded.withLock { state in
            defer {
                state.download.file = nil
                state.download.resumeDataHandler = nil
            }
            return (state.download.file, state.download.resumeDataHandler, Self.resumeData(for: state))
        }
        file?.close()
        if resumeData == nil { file?.remove() }
        handler?(resumeData)
        guard let resumeData else { return error }
        var info = error.userInfo
        info[NSURLSessionDownloadTaskResumeData] = resumeData
        return URLError(error.code, userInfo: info)
    }

    /// Resume data for the state a download stopped in: a GET whose 200 or 206 response had a strong
    /// ETag or a Last-Modified date and did not refuse ranges; nil otherwise.
    private static func resumeData(for state: Guarded) -> Data? {
        guard let file = state.download.file, let request = state.currentRequest, let url = request.url,
              (request.httpMethod ?? "GET") == "GET",
              let response = state.response as? HTTPURLResponse, [200, 206].contains(response.statusCode),
              response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased() != "none",
              !state.bodyIsEncoded else { return nil }
        let entityTag = response.value(forHTTPHeaderField: "ETag")
        let lastModified = response.value(forHTTPHeaderField: "Last-Modified")
        let resume = DownloadResumeData(
            url: url,
            headerFields: request.orderedHeaderFields.map { [$0.name, $0.value] },
            temporaryFilePath: file.url.path,
            bytesReceived: file.length,
            entityTag: entityTag,
            lastModified: lastModified,
            expectedTotalBytes: state.download.expectedTotalBytes >= 0 ? state.download.expectedTotalBytes : nil)
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
