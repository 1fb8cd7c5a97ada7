import Foundation
import FWTransport

// MARK: - StreamSink
//
// A stream task's sink and the keeper of its stream state. Calls made before the connection exists (reads,
// writes, closes, TLS) wait here in order and go to the `StreamChannel` once it arrives: from
// `HTTPTransport.openStream` for `streamTask(withHostName:port:)`, or from the connection of a data task
// that answered `.becomeStream` (whose body bytes read so far arrive first, as `prefix`, and are read first).
// The channel reports on its loop thread through `StreamChannelBridge`, and each reply is queued as a task
// event, so completion handlers and delegate messages reach the delegate queue in the order they happened:
//
//   waiting ──channel──▶ open ──the channel finished, or the task completed (cancel)──▶ ended
//   waiting ──connect failed / the response ended without a connection──▶ ended
//   open ──captureStreams, once the calls before it were answered──▶ captured (the streams own the channel)
//
// Once ended, every later call fails with the error the task completed with, or — after a clean end —
// reads report the end of the stream and writes fail. Thread-safe: the state is under one `LockedBox`; no
// callback runs under it.

/// The stream state of one `URLSessionStreamTask`.
final class StreamSink: ResponseSink {
    typealias ReadCompletion = @Sendable (Data?, Bool, (any Error)?) -> Void
    typealias WriteCompletion = @Sendable ((any Error)?) -> Void

    /// A call made before the channel arrived.
    enum Call {
        case read(min: Int, max: Int, timeout: Duration?, ReadCompletion)
        case write([UInt8], timeout: Duration?, WriteCompletion)
        case closeRead
        case closeWrite
        case startTLS
        case stopTLS
    }

    private struct State {
        var channel: StreamChannel?
        var waiting: [Call] = []
        /// Body bytes of the response the stream came from, read before anything else.
        var prefix: [UInt8] = []
        /// Reads and writes handed to the channel and not answered yet.
        var outstanding = 0
        var capturing = false
        var captured = false
        var abandoned = false
        /// Why later calls fail (nil inside: the stream ended cleanly), once the task completed.
        var ended: (any Error)??
    }

    private let state = LockedBox(State())

    // MARK: Calls from the task (any thread)

    func call(_ call: Call, task: URLSessionStreamTask) {
        let (channel, ended, rest) = state.withLock { state -> (StreamChannel?, (any Error)??, Rest) in
            guard state.ended == nil, !state.captured else {
                // A stream whose response ended without its connection still reads that response's body.
                guard case .read(_, let max, _, _) = call, case .some(nil) = state.ended else {
                    return (nil, state.ended ?? .some(nil), Rest())
                }
                return (nil, .some(nil), Self.takePrefix(max, from: &state))
            }
            if state.channel == nil { state.waiting.append(call) } else if call.isAnswered { state.outstanding += 1 }
            return (state.channel, nil, Rest())
        }
        if let ended { return answerAfterEnd(call, ended, rest: rest, task: task) }
        if let channel { send(call, to: channel, task: task) }
    }

    /// What a read after the end gets of the body the stream came from, and whether that is all of it.
    struct Rest {
        var bytes: [UInt8] = []
        var atEnd = true
    }

    /// Takes up to `max` bytes of the body the stream came from (under the state's lock).
    private static func takePrefix(_ max: Int, from state: inout State) -> Rest {
        let count = Swift.min(max, state.prefix.count)
        defer { state.prefix.removeFirst(count) }
        return Rest(bytes: Array(state.prefix[0..<count]), atEnd: count == state.prefix.count)
    }

    /// `captureStreams()`: once the reads and writes made before it are answered, the connection becomes a
    /// pair of streams for the delegate and the task completes.
    func capture(task: URLSessionStreamTask) {
        let ready = state.withLock { state -> Bool in
            guard state.ended == nil, !state.capturing else { return false }
            state.capturing = true
            return state.channel != nil && state.waiting.isEmpty && state.outstanding == 0
        }
        if ready { task.enqueue(.stream(.captureReady)) }
    }

