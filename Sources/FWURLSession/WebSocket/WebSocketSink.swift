import Foundation
import FWTransport

// MARK: - WebSocketSink
//
// A WebSocket task's sink. Before the handshake completes, sends, pings, receives and a close wait; when the
// transport hands over the channel (`upgraded`, on the delegate queue) they go to it in order, right after
// `didOpenWithProtocol`. The channel reports on its loop thread through `WebSocketChannelBridge`, which queues
// the reports as task events, so that messages, replies, `didCloseWith` and the completion reach the delegate
// queue in the order they happened. The state and its transitions are `WebSocketSinkMachine`'s
// (`WebSocketSinkMachine.swift`); this class holds it in one lock, applies one input at a time (`input`) and
// runs the actions the input returns after the lock (`run`): no callback and no channel call under the lock.
// A response other than a 101 completes the task with `badServerResponse`.

/// The WebSocket state of one `URLSessionWebSocketTask`.
final class WebSocketSink: ResponseSink {
    typealias Machine = WebSocketSinkMachine<WebSocketChannel>
    typealias Reply = Machine.Reply
    typealias Message = Machine.Message
    typealias Receive = Machine.Receive

    private let machine: LockedBox<Machine>

    init(protocols: [String]) {
        machine = LockedBox(Machine(protocols: protocols))
    }

    /// Applies one input (or reads the state) under the lock: the one door to the machine.
    private func input<Result>(_ body: (inout Machine) -> Result) -> Result {
        machine.withLock { body(&$0) }
    }

    // MARK: Properties

    var maximumMessageSize: Int {
        get { input { $0.maximumMessageSize } }
        set { input { $0.maximumMessageSize = newValue } }
    }

    var closeCode: URLSessionWebSocketTask.CloseCode { input { $0.closeCode } }
    var closeReason: Data? { input { $0.closeReason } }

    // MARK: Calls from the task (any thread)

    func send(_ message: URLSessionWebSocketTask.Message, task: URLSessionTask, completion: @escaping Reply) {
        let wire: WebSocketMessage = switch message {
        case .string(let text): .text(text)
        case .data(let data): .binary([UInt8](data))
        }
        run(input { $0.send(wire, completion) }, task: task)
    }

    func receive(task: URLSessionTask, completion: @escaping Receive) {
        run(input { $0.receive(completion) }, task: task)
    }

    func sendPing(task: URLSessionTask, completion: @escaping Reply) {
        run(input { $0.ping(completion) }, task: task)
    }

    func close(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?, task: URLSessionTask) {
        let wireCode = code == .invalid ? nil : WebSocketCloseCode(rawValue: UInt16(code.rawValue))
        let text = reason.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let frame = WebSocketCloseFrame(code: wireCode, reason: text)
        run(input { $0.close(code, reason: reason, frame: frame) }, task: task)
    }

    /// `cancel()`: an open connection says `goingAway` and is dropped; one still coming is dropped.
    func abandon(task: URLSessionTask) {
        run(input { $0.abandon() }, task: task)
    }

    /// Runs what an input asked for, in `WebSocketSinkActions`' order.
    private func run(_ actions: WebSocketSinkActions<WebSocketChannel>, task: URLSessionTask) {
        if let event = actions.event { task.enqueue(.webSocket(event)) }
        if let channel = actions.channel {
            if actions.start {
                DelegateRouter.didOpen(webSocketTask: task.asTask(URLSessionWebSocketTask.self),
                                       protocol: channel.subprotocol)
                channel.start(delegate: WebSocketChannelBridge(task: task))
            }
            for _ in 0..<actions.requestMessages { channel.requestMessage() }
            for (message, completion) in actions.sends {
                channel.send(message, completion: Self.reply(completion, task: task))
            }
            for completion in actions.pings { channel.sendPing(completion: Self.reply(completion, task: task)) }
            if let close = actions.close { channel.close(close) }
            if actions.abort { channel.abort(.cancelled) }
        }
        if case let (receive, message)? = actions.deliver { receive(.success(message)) }
        if case let (code, reason)? = actions.didClose {
            DelegateRouter.didClose(webSocketTask: task.asTask(URLSessionWebSocketTask.self), code: code,
                                    reason: reason)
        }
        if let failure = actions.failure {
            for receive in actions.failedReceives { receive(.failure(failure)) }
            for reply in actions.failedReplies { reply(failure) }
        }
        if actions.handOver { run(input { $0.handedOver() }, task: task) }
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
        let (protocols, maximum) = input { ($0.protocols, $0.maximumMessageSize) }
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
    func receive(_ bytes: consuming [UInt8], for task: URLSessionTask) throws(URLError) {}

    func upgraded(_ channel: WebSocketChannel, for task: URLSessionTask) {
        run(input { $0.upgraded(channel) }, task: task)
    }

    func webSocket(_ event: WebSocketTaskEvent, for task: URLSessionTask) {
        switch event {
        case .message(let wire):
            let message: Message = switch wire {
            case .text(let text): .string(text)
            case .binary(let bytes): .data(Data(bytes))
            }
            // After cancel() only the completion goes out (and the replies every call is owed).
            let ending = task.isEnding
            run(input { $0.received(message, taskEnding: ending) }, task: task)
        case .closeReceived(let frame):
            let code = URLSessionWebSocketTask.CloseCode(rawValue: Int(frame.code?.rawValue ?? 1005)) ?? .invalid
            let reason = frame.reason.isEmpty ? nil : Data(frame.reason.utf8)
            let ending = task.isEnding
            run(input { $0.closeReceived(code, reason: reason, taskEnding: ending) }, task: task)
        case .finished(let closure):
            // A protocol error (a message too big included) closed with the code the rule names.
            let rule = (closure.error?.underlying as? WebSocketError).flatMap {
                URLSessionWebSocketTask.CloseCode(rawValue: Int($0.closeCode.rawValue))
            }
            let url = task.currentRequest?.url
            let error = input { machine in
                if let rule { machine.closedForProtocolError(rule) }
                return machine.finishing(with: closure.error.map { URLError($0, url: url) },
                                         cancellation: URLError(.cancelled, url: url, description: "cancelled"))
            }
            task.finish(error: error)
        case .reply(let completion, let error):
            completion(error)
        case .answeredReceive(let completion, let answer):
            completion(answer)
        }
    }

    /// A handshake answered with anything but a 101 completes the task with `badServerResponse`.
    func settle(_ error: URLError?, response: URLResponse?, for task: URLSessionTask) -> URLError? {
        guard error == nil, !input({ $0.opened }) else { return error }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return URLError(.badServerResponse, url: task.currentRequest?.url,
                        description: "the server did not switch to the WebSocket protocol (status \(status))")
    }

    func complete(with error: (any Error)?, response: URLResponse?, for task: URLSessionTask) {
        let ended: any Error = error ?? URLError(.networkConnectionLost, url: task.currentRequest?.url,
                                                 description: "the WebSocket connection is closed")
        // A task that ends while open (cancelled, timed out) drops its connection; a finished channel ignores it.
        run(input { $0.complete(ended) }, task: task)
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
