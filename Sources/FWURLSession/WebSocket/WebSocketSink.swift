import Foundation
import FWTransport

// MARK: - WebSocketSink
//
// A WebSocket task's sink and the keeper of its WebSocket state. Before the handshake completes, sends, pings,
// receives and a close wait here; when the transport hands over the channel (`upgraded`, on the delegate
// queue) they go to it in order, right after `didOpenWithProtocol`. The channel reports on its loop thread
// through `WebSocketChannelBridge`, which queues the reports as task events, so that messages, replies,
// `didCloseWith` and the completion reach the delegate queue in the order they happened:
//
//   waiting ──upgraded──▶ open ──the channel finished, or the task completed (cancel, timeout)──▶ ended
//   waiting ──the handshake failed (non-101, bad accept, connection error)──▶ ended
//
// Once ended, every waiting and later call fails with the error the task completed with (or
// `networkConnectionLost` after a clean close) — except receives while messages that came unasked are left:
// after `cancel(with:reason:)` the server may still send what it sent before it saw our close, and the channel
// hands what it parked over at the end; later receives get those first. After `cancel()` no message or close
// reaches anyone. A
// response other than a 101 completes the task with `badServerResponse`. Thread-safe: the state is under
// one `LockedBox`; no callback runs under it.

/// The WebSocket state of one `URLSessionWebSocketTask`.
final class WebSocketSink: ResponseSink {
    typealias Reply = @Sendable ((any Error)?) -> Void
    typealias Message = URLSessionWebSocketTask.Message
    typealias Receive = @Sendable (Result<Message, any Error>) -> Void

    private struct State {
        var protocols: [String]
        var maximumMessageSize = 1024 * 1024
        var channel: WebSocketChannel?
        var opened = false
        /// Receives not answered yet, oldest first (each asked the channel for one message once open).
        var receives: [Receive] = []
        /// Messages that came with no receive waiting (after our close the channel hands over what it parked),
        /// for the next receives, even after the task ended; at most the channel's park limit.
        var unclaimed: [URLSessionWebSocketTask.Message] = []
        /// Sends and pings made before the handshake completed.
        var waitingSends: [(WebSocketMessage, Reply)] = []
        var waitingPings: [Reply] = []
        /// A close asked for before the handshake completed.
        var waitingClose: WebSocketCloseFrame?
        var closeCode = URLSessionWebSocketTask.CloseCode.invalid
        var closeReason: Data?
        /// `cancel()` was called: a channel that arrives later is dropped.
        var abandoned = false
        /// Why later calls fail, once the task completed.
        var ended: (any Error)?
    }

    private let state: LockedBox<State>

    init(protocols: [String]) {
        state = LockedBox(State(protocols: protocols))
    }

    // MARK: Properties

    var maximumMessageSize: Int {
        get { state.withLock { $0.maximumMessageSize } }
        set { state.withLock { $0.maximumMessageSize = max(0, newValue) } }
    }

    var closeCode: URLSessionWebSocketTask.CloseCode { state.withLock { $0.closeCode } }
    var closeReason: Data? { state.withLock { $0.closeReason } }

    // MARK: Calls from the task (any thread)

    func send(_ message: URLSessionWebSocketTask.Message, task: URLSessionTask, completion: @escaping Reply) {
        let wire: WebSocketMessage = switch message {
        case .string(let text): .text(text)
        case .data(let data): .binary([UInt8](data))
        }
        let (channel, ended) = state.withLock { state -> (WebSocketChannel?, (any Error)?) in
            if state.ended == nil, state.channel == nil { state.waitingSends.append((wire, completion)) }
            return (state.channel, state.ended)
        }
        if let ended { return task.enqueue(.webSocket(.reply(completion, ended))) }
        channel?.send(wire, completion: Self.reply(completion, task: task))
    }

    func receive(task: URLSessionTask, completion: @escaping Receive) {
        let (channel, answer) = state.withLock { state -> (WebSocketChannel?, Result<Message, any Error>?) in
            if !state.unclaimed.isEmpty { return (nil, .success(state.unclaimed.removeFirst())) }
            if let ended = state.ended { return (nil, .failure(ended)) }
            state.receives.append(completion)
            return (state.channel, nil)
        }
        if let answer { return task.enqueue(.webSocket(.answeredReceive(completion, answer))) }
        channel?.requestMessage()
    }

