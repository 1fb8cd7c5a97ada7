import Foundation
import FWTransport

// MARK: - WebSocketSinkMachine
//
// A WebSocket task's own state, as one value type: the channel once the handshake completed, the calls that
// wait for it, the receives not answered yet, the messages nobody asked for, the close code and reason. The
// sink (`WebSocketSink`) feeds it one input at a time under its one lock and runs the `WebSocketSinkActions`
// the input returns after the lock; the machine calls nothing, so every row of its behaviour is a table test
// (`WebSocketSinkMachineTests`) with no socket and no server. Generic over the channel only so that the
// tests can use a stand-in.
//
//   waiting ──upgraded──▶ open(channel) ──complete (the channel finished, cancel, timeout)──▶ ended(error)
//      │                      │
//      │                      └─ send, ping, receive, close: straight to the channel
//      ├─ send, ping, receive, close: wait here; `upgraded` hands them over in order (receives as demand)
//      └──complete (non-101, bad accept, connection error)──────────────────────────────────▶ ended(error)
//
//   abandon (`cancel()`), in any phase: a channel that arrives later is aborted; an open one is sent a
//   `goingAway` close and aborted; from then on no message and no close frame reaches anyone, and the
//   channel's end completes the task with `cancelled` (even a close handshake that completed first).
//
// One thread at a time hands sends, pings and the close to an open channel (`sending`): the one that saw it
// open or made a call when nobody was handing over. Those calls made meanwhile on another thread wait and go
// after the calls before them (`handedOver`), so the channel gets them in the order they were made although
// they are sent after the lock (a message sent right after the handshake once overtook one that waited for
// it).
//
// Once ended, every waiting and later call fails with the error the task completed with — except receives
// while messages that came unasked are left (after `cancel(with:reason:)` the channel hands over what it
// parked): later receives get those first, even after the end. The close code is set once: by our
// `close`, else by the server's close frame, else by the protocol error that closed the channel.

struct WebSocketSinkMachine<Channel> {
    typealias Reply = @Sendable ((any Error)?) -> Void
    typealias Message = URLSessionWebSocketTask.Message
    typealias Receive = @Sendable (Result<Message, any Error>) -> Void
    typealias Actions = WebSocketSinkActions<Channel>

    enum Phase {
        /// The handshake has not completed.
        case waiting
        /// The handshake completed: calls go to `channel`.
        case open(Channel)
        /// The task completed: later calls fail with `error`.
        case ended(any Error)
    }

    private(set) var phase = Phase.waiting
    /// The subprotocols the handshake offers.
    let protocols: [String]
    /// The largest message accepted (read when the handshake is sent).
    var maximumMessageSize = 1024 * 1024 {
        didSet { maximumMessageSize = max(0, maximumMessageSize) }
    }
    /// The handshake completed (the phase went through `open`).
    private(set) var opened = false
    /// `cancel()` was called.
    private(set) var abandoned = false
    private(set) var closeCode = URLSessionWebSocketTask.CloseCode.invalid
    private(set) var closeReason: Data?
    /// Receives not answered yet, oldest first (each asked the channel for one message once open).
    private(set) var receives: [Receive] = []
    /// Messages that came with no receive waiting, for the next receives; at most the channel's park limit.
    private(set) var unclaimed: [Message] = []
    /// Sends and pings made before the handshake completed, and a close asked for meanwhile.
    private(set) var waitingSends: [(WebSocketMessage, Reply)] = []
    /// A thread is handing sends, pings or the close to the channel; those made meanwhile wait behind them.
    private(set) var sending = false
    private(set) var waitingPings: [Reply] = []
    private(set) var waitingClose: WebSocketCloseFrame?

    init(protocols: [String]) {
        self.protocols = protocols
    }

    private var channel: Channel? {
        if case .open(let channel) = phase { channel } else { nil }
    }

    private var endError: (any Error)? {
        if case .ended(let error) = phase { error } else { nil }
    }

    // MARK: Calls (any thread)

    /// `send(_:)`: waits for the handshake, goes to the channel, or fails with the end's error.
    mutating func send(_ message: WebSocketMessage, _ reply: @escaping Reply) -> Actions {
        switch phase {
        case .waiting: waitingSends.append((message, reply)); return Actions()
        case .open where sending: waitingSends.append((message, reply)); return Actions()
        case .open(let channel):
            sending = true
            return Actions(channel: channel, sends: [(message, reply)], handOver: true)
        case .ended(let error): return Actions(event: .reply(reply, error))
        }
    }

    /// `sendPing`: like `send`.
    mutating func ping(_ reply: @escaping Reply) -> Actions {
        switch phase {
        case .waiting: waitingPings.append(reply); return Actions()
        case .open where sending: waitingPings.append(reply); return Actions()
        case .open(let channel):
            sending = true
            return Actions(channel: channel, pings: [reply], handOver: true)
        case .ended(let error): return Actions(event: .reply(reply, error))
        }
    }

    /// `receive`: a message that came unasked, else waits (asking an open channel for one message), else
    /// fails with the end's error.
    mutating func receive(_ receive: @escaping Receive) -> Actions {
        if !unclaimed.isEmpty { return Actions(event: .answeredReceive(receive, .success(unclaimed.removeFirst()))) }
        if let error = endError { return Actions(event: .answeredReceive(receive, .failure(error))) }
        receives.append(receive)
        guard let channel else { return Actions() }
        return Actions(channel: channel, requestMessages: 1)
    }

