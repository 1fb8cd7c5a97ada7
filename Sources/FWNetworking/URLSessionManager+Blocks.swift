// URLSessionManager+Blocks: the block properties that hear the session's delegate messages for every task,
// and the seeds' Objective-C setters as one-line forwarders, so that code translated from the
// documentation reads the same. The blocks live in one `LockedBox`; each message reads its block under
// the lock and calls it after. Blocks are `@Sendable`: they run on the operation queue (or, for
// `didFinishEventsForBackgroundURLSession`, the main queue), not where they were set.

import Foundation

// MARK: - Handler types

extension URLSessionManager {
    /// A progress block: called with the task's upload or download `Progress` each time it changes, on the
    /// operation queue.
    public typealias ProgressHandler = @Sendable (_ progress: Progress) -> Void

    /// A completion handler: the response (a placeholder `URLResponse` for the task's URL when none
    /// arrived), the serialized response object, and the error (the task's, else the serializer's).
    public typealias CompletionHandler = @Sendable (
        _ response: URLResponse, _ responseObject: Any?, _ error: (any Error)?
    ) -> Void

    /// A download's completion handler: the response, the file's final path, and the error.
    public typealias DownloadCompletionHandler = @Sendable (
        _ response: URLResponse, _ filePath: URL?, _ error: (any Error)?
    ) -> Void

    /// Where a finished download goes: given the temporary file and the response, the destination URL.
    public typealias DownloadDestination = @Sendable (_ targetPath: URL, _ response: URLResponse) -> URL

    /// The answer to a connection-level challenge, with the credential to use set through `credential`.
    public typealias SessionChallengeHandler = @Sendable (
        _ session: URLSession, _ challenge: URLAuthenticationChallenge, _ credential: inout URLCredential?
    ) -> URLSession.AuthChallengeDisposition

    /// The answer to a task-level challenge (see `AuthenticationChallengeResult`).
    public typealias TaskChallengeHandler = @Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ challenge: URLAuthenticationChallenge,
        _ completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) -> AuthenticationChallengeResult
}

// MARK: - Blocks

extension URLSessionManager {
    /// Every block property, in one value.
    struct Blocks {
        var sessionDidBecomeInvalid: (@Sendable (_ session: URLSession, _ error: (any Error)?) -> Void)?
        var sessionDidReceiveAuthenticationChallenge: (SessionChallengeHandler)?
        var taskNeedNewBodyStream: (@Sendable (_ session: URLSession, _ task: URLSessionTask) -> InputStream?)?
        var taskWillPerformHTTPRedirection: (@Sendable (
            _ session: URLSession, _ task: URLSessionTask, _ response: URLResponse, _ request: URLRequest
        ) -> URLRequest?)?
        var authenticationChallengeHandler: (TaskChallengeHandler)?
        var taskDidSendBodyData: (@Sendable (
            _ session: URLSession, _ task: URLSessionTask, _ bytesSent: Int64, _ totalBytesSent: Int64,
            _ totalBytesExpectedToSend: Int64
        ) -> Void)?
        var taskDidComplete: (@Sendable (_ session: URLSession, _ task: URLSessionTask, _ error: (any Error)?) -> Void)?
        var taskDidFinishCollectingMetrics: (@Sendable (
            _ session: URLSession, _ task: URLSessionTask, _ metrics: URLSessionTaskMetrics?
        ) -> Void)?
        var dataTaskDidReceiveResponse: (@Sendable (
            _ session: URLSession, _ dataTask: URLSessionDataTask, _ response: URLResponse
        ) -> URLSession.ResponseDisposition)?
        var dataTaskDidBecomeDownloadTask: (@Sendable (
            _ session: URLSession, _ dataTask: URLSessionDataTask, _ downloadTask: URLSessionDownloadTask
        ) -> Void)?
        var dataTaskDidReceiveData: (@Sendable (
            _ session: URLSession, _ dataTask: URLSessionDataTask, _ data: Data
        ) -> Void)?
        var dataTaskWillCacheResponse: (@Sendable (
            _ session: URLSession, _ dataTask: URLSessionDataTask, _ proposedResponse: CachedURLResponse
        ) -> CachedURLResponse?)?
        var didFinishEventsForBackgroundURLSession: (@Sendable (_ session: URLSession) -> Void)?
        var downloadTaskDidFinishDownloading: (@Sendable (
            _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ location: URL
        ) -> URL?)?
        var downloadTaskDidWriteData: (@Sendable (
            _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ bytesWritten: Int64,
            _ totalBytesWritten: Int64, _ totalBytesExpectedToWrite: Int64
        ) -> Void)?
        var downloadTaskDidResume: (@Sendable (
            _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ fileOffset: Int64,
            _ expectedTotalBytes: Int64
        ) -> Void)?
    }
}