    func sendPing(task: URLSessionTask, completion: @escaping Reply) {
        let (channel, ended) = state.withLock { state -> (WebSocketChannel?, (any Error)?) in
            if state.ended == nil, state.channel == nil { state.waitingPings.append(completion) }
            return (state.channel, state.ended)
        }
        if let ended { return task.enqueue(.webSocket(.reply(completion, ended))) }
        channel?.sendPing(completion: Self.reply(completion, task: task))
    }

    func close(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?, task: URLSessionTask) {
        let wireCode = code == .invalid ? nil : WebSocketCloseCode(rawValue: UInt16(code.rawValue))
        let text = reason.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let frame = WebSocketCloseFrame(code: wireCode, reason: text)
        let channel = state.withLock { state -> WebSocketChannel? in
            guard state.ended == nil else { return nil }
            if state.closeCode == .invalid {
                state.closeCode = code
                state.closeReason = reason
            }
            if state.channel == nil { state.waitingClose = frame }
            return state.channel
        }
        channel?.close(frame)
    }

    /// `cancel()`: an open connection says `goingAway` and is dropped; one still coming is dropped.
    func abandon() {
        let channel = state.withLock { state -> WebSocketChannel? in
            state.abandoned = true
            return state.channel
        }
        channel?.close(WebSocketCloseFrame(code: .goingAway))
        channel?.abort(.cancelled)
    }

    /// A reply from the channel's loop, handed to the delegate queue in order with the task's other events.
    private static func reply(_ completion: @escaping Reply, task: URLSessionTask) -> WebSocketChannel.Completion {
        { [weak task] error in
            guard let task else { return }
            let url = task.currentRequest?.url
            task.enqueue(.webSocket(.reply(completion, error.map { URLError($0, url: url) })))
        }
    }

    // MARK: ResponseSink (delegate queue)

    func webSocketUpgrade(for request: URLRequest, task: URLSessionTask) throws(URLError) -> WebSocketUpgrade? {
        let (protocols, maximum) = state.withLock { ($0.protocols, $0.maximumMessageSize) }
        var limits = WebSocketLimits()
        limits.maxMessageSize = maximum
        limits.maxFramePayload = max(limits.maxFramePayload, maximum)
        do throws(WebSocketHandshakeError) {
            return try WebSocketUpgrade(protocols: protocols, limits: limits)
        } catch {
            throw URLError(.badURL, url: request.url,
                           description: "invalid WebSocket subprotocols \(protocols): \(error)")
        }
    }

    func receive(_ response: HTTPURLResponse, for task: URLSessionTask) throws(URLError) {}

    /// A response other than 101 may have a body: it is not the task's business.
    func receive(_ bytes: [UInt8], for task: URLSessionTask) throws(URLError) {}

    func upgraded(_ channel: WebSocketChannel, for task: URLSessionTask) {
        let opened = state.withLock { state -> (sends: [(WebSocketMessage, Reply)], pings: [Reply], demand: Int,
                                                close: WebSocketCloseFrame?)? in
            guard !state.abandoned, state.ended == nil else { return nil }
            state.channel = channel
            state.opened = true
            defer {
                state.waitingSends = []
                state.waitingPings = []
                state.waitingClose = nil
            }
            return (state.waitingSends, state.waitingPings, state.receives.count, state.waitingClose)
        }
        guard let opened else { return channel.abort(.cancelled) }
        DelegateRouter.didOpen(webSocketTask: task.asTask(URLSessionWebSocketTask.self), protocol: channel.subprotocol)
        channel.start(delegate: WebSocketChannelBridge(task: task))
        for _ in 0..<opened.demand { channel.requestMessage() }
        for (message, completion) in opened.sends {
            channel.send(message, completion: Self.reply(completion, task: task))
        }
        for completion in opened.pings { channel.sendPing(completion: Self.reply(completion, task: task)) }
        if let close = opened.close { channel.close(close) }
    }