    /// `cancel()`: the connection (or the one still coming) is dropped.
    func abandon() {
        let channel = state.withLock { state -> StreamChannel? in
            state.abandoned = true
            return state.captured ? nil : state.channel
        }
        channel?.abort(.cancelled)
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

    private func answerAfterEnd(_ call: Call, _ ended: (any Error)?, rest: Rest, task: URLSessionStreamTask) {
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

    func receive(_ bytes: [UInt8], for task: URLSessionTask) throws(URLError) {}

    func stream(_ event: StreamTaskEvent, for task: URLSessionTask) {
        let streamTask = task.asTask(URLSessionStreamTask.self)
        let url = task.currentRequest?.url
        switch event {
        case .prefix(let bytes):
            state.withLock { $0.prefix += bytes }
        case .attached(let channel):
            attach(channel, task: streamTask)
        case .connectFailed(let error):
            task.finish(error: URLError(error, url: url))
        case .responseEnded:
            // The response completed before the delegate answered: its connection went back to the pool, and
            // the stream holds only the body read so far. The stream ends cleanly in the same critical section
            // that answers the waiting reads, so a read made meanwhile from another thread either waited (and
            // is answered here) or reads what is left of the body (`call`): it never finds the stream closed.
            guard let answers = state.withLock({ Self.endWithoutChannel(&$0) }) else { return }
            for (completion, rest) in answers {
                completion(rest.bytes.isEmpty ? nil : Data(rest.bytes), rest.atEnd, nil)
            }
            DelegateRouter.readClosed(streamTask: streamTask)
            task.finish(error: nil)
        case .responseFailed(let error):
            if state.withLock({ $0.channel == nil }) { task.finish(error: URLError(error, url: url)) }
        case .readClosed:
            if !task.isEnding { DelegateRouter.readClosed(streamTask: streamTask) }
        case .writeClosed:
            if !task.isEnding { DelegateRouter.writeClosed(streamTask: streamTask) }
        case .finished(let error):
            task.finish(error: error.map { URLError($0, url: url) })
        case .read(let completion, let result):
            let ready = answered()
            switch result {
            case .success(let read):
                completion(read.bytes.isEmpty && read.atEOF ? nil : Data(read.bytes), read.atEOF, nil)
            case .failure(let error): completion(nil, false, URLError(error, url: url))
            }
            if ready { captureNow(task: streamTask) }
        case .wrote(let completion, let error):
            let ready = answered()
            completion(error.map { URLError($0, url: url) })
            if ready { captureNow(task: streamTask) }
        case .captureReady:
            captureNow(task: streamTask)
        case .readAfterEnd(let completion, let data, let atEOF, let error):
            completion(data, atEOF, error)
        case .writeAfterEnd(let completion, let error):
            completion(error)
        }
    }

    /// Ends a stream that never got a channel (under the state's lock): the waiting reads take the body
    /// read so far, in order; what no read took stays for the reads to come. Nil when the stream has a
    /// channel or already ended.
    private static func endWithoutChannel(_ state: inout State) -> [(ReadCompletion, Rest)]? {
        guard state.channel == nil, state.ended == nil else { return nil }
        state.ended = .some(nil)
        let waiting = state.waiting
        state.waiting = []
        var answers: [(ReadCompletion, Rest)] = []
        for case .read(_, let max, _, let completion) in waiting {
            answers.append((completion, takePrefix(max, from: &state)))
        }
        return answers
    }

    /// One read or write was answered; true when a capture waited for exactly that.
    private func answered() -> Bool {
        state.withLock { state in
            // Replies to calls made after the end were never counted.
            state.outstanding = Swift.max(0, state.outstanding - 1)
            return state.capturing && !state.captured && state.outstanding == 0 && state.waiting.isEmpty
        }
    }

    private func attach(_ channel: StreamChannel, task: URLSessionStreamTask) {
        let taken = state.withLock { state -> (calls: [Call], prefix: [UInt8], capture: Bool)? in
            guard !state.abandoned, state.ended == nil else { return nil }
            state.channel = channel
            defer {
                state.waiting = []
                state.prefix = []
            }
            state.outstanding += state.waiting.filter(\.isAnswered).count
            return (state.waiting, state.prefix, state.capturing && state.outstanding == 0)
        }
        guard let taken else { return channel.abort(.cancelled) }
        channel.start(delegate: StreamChannelBridge(task: task), prefix: taken.prefix)
        for call in taken.calls { send(call, to: channel, task: task) }
        if taken.capture { captureNow(task: task) }
    }

    /// Hands the channel over as a pair of streams, then completes the task.
    private func captureNow(task: URLSessionStreamTask) {
        let channel = state.withLock { state -> StreamChannel? in
            guard !state.captured, state.ended == nil, let channel = state.channel else { return nil }
            state.captured = true
            return channel
        }
        guard let channel else { return }
        let input = StreamTaskInputStream(channel: channel)
        let output = StreamTaskOutputStream(channel: channel)
        if !DelegateRouter.didBecome(streamTask: task, input, output) {
            channel.abort(.cancelled)
        }
        task.finish(error: nil)
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        let (channel, waiting) = state.withLock { state -> (StreamChannel?, [Call]) in
            state.ended = .some(error)
            defer {
                state.channel = nil
                state.waiting = []
            }
            return (state.captured ? nil : state.channel, state.waiting)
        }
        // A task that ends while its connection is open (cancelled) drops it; a finished channel ignores it.
        channel?.abort(.cancelled)
        let failure = error ?? URLError(.networkConnectionLost, url: task.currentRequest?.url,
                                        description: "the stream is closed")
        for call in waiting {
            switch call {
            case .read(_, _, _, let completion): completion(nil, false, failure)
            case .write(_, _, let completion): completion(failure)
            default: continue
            }
        }
        DelegateRouter.didComplete(task: task, error: error)
    }
}

extension StreamSink.Call {
    /// Whether the call gets a reply (reads and writes).
    var isAnswered: Bool {
        switch self {
        case .read, .write: true
        default: false
        }
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