// MARK: - Block properties

extension URLSessionManager {
    /// Called when the session becomes invalid (`urlSession(_:didBecomeInvalidWithError:)`), before
    /// `urlSessionDidInvalidateNotification` is posted.
    public var sessionDidBecomeInvalid: (@Sendable (_ session: URLSession, _ error: (any Error)?) -> Void)? {
        get { blocks.withLock { $0.sessionDidBecomeInvalid } }
        set { blocks.withLock { $0.sessionDidBecomeInvalid = newValue } }
    }

    /// Answers every connection-level challenge (`urlSession(_:didReceive:completionHandler:)`): the
    /// disposition it returns, with the credential it sets.
    ///
    /// - Warning: Setting it bypasses `securityPolicy` entirely: server trust is then whatever this block
    ///   decides. To keep the policy and handle other challenges, use `authenticationChallengeHandler`.
    public var sessionDidReceiveAuthenticationChallenge: (SessionChallengeHandler)? {
        get { blocks.withLock { $0.sessionDidReceiveAuthenticationChallenge } }
        set { blocks.withLock { $0.sessionDidReceiveAuthenticationChallenge = newValue } }
    }

    /// Provides a new body stream when a task must send its streamed body again
    /// (`urlSession(_:task:needNewBodyStream:)`).
    public var taskNeedNewBodyStream: (@Sendable (_ session: URLSession, _ task: URLSessionTask) -> InputStream?)? {
        get { blocks.withLock { $0.taskNeedNewBodyStream } }
        set { blocks.withLock { $0.taskNeedNewBodyStream = newValue } }
    }

