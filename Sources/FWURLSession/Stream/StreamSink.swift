import Foundation
import FWTransport

// MARK: - StreamSink
//
// A stream task's sink. Calls made before the connection exists (reads, writes, closes, TLS) wait and go to
// the `StreamChannel` once it arrives: from `HTTPTransport.openStream` for `streamTask(withHostName:port:)`,
// or from the connection of a data task that answered `.becomeStream` (whose body bytes read so far arrive
// first, as `prefix`, and are read first). The channel reports on its loop thread through
// `StreamChannelBridge`, and each reply is queued as a task event, so completion handlers and delegate
// messages reach the delegate queue in the order they happened. The state and its transitions are
// `StreamSinkMachine`'s (`StreamSinkMachine.swift`); this class holds it in one lock, applies one input at a
// time (`input`) and runs the actions the input returns after the lock (`run`): no callback and no channel
// call under the lock.

/// The stream state of one `URLSessionStreamTask`.
final class StreamSink: ResponseSink {
    typealias ReadCompletion = StreamCall.ReadCompletion
    typealias WriteCompletion = StreamCall.WriteCompletion
    typealias Call = StreamCall
    typealias Machine = StreamSinkMachine<StreamChannel>

    private let machine = LockedBox(Machine())

    /// Applies one input (or reads the state) under the lock: the one door to the machine.
    private func input<Result>(_ body: (inout Machine) -> Result) -> Result {
        machine.withLock { body(&$0) }
    }

    // MARK: Calls from the task (any thread)

    func call(_ call: Call, task: URLSessionStreamTask) {
        run(input { $0.call(call) }, task: task)
    }

    /// `captureStreams()`: once the reads and writes made before it are answered, the connection becomes a
    /// pair of streams for the delegate and the task completes.
    func capture(task: URLSessionStreamTask) {
        run(input { $0.capture() }, task: task)
    }

    /// `cancel()`: the connection (or the one still coming) is dropped.
    func abandon(task: URLSessionStreamTask) {
        run(input { $0.abandon() }, task: task)
    }

    /// Runs what an input asked for, in `StreamSinkActions`' order.
    private func run(_ actions: StreamSinkActions<StreamChannel>, task: URLSessionStreamTask) {
        if let channel = actions.channel {
            if let prefix = actions.start { channel.start(delegate: StreamChannelBridge(task: task), prefix: prefix) }
            for call in actions.calls { send(call, to: channel, task: task) }
            if actions.abort { channel.abort(.cancelled) }
        }
        if case let (call, ended, rest)? = actions.afterEnd { answerAfterEnd(call, ended, rest: rest, task: task) }
        if actions.captureReady { task.enqueue(.stream(.captureReady)) }
        if actions.captureNow { captureNow(task: task) }
        if let answers = actions.endedWithoutChannel {
            for (completion, rest) in answers {
                completion(rest.bytes.isEmpty ? nil : Data(rest.bytes), rest.atEnd, nil)
            }
            DelegateRouter.readClosed(streamTask: task)
            task.finish(error: nil)
        }
        if let failure = actions.failure {
            for call in actions.failedCalls {
                switch call {
                case .read(_, _, _, let completion): completion(nil, false, failure)
                case .write(_, _, let completion): completion(failure)
                default: continue
                }
            }
        }
        if actions.handOver { run(input { $0.handedOver() }, task: task) }
    }

    private func send(_ call: Call, to channel: StreamChannel, task: URLSessionStreamTask) {
        switch call {
        case .read(let min, let max, let timeout, let completion):
            channel.read(minLength: min, maxLength: max, timeout: timeout) { [weak task] result in
                task?.enqueue(.stream(.read(completion, result)))
            }
        case .write(let bytes, let timeout, let completion):
            channel.write(bytes, timeout: timeout) { [weak task] error in
                task?.enqueue(.stream(.wrote(completion, error)))
            }
        case .closeRead:
            channel.closeRead()
        case .closeWrite:
            channel.closeWrite()
        case .startTLS:
            channel.startTLS(trust: task.session.streamTrustHandler(for: task, host: channel.host, port: channel.port))
        case .stopTLS:
            channel.stopTLS()
        }
    }

    private func answerAfterEnd(_ call: Call, _ ended: (any Error)?, rest: StreamRest, task: URLSessionStreamTask) {
        switch call {
        case .read(_, _, _, let completion):
            task.enqueue(.stream(.readAfterEnd(completion, rest.bytes.isEmpty ? nil : Data(rest.bytes),
                                               ended == nil && rest.atEnd, ended)))
        case .write(_, _, let completion):
            task.enqueue(.stream(.writeAfterEnd(completion, ended ?? URLError(
                .networkConnectionLost, url: task.currentRequest?.url, description: "the stream is closed"))))
        case .closeRead, .closeWrite, .startTLS, .stopTLS:
            return
        }
    }

