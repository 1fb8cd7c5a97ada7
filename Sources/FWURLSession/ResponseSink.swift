import Foundation
import FWTransport

// MARK: - ResponseSink
//
// Where a task's response goes, chosen once, when the task is made — instead of asking at every event
// what kind of task this is and how it reports:
//
//   DataDelegateSink   data and upload tasks made without a completion handler: the data delegate hears
//                      the response (and answers a disposition), then every piece of the body; a
//                      `URLSessionDataCollectingDelegate` is also handed the whole body at the end
//   CollectingSink     tasks made with a completion handler (and the async `data(for:)` family): the body
//                      is collected in memory and handed over with the response at the end
//   DownloadSink       download tasks: the body goes into a file (Download/DownloadSink.swift)
//   AsyncBytesFeed     `bytes(for:)`: the body flows into an `AsyncBytes` sequence (URLSession+AsyncBytes.swift)
//
// A sink is called on the delegate queue by the task's drain, one event at a time, never under a lock. The
// three common sinks keep nothing of their own: what a task's sink keeps is in the task's core (`SinkState`,
// through `withSink`), so one instance of each serves every task.

/// Receives a task's final response, its body, and its completion.
protocol ResponseSink: AnyObject, Sendable {
    /// The final response (redirects resolved). A thrown error ends the task.
    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError)
    /// The final response of a URL protocol that is not HTTP (no status, no fields). A thrown error ends
    /// the task.
    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError)
    /// A piece of the body (decoded). A thrown error ends the task.
    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError)
    /// The task is completing with `error` (nil: success), before its metrics go out: the sink may settle
    /// the error it completes with (resume data) and hand over what must precede the metrics.
    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError?
    /// The completion itself: a completion handler or the delegate's `didCompleteWithError`. The error is a
    /// `URLError`, or a URL protocol's own error as it reported it.
    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask)
    /// The complete response may be stored in the URL cache as `proposal`: `decide` gets what to store.
    func willCache(_ proposal: CachedURLResponse, for task: URLSessionTask,
                   decide: @escaping @Sendable (CachedURLResponse?) -> Void)
    /// The WebSocket handshake `request` carries, or nil for a plain HTTP request (every sink but a
    /// WebSocket task's).
    func webSocketUpgrade(for request: URLRequest, task: URLSessionTask) throws(URLError) -> WebSocketUpgrade?
    /// The handshake succeeded: the connection is now `channel`, which the sink starts (or aborts).
    func upgraded(_ channel: WebSocketChannel, for task: URLSessionTask)
    /// What the task's WebSocket channel reported, on the delegate queue.
    func webSocket(_ event: WebSocketTaskEvent, for task: URLSessionTask)
    /// What the task's stream channel reported, on the delegate queue.
    func stream(_ event: StreamTaskEvent, for task: URLSessionTask)
    /// Whether the sink collects the whole body in memory (the URL cache then stores that body instead of
    /// keeping a copy of its own).
    var collectsBody: Bool { get }
    /// The body `task` collected so far, for a sink that collects it; nil otherwise.
    func collectedBody(of task: URLSessionTask) -> Data?
}

extension ResponseSink {
    /// Plain HTTP by default.
    func webSocketUpgrade(for request: URLRequest, task: URLSessionTask) throws(URLError) -> WebSocketUpgrade? { nil }

    /// Nobody takes a WebSocket by default: it is dropped at once.
    func upgraded(_ channel: WebSocketChannel, for task: URLSessionTask) {
        channel.abort(.cancelled)
    }

    /// Only a WebSocket task's sink makes these events.
    func webSocket(_ event: WebSocketTaskEvent, for task: URLSessionTask) {}

    /// Only a stream task's sink makes these events.
    func stream(_ event: StreamTaskEvent, for task: URLSessionTask) {}

    /// Nothing to prepare for a response without HTTP metadata by default.
    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError) {}

    /// Most sinks hand the body on as it comes.
    var collectsBody: Bool { false }

    /// Nothing collected by default.
    func collectedBody(of task: URLSessionTask) -> Data? { nil }

    /// Nothing to settle by default.
    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError? { error }

    /// Stores the proposal as it is by default (nobody to ask).
    func willCache(_ proposal: CachedURLResponse, for task: URLSessionTask,
                   decide: @escaping @Sendable (CachedURLResponse?) -> Void) {
        decide(proposal)
    }
}

extension URLSessionTask {
    /// `self` as the task class its sink was made for (a sink is only ever given to that class).
    func asTask<Task: URLSessionTask>(_: Task.Type) -> Task {
        guard let task = self as? Task else { preconditionFailure("\(self) is not a \(Task.self)") }
        return task
    }
}

// MARK: - DataDelegateSink

/// Data and upload tasks without a completion handler: the data delegate hears everything. When the routed
/// data delegate is a `URLSessionDataCollectingDelegate` that wants the body, the task also collects it
/// (`SinkState.collector`, a `BodyCollector` with purpose `handOver`: over the limit ends the task) and hands
/// it over when the task succeeds.
final class DataDelegateSink: ResponseSink {
    /// The one instance: the sink keeps nothing of its own.
    static let shared = DataDelegateSink()

    private init() {}

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {
        try receive(nonHTTP: response, for: task)
    }