    /// Chooses the request that follows a redirect, or nil to stop there
    /// (`urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)`).
    public var taskWillPerformHTTPRedirection: (@Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ response: URLResponse, _ request: URLRequest
    ) -> URLRequest?)? {
        get { blocks.withLock { $0.taskWillPerformHTTPRedirection } }
        set { blocks.withLock { $0.taskWillPerformHTTPRedirection = newValue } }
    }

    /// Answers task-level challenges first (`urlSession(_:task:didReceive:completionHandler:)`), with one of
    /// the four outcomes of `AuthenticationChallengeResult`; `.disposition(.performDefaultHandling)` for a
    /// server-trust challenge lets `securityPolicy` judge the trust.
    public var authenticationChallengeHandler: (TaskChallengeHandler)? {
        get { blocks.withLock { $0.authenticationChallengeHandler } }
        set { blocks.withLock { $0.authenticationChallengeHandler = newValue } }
    }

    /// Called as body bytes are sent
    /// (`urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)`); the expected total
    /// is the body's size, the request's `Content-Length` for a stream, else -1.
    public var taskDidSendBodyData: (@Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ bytesSent: Int64, _ totalBytesSent: Int64,
        _ totalBytesExpectedToSend: Int64
    ) -> Void)? {
        get { blocks.withLock { $0.taskDidSendBodyData } }
        set { blocks.withLock { $0.taskDidSendBodyData = newValue } }
    }

    /// Called as the last message of every task (`urlSession(_:task:didCompleteWithError:)`), with the
    /// session's error; a per-task completion handler runs later, on the completion queue.
    public var taskDidComplete: (@Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ error: (any Error)?
    ) -> Void)? {
        get { blocks.withLock { $0.taskDidComplete } }
        set { blocks.withLock { $0.taskDidComplete = newValue } }
    }

    /// Called with a task's metrics, before it completes (`urlSession(_:task:didFinishCollecting:)`).
    public var taskDidFinishCollectingMetrics: (@Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ metrics: URLSessionTaskMetrics?
    ) -> Void)? {
        get { blocks.withLock { $0.taskDidFinishCollectingMetrics } }
        set { blocks.withLock { $0.taskDidFinishCollectingMetrics = newValue } }
    }

    /// Decides what a data task does with its response (`urlSession(_:dataTask:didReceive:completionHandler:)`);
    /// without it, `.allow`.
    public var dataTaskDidReceiveResponse: (@Sendable (
        _ session: URLSession, _ dataTask: URLSessionDataTask, _ response: URLResponse
    ) -> URLSession.ResponseDisposition)? {
        get { blocks.withLock { $0.dataTaskDidReceiveResponse } }
        set { blocks.withLock { $0.dataTaskDidReceiveResponse = newValue } }
    }

    /// Called when a data task became a download task (`urlSession(_:dataTask:didBecome:)`).
    public var dataTaskDidBecomeDownloadTask: (@Sendable (
        _ session: URLSession, _ dataTask: URLSessionDataTask, _ downloadTask: URLSessionDownloadTask
    ) -> Void)? {
        get { blocks.withLock { $0.dataTaskDidBecomeDownloadTask } }
        set { blocks.withLock { $0.dataTaskDidBecomeDownloadTask = newValue } }
    }

    /// Called with each piece of a data task's body (`urlSession(_:dataTask:didReceive:)`).
    public var dataTaskDidReceiveData: (@Sendable (
        _ session: URLSession, _ dataTask: URLSessionDataTask, _ data: Data
    ) -> Void)? {
        get { blocks.withLock { $0.dataTaskDidReceiveData } }
        set { blocks.withLock { $0.dataTaskDidReceiveData = newValue } }
    }

    /// Decides what a data task stores in the URL cache
    /// (`urlSession(_:dataTask:willCacheResponse:completionHandler:)`): the proposed response, another
    /// one, or nil to store nothing. Without it, the proposed response is stored.
    public var dataTaskWillCacheResponse: (@Sendable (
        _ session: URLSession, _ dataTask: URLSessionDataTask, _ proposedResponse: CachedURLResponse
    ) -> CachedURLResponse?)? {
        get { blocks.withLock { $0.dataTaskWillCacheResponse } }
        set { blocks.withLock { $0.dataTaskWillCacheResponse = newValue } }
    }

    /// Called on the main queue by `urlSessionDidFinishEvents(forBackgroundURLSession:)`: a durable session
    /// (`URLSessionConfiguration.background(withIdentifier:)`) delivered the completions of every task it
    /// re-attached from its journal.
    public var didFinishEventsForBackgroundURLSession: (@Sendable (_ session: URLSession) -> Void)? {
        get { blocks.withLock { $0.didFinishEventsForBackgroundURLSession } }
        set { blocks.withLock { $0.didFinishEventsForBackgroundURLSession = newValue } }
    }

    /// Chooses where every finished download goes (`urlSession(_:downloadTask:didFinishDownloadingTo:)`):
    /// the file is moved to the URL it returns (nil: the task's own destination decides). A failed move
    /// posts `urlSessionDownloadTaskDidFailToMoveFileNotification` with the error's userInfo.
    public var downloadTaskDidFinishDownloading: (@Sendable (
        _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ location: URL
    ) -> URL?)? {
        get { blocks.withLock { $0.downloadTaskDidFinishDownloading } }
        set { blocks.withLock { $0.downloadTaskDidFinishDownloading = newValue } }
    }

    /// Called as a download's bytes reach its file
    /// (`urlSession(_:downloadTask:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)`).
    public var downloadTaskDidWriteData: (@Sendable (
        _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ bytesWritten: Int64,
        _ totalBytesWritten: Int64, _ totalBytesExpectedToWrite: Int64
    ) -> Void)? {
        get { blocks.withLock { $0.downloadTaskDidWriteData } }
        set { blocks.withLock { $0.downloadTaskDidWriteData = newValue } }
    }

    /// Called when a download made from resume data continues
    /// (`urlSession(_:downloadTask:didResumeAtOffset:expectedTotalBytes:)`).
    public var downloadTaskDidResume: (@Sendable (
        _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ fileOffset: Int64,
        _ expectedTotalBytes: Int64
    ) -> Void)? {
        get { blocks.withLock { $0.downloadTaskDidResume } }
        set { blocks.withLock { $0.downloadTaskDidResume = newValue } }
    }
}

// MARK: - The seeds' setters

extension URLSessionManager {
    /// Sets `sessionDidBecomeInvalid`.
    public func setSessionDidBecomeInvalidBlock(
        _ block: (@Sendable (_ session: URLSession, _ error: (any Error)?) -> Void)?
    ) {
        sessionDidBecomeInvalid = block
    }

    /// Sets `sessionDidReceiveAuthenticationChallenge`.
    public func setSessionDidReceiveAuthenticationChallengeBlock(_ block: (SessionChallengeHandler)?) {
        sessionDidReceiveAuthenticationChallenge = block
    }