    // MARK: ResponseSink (delegate queue)

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {}

    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError) {}

    func stream(_ event: StreamTaskEvent, for task: URLSessionTask) {
        let streamTask = task.asTask(URLSessionStreamTask.self)
        let url = task.currentRequest?.url
        switch event {
        case .prefix(let bytes):
            input { $0.received(prefix: bytes) }
        case .attached(let channel):
            run(input { $0.attach(channel) }, task: streamTask)
        case .connectFailed(let error):
            task.finish(error: input { $0.finishing(with: URLError(error, url: url), cancellation: cancelled(url)) })
        case .responseEnded:
            // The response completed before the delegate answered: its connection went back to the pool, and
            // the stream holds only the body read so far (`StreamSinkMachine.responseEnded`).
            run(input { $0.responseEnded() }, task: streamTask)
        case .responseFailed(let error):
            if input({ $0.failsWithoutChannel }) { task.finish(error: URLError(error, url: url)) }
        case .readClosed:
            // After cancel() (from the moment it was called) only the replies and the completion go out.
            let ending = task.isEnding
            if input({ $0.reportsClose(taskEnding: ending) }) { DelegateRouter.readClosed(streamTask: streamTask) }
        case .writeClosed:
            let ending = task.isEnding
            if input({ $0.reportsClose(taskEnding: ending) }) { DelegateRouter.writeClosed(streamTask: streamTask) }
        case .finished(let error):
            let error = error.map { URLError($0, url: url) }
            task.finish(error: input { $0.finishing(with: error, cancellation: cancelled(url)) })
        case .read(let completion, let result):
            let actions = input { $0.answered() }
            switch result {
            case .success(let read):
                completion(read.bytes.isEmpty && read.atEOF ? nil : Data(read.bytes), read.atEOF, nil)
            case .failure(let error): completion(nil, false, URLError(error, url: url))
            }
            run(actions, task: streamTask)
        case .wrote(let completion, let error):
            let actions = input { $0.answered() }
            completion(error.map { URLError($0, url: url) })
            run(actions, task: streamTask)
        case .captureReady:
            captureNow(task: streamTask)
        case .readAfterEnd(let completion, let data, let atEOF, let error):
            completion(data, atEOF, error)
        case .writeAfterEnd(let completion, let error):
            completion(error)
        }
    }

    private func cancelled(_ url: URL?) -> URLError {
        URLError(.cancelled, url: url, description: "cancelled")
    }

    /// Hands the channel over as a pair of streams, then completes the task.
    private func captureNow(task: URLSessionStreamTask) {
        guard let channel = input({ $0.takeForCapture() }) else { return }
        let input = StreamTaskInputStream(channel: channel)
        let output = StreamTaskOutputStream(channel: channel)
        if !DelegateRouter.didBecome(streamTask: task, input, output) {
            channel.abort(.cancelled)
        }
        task.finish(error: nil)
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        let failure = error ?? URLError(.networkConnectionLost, url: task.currentRequest?.url,
                                        description: "the stream is closed")
        // A task that ends while its connection is open (cancelled) drops it; a finished channel ignores it.
        run(input { $0.complete(error, failure: failure) }, task: task.asTask(URLSessionStreamTask.self))
        DelegateRouter.didComplete(task: task, error: error)
    }
}

// MARK: - Events

/// What a stream task's connection reported, queued for the delegate queue.
enum StreamTaskEvent {
    /// Body bytes of the response the stream came from (`.becomeStream`), read first.
    case prefix([UInt8])
    /// The connection is there.
    case attached(StreamChannel)
    /// Connecting failed.
    case connectFailed(TransportError)
    /// The response the stream came from completed before its connection could be taken.
    case responseEnded
    /// The response the stream came from failed before its connection could be taken.
    case responseFailed(TransportError)
    case readClosed
    case writeClosed
    case finished(TransportError?)
    case read(StreamSink.ReadCompletion, Result<StreamReadResult, TransportError>)
    case wrote(StreamSink.WriteCompletion, TransportError?)
    /// `captureStreams()` may hand the connection over now.
    case captureReady
    /// A read made after the task completed: what is left of the body it came from, or the task's error.
    case readAfterEnd(StreamSink.ReadCompletion, Data?, Bool, (any Error)?)
    /// A write made after the task completed fails with the task's error (or `networkConnectionLost`).
    case writeAfterEnd(StreamSink.WriteCompletion, any Error)
}

/// Hands a channel's reports (loop thread) to its task's delivery queue.
final class StreamChannelBridge: StreamChannelDelegate {
    private let task: URLSessionTask

    init(task: URLSessionTask) {
        self.task = task
    }

    func streamChannelReadClosed(_ channel: StreamChannel) {
        task.enqueue(.stream(.readClosed))
    }

    func streamChannelWriteClosed(_ channel: StreamChannel) {
        task.enqueue(.stream(.writeClosed))
    }

    func streamChannel(_ channel: StreamChannel, didFinishWith error: TransportError?) {
        task.enqueue(.stream(.finished(error)))
    }
}