    func webSocket(_ event: WebSocketTaskEvent, for task: URLSessionTask) {
        // After cancel() only the completion goes out (and the replies every call is owed).
        let ending = [.canceling, .completed].contains(task.state)
        switch event {
        case .message where ending, .closeReceived where ending:
            return
        case .message(let wire):
            let message: Message = switch wire {
            case .text(let text): .string(text)
            case .binary(let bytes): .data(Data(bytes))
            }
            let receive = state.withLock { state -> Receive? in
                guard !state.receives.isEmpty else {
                    state.unclaimed.append(message)
                    return nil
                }
                return state.receives.removeFirst()
            }
            receive?(.success(message))
        case .closeReceived(let frame):
            let code = URLSessionWebSocketTask.CloseCode(rawValue: Int(frame.code?.rawValue ?? 1005)) ?? .invalid
            let reason = frame.reason.isEmpty ? nil : Data(frame.reason.utf8)
            state.withLock { state in
                guard state.closeCode == .invalid else { return }
                state.closeCode = code
                state.closeReason = reason
            }
            let webSocketTask = task.asTask(URLSessionWebSocketTask.self)
            DelegateRouter.didClose(webSocketTask: webSocketTask, code: code, reason: reason)
        case .finished(let closure):
            // A protocol error (a message too big included) closed with the code the rule names.
            if let error = closure.error?.underlying as? WebSocketError,
               let code = URLSessionWebSocketTask.CloseCode(rawValue: Int(error.closeCode.rawValue)) {
                state.withLock { state in
                    if state.closeCode == .invalid { state.closeCode = code }
                }
            }
            task.finish(error: closure.error.map { URLError($0, url: task.currentRequest?.url) })
        case .reply(let completion, let error):
            completion(error)
        case .answeredReceive(let completion, let answer):
            completion(answer)
        }
    }

    /// A handshake answered with anything but a 101 completes the task with `badServerResponse`.
    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError? {
        guard error == nil, !state.withLock({ $0.opened }) else { return error }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return URLError(.badServerResponse, url: task.currentRequest?.url,
                        description: "the server did not switch to the WebSocket protocol (status \(status))")
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        let ended: any Error = error ?? URLError(.networkConnectionLost, url: task.currentRequest?.url,
                                                 description: "the WebSocket connection is closed")
        let (channel, receives, replies) = state.withLock { state in
            state.ended = ended
            defer {
                state.channel = nil
                state.receives = []
                state.waitingSends = []
                state.waitingPings = []
            }
            return (state.channel, state.receives, state.waitingSends.map(\.1) + state.waitingPings)
        }
        // A task that ends while open (cancelled, timed out) drops its connection; a finished channel ignores it.
        channel?.abort(.cancelled)
        for receive in receives { receive(.failure(ended)) }
        for reply in replies { reply(ended) }
        DelegateRouter.didComplete(task: task, error: error)
    }
}

// MARK: - Events

/// What a WebSocket task's channel reported, queued for the delegate queue.
enum WebSocketTaskEvent {
    /// A message, for the oldest receive.
    case message(WebSocketMessage)
    /// The server's close frame.
    case closeReceived(WebSocketCloseFrame)
    /// The channel ended.
    case finished(WebSocketClosure)
    /// A send or ping finished (nil) or failed.
    case reply(@Sendable ((any Error)?) -> Void, (any Error)?)
    /// A receive answered at once: with a message that came unasked, or the error of the end.
    case answeredReceive(@Sendable (Result<URLSessionWebSocketTask.Message, any Error>) -> Void,
                         Result<URLSessionWebSocketTask.Message, any Error>)
}

/// Hands a channel's reports (loop thread) to its task's delivery queue.
final class WebSocketChannelBridge: WebSocketChannelDelegate {
    private let task: URLSessionTask

    init(task: URLSessionTask) {
        self.task = task
    }

    func webSocketChannel(_ channel: WebSocketChannel, didReceive message: WebSocketMessage) {
        task.enqueue(.webSocket(.message(message)))
    }

    func webSocketChannel(_ channel: WebSocketChannel, didReceiveClose frame: WebSocketCloseFrame) {
        task.enqueue(.webSocket(.closeReceived(frame)))
    }

    func webSocketChannel(_ channel: WebSocketChannel, didFinish closure: WebSocketClosure) {
        task.enqueue(.webSocket(.finished(closure)))
    }
}