    /// `cancel(with:reason:)`: the first close sets the close code; the frame goes out now or once open.
    mutating func close(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?,
                        frame: WebSocketCloseFrame) -> Actions {
        guard endError == nil else { return Actions() }
        if closeCode == .invalid {
            closeCode = code
            closeReason = reason
        }
        guard let channel, !sending else {
            waitingClose = frame
            return Actions()
        }
        sending = true
        return Actions(channel: channel, close: frame, handOver: true)
    }

    /// The sender handed its calls to the channel: the sends, pings and close made meanwhile, to hand over
    /// next (in order), or the end of the sending.
    mutating func handedOver() -> Actions {
        guard let channel, !waitingSends.isEmpty || !waitingPings.isEmpty || waitingClose != nil else {
            sending = false
            return Actions()
        }
        defer {
            waitingSends = []
            waitingPings = []
            waitingClose = nil
        }
        return Actions(channel: channel, sends: waitingSends, pings: waitingPings, close: waitingClose, handOver: true)
    }

    /// `cancel()`: an open channel is closed with `goingAway` and aborted; a later one is refused.
    mutating func abandon() -> Actions {
        abandoned = true
        guard let channel else { return Actions() }
        return Actions(channel: channel, close: WebSocketCloseFrame(code: .goingAway), abort: true)
    }

    // MARK: Events (delegate queue)

    /// The handshake completed with `channel`: it starts and gets what waited, in order — unless the task was
    /// cancelled or ended meanwhile, then it is aborted.
    mutating func upgraded(_ channel: Channel) -> Actions {
        guard !abandoned, case .waiting = phase else { return Actions(channel: channel, abort: true) }
        phase = .open(channel)
        opened = true
        sending = true
        defer {
            waitingSends = []
            waitingPings = []
            waitingClose = nil
        }
        return Actions(channel: channel, start: true, requestMessages: receives.count, sends: waitingSends,
                       pings: waitingPings, close: waitingClose, handOver: true)
    }

    /// A message from the channel: for the oldest receive, else kept for the next. Dropped once the task is
    /// ending (`taskEnding`: cancelled or completed) or was abandoned.
    mutating func received(_ message: Message, taskEnding: Bool) -> Actions {
        guard !taskEnding, !abandoned else { return Actions() }
        guard !receives.isEmpty else {
            unclaimed.append(message)
            return Actions()
        }
        return Actions(deliver: (receives.removeFirst(), message))
    }

    /// The server's close frame: sets the close code unless ours came first, and tells the delegate. Dropped
    /// like a message.
    mutating func closeReceived(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?,
                                taskEnding: Bool) -> Actions {
        guard !taskEnding, !abandoned else { return Actions() }
        if closeCode == .invalid {
            closeCode = code
            closeReason = reason
        }
        return Actions(didClose: (code, reason))
    }

    /// The channel closed for a protocol error whose rule names `code` (a message too big included).
    mutating func closedForProtocolError(_ code: URLSessionWebSocketTask.CloseCode) {
        if closeCode == .invalid { closeCode = code }
    }

    /// The channel finished with `error` (nil: a complete close handshake): what the task completes with —
    /// `cancellation` once abandoned, whatever raced the abort (a close handshake the server completed between
    /// our `goingAway` and the abort included).
    func finishing(with error: (any Error)?, cancellation: @autoclosure () -> any Error) -> (any Error)? {
        abandoned ? cancellation() : error
    }

    /// The task completed: later calls fail with `error`; an open channel is aborted (a finished one
    /// ignores it); the receives and the replies that waited fail now.
    mutating func complete(_ error: any Error) -> Actions {
        let channel = self.channel
        phase = .ended(error)
        defer {
            receives = []
            waitingSends = []
            waitingPings = []
        }
        return Actions(channel: channel, abort: channel != nil, failure: error, failedReceives: receives,
                       failedReplies: waitingSends.map(\.1) + waitingPings)
    }
}

// MARK: - WebSocketSinkActions

/// What one input of `WebSocketSinkMachine` asks the sink to do once the lock is released, in the order of
/// the slots: the event queued first, then the channel calls (start, demand, sends, pings, close, abort), then
/// the callbacks the delegate queue runs now.
struct WebSocketSinkActions<Channel> {
    typealias Machine = WebSocketSinkMachine<Channel>

    /// A call answered at once, queued for the delegate queue.
    var event: WebSocketTaskEvent?
    /// The channel the calls below go to.
    var channel: Channel?
    /// Tell the delegate the handshake completed and start the channel.
    var start = false
    /// Ask the channel for this many messages.
    var requestMessages = 0
    var sends: [(WebSocketMessage, Machine.Reply)] = []
    var pings: [Machine.Reply] = []
    var close: WebSocketCloseFrame?
    /// Abort the channel (`cancelled`).
    var abort = false
    /// Hand a message to the receive that waited for it.
    var deliver: (Machine.Receive, Machine.Message)?
    /// Tell the delegate the server closed.
    var didClose: (URLSessionWebSocketTask.CloseCode, Data?)?
    /// Fail these receives and replies with `failure`.
    var failure: (any Error)?
    var failedReceives: [Machine.Receive] = []
    var failedReplies: [Machine.Reply] = []
    /// Once everything else here ran, ask for the sends, pings and close made meanwhile (`handedOver`): this
    /// thread sends.
    var handOver = false
}