    /// Sets `taskNeedNewBodyStream`.
    public func setTaskNeedNewBodyStreamBlock(
        _ block: (@Sendable (_ session: URLSession, _ task: URLSessionTask) -> InputStream?)?
    ) {
        taskNeedNewBodyStream = block
    }

    /// Sets `taskWillPerformHTTPRedirection`.
    public func setTaskWillPerformHTTPRedirectionBlock(_ block: (@Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ response: URLResponse, _ request: URLRequest
    ) -> URLRequest?)?) {
        taskWillPerformHTTPRedirection = block
    }

    /// Sets `authenticationChallengeHandler`.
    public func setAuthenticationChallengeHandler(_ block: (TaskChallengeHandler)?) {
        authenticationChallengeHandler = block
    }

    /// Sets `taskDidSendBodyData`.
    public func setTaskDidSendBodyDataBlock(_ block: (@Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ bytesSent: Int64, _ totalBytesSent: Int64,
        _ totalBytesExpectedToSend: Int64
    ) -> Void)?) {
        taskDidSendBodyData = block
    }

    /// Sets `taskDidComplete`.
    public func setTaskDidCompleteBlock(
        _ block: (@Sendable (_ session: URLSession, _ task: URLSessionTask, _ error: (any Error)?) -> Void)?
    ) {
        taskDidComplete = block
    }

    /// Sets `taskDidFinishCollectingMetrics`.
    public func setTaskDidFinishCollectingMetricsBlock(_ block: (@Sendable (
        _ session: URLSession, _ task: URLSessionTask, _ metrics: URLSessionTaskMetrics?
    ) -> Void)?) {
        taskDidFinishCollectingMetrics = block
    }

    /// Sets `dataTaskDidReceiveResponse`.
    public func setDataTaskDidReceiveResponseBlock(_ block: (@Sendable (
        _ session: URLSession, _ dataTask: URLSessionDataTask, _ response: URLResponse
    ) -> URLSession.ResponseDisposition)?) {
        dataTaskDidReceiveResponse = block
    }

    /// Sets `dataTaskDidBecomeDownloadTask`.
    public func setDataTaskDidBecomeDownloadTaskBlock(_ block: (@Sendable (
        _ session: URLSession, _ dataTask: URLSessionDataTask, _ downloadTask: URLSessionDownloadTask
    ) -> Void)?) {
        dataTaskDidBecomeDownloadTask = block
    }

    /// Sets `dataTaskDidReceiveData`.
    public func setDataTaskDidReceiveDataBlock(
        _ block: (@Sendable (_ session: URLSession, _ dataTask: URLSessionDataTask, _ data: Data) -> Void)?
    ) {
        dataTaskDidReceiveData = block
    }

    /// Sets `dataTaskWillCacheResponse`.
    public func setDataTaskWillCacheResponseBlock(_ block: (@Sendable (
        _ session: URLSession, _ dataTask: URLSessionDataTask, _ proposedResponse: CachedURLResponse
    ) -> CachedURLResponse?)?) {
        dataTaskWillCacheResponse = block
    }

    /// Sets `didFinishEventsForBackgroundURLSession`.
    public func setDidFinishEventsForBackgroundURLSessionBlock(_ block: (@Sendable (_ session: URLSession) -> Void)?) {
        didFinishEventsForBackgroundURLSession = block
    }

    /// Sets `downloadTaskDidFinishDownloading`.
    public func setDownloadTaskDidFinishDownloadingBlock(_ block: (@Sendable (
        _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ location: URL
    ) -> URL?)?) {
        downloadTaskDidFinishDownloading = block
    }

    /// Sets `downloadTaskDidWriteData`.
    public func setDownloadTaskDidWriteDataBlock(_ block: (@Sendable (
        _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ bytesWritten: Int64,
        _ totalBytesWritten: Int64, _ totalBytesExpectedToWrite: Int64
    ) -> Void)?) {
        downloadTaskDidWriteData = block
    }

    /// Sets `downloadTaskDidResume`.
    public func setDownloadTaskDidResumeBlock(_ block: (@Sendable (
        _ session: URLSession, _ downloadTask: URLSessionDownloadTask, _ fileOffset: Int64,
        _ expectedTotalBytes: Int64
    ) -> Void)?) {
        downloadTaskDidResume = block
    }
}