    func receive(nonHTTP response: URLResponse, for task: URLSessionTask) throws(URLError) {
        let dataTask = task.asTask(URLSessionDataTask.self)
        if DelegateRouter.bodyCollectingDelegate(of: dataTask) != nil {
            var collector = BodyCollector(.handOver, limits: task.session.sessionConfiguration.httpResponseLimits,
                                          url: task.currentRequest?.url,
                                          buffers: task.session.bodyBuffers(for: response))
            try collector.expect(length: response.expectedContentLength, method: task.currentRequest?.httpMethod,
                                 status: (response as? HTTPURLResponse)?.statusCode)
            task.withSink { $0.collector = collector }
        }
        task.hold(.awaitingDisposition)
        let asked = DelegateRouter.didReceive(response: response, dataTask: dataTask) { disposition in
            dataTask.answer(disposition)
        }
        if !asked { task.release(.awaitingDisposition) }
    }

    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError) {
        try task.collect(bytes)
        DelegateRouter.didReceive(data: Data(adopting: bytes, recycling: task.bodyPieces),
                                  dataTask: task.asTask(URLSessionDataTask.self))
    }

    /// A task that succeeded hands its collected body over (before its metrics); the task keeps none of it.
    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError? {
        let body = task.withSink { sink in
            defer { sink.collector = nil }
            return sink.collector?.take()
        }
        if error == nil, let body {
            DelegateRouter.didCollectBody(body, dataTask: task.asTask(URLSessionDataTask.self))
        }
        return error
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        DelegateRouter.didComplete(task: task, error: error)
    }

    func willCache(_ proposal: CachedURLResponse, for task: URLSessionTask,
                   decide: @escaping @Sendable (CachedURLResponse?) -> Void) {
        DelegateRouter.willCacheResponse(proposal, dataTask: task.asTask(URLSessionDataTask.self), decide: decide)
    }
}

// MARK: - CollectingSink

/// Tasks with a completion handler: the body is collected (`SinkState.collector`, a `BodyCollector` with
/// purpose `handOver`: within `HTTPLimits.maxCollectedBodySize`; the task itself enforces
/// `maxDecompressionRatio`) and handed over with the response. Neither the body nor the handler (and what it
/// captured) is kept once it was called.
final class CollectingSink: ResponseSink {
    typealias Completion = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    /// The one instance: the sink keeps nothing of its own.
    static let shared = CollectingSink()

    private init() {}

    var collectsBody: Bool { true }

    /// The body so far: the same storage the task holds (no copy is made until one of them changes).
    func collectedBody(of task: URLSessionTask) -> Data? {
        task.withSink { $0.collector?.collected }
    }

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {
        let limits = task.session.sessionConfiguration.httpResponseLimits
        let length = response.expectedContentLength
        let status = response.statusCode
        let buffers = task.session.bodyBuffers(for: response)
        // The request read and the collector kept under one lock.
        try task.withCore { core in
            Result { () throws(URLError) in
                let request = core.transfer.currentRequest
                var collector = BodyCollector(.handOver, limits: limits, url: request?.url, buffers: buffers)
                try collector.expect(length: length, method: request?.httpMethod, status: status)
                core.sink.collector = collector
            }
        }.get()
    }

    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError) {
        try task.collect(bytes)
        task.bodyPieces?.giveBack(bytes) // copied into the body: its pages serve a later read
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        // The body and the handler leave the task: a caller that keeps the finished task keeps neither.
        // Moved out (`take()`): copied out and then set to nil, both were destroyed through the optionals'
        // generic value witnesses.
        let (collected, completion) = task.withSink { sink in
            var collector = sink.collector.take()
            return (collector?.take(), sink.completion.take())
        }
        guard case .data(let completion) = completion else { return }
        if let error {
            completion(nil, nil, error)
        } else {
            completion(collected ?? Data(), response, nil)
        }
    }
}

extension URLSessionTask {
    /// Where a body piece goes when its last holder is done with it: its transport's `BodyPieceRecycler`, whose
    /// connections read later large pieces into it. A piece copied into a collected body or written to a file
    /// went back to malloc before, and glibc's trimming made the next read fault its pages in again (1 MiB at
    /// c=4: up to 370,000 page faults in 2,000 requests).
    final var bodyPieces: BodyPieceRecycler? {
        session.transport?.bodyPieces
    }

    /// Adds a piece of the body to the task's collector (none: nothing to collect); past the limit the
    /// collector lets its body go and this throws.
    final func collect(_ bytes: [UInt8]) throws(URLError) {
        try withSink { sink in
            Result { () throws(URLError) in try sink.collector?.append(bytes) }
        }.get()
    }
}

// MARK: - Dispositions

extension URLSessionDataTask {
    /// The data delegate's answer to the response (any thread).
    func answer(_ disposition: URLSession.ResponseDisposition) {
        switch disposition {
        case .allow:
            release(.awaitingDisposition)
        case .cancel:
            cancel()
            release(.awaitingDisposition)
        case .becomeDownload:
            session.delegateQueue.addOperation {
                self.becomeDownload()
                self.release(.awaitingDisposition)
            }
        case .becomeStream:
            session.delegateQueue.addOperation {
                self.becomeStream()
                self.release(.awaitingDisposition)
            }
        }
    }

    /// `.becomeDownload`: a download task takes over the transfer, from the next body byte on, with this
    /// task's request, response, counts and metrics; this task ends without further messages.
    private func becomeDownload() {
        guard let response = response as? HTTPURLResponse, !isEnding,
              let download = session.adoptTransfer(of: self) else { return }
        do throws(URLError) {
            try download.sink.receive(response, for: download)
        } catch {
            download.abort(with: error)
        }
        DelegateRouter.didBecome(download, dataTask: self)
        session.taskDidComplete(self)
    }
}
