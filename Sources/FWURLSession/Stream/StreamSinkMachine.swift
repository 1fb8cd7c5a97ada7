import Foundation
import FWTransport

// MARK: - StreamSinkMachine
//
// A stream task's own state, as one value type: the channel once it arrived, the calls that wait for it, the
// body bytes of the response the stream came from, the reads and writes not answered yet, the capture and
// the end. The sink (`StreamSink`) feeds it one input at a time under its one lock and runs the
// `StreamSinkActions` the input returns after the lock; the machine calls nothing, so every row of its
// behaviour is a table test (`StreamSinkMachineTests`) with no socket and no server. Generic over the channel
// only so that the tests can use a stand-in.
//
//   waiting ──attach(channel)──▶ open ──the channel finished, or the task completed (cancel)──▶ ended
//      │                           │
//      │                           └──capture, once the reads and writes made before it were answered──▶ captured
//      ├──connect failed, or the response ended or failed without a connection──────────────────────▶ ended
//      └─ calls wait here, in order; `attach` hands them (and the body read so far, first) to the channel
//
//   abandon (`cancel()`), in any phase: a channel that arrives later is aborted, an open one is aborted, the
//   channel's read-closed and write-closed reports no longer reach the delegate, and the channel's end (or a
//   failed connect) completes the task with `cancelled`, whatever raced the abort.
//
// One thread at a time hands calls to the channel (`sending`): the one that attached it or made a call when
// nobody was handing over. A call made meanwhile, on another thread, waits in `waiting` and goes to the
// channel after the calls before it (`handedOver`), so the channel gets the calls in the order they were
// made even though they are sent after the lock (a write made right after `closeWrite()` once reached the
// channel first, and succeeded).
//
// Once ended (or captured: the streams own the channel), every later call fails with the error the task
// completed with, or — after a clean end — reads get what is left of the body the stream came from and then
// the end of the stream, and writes fail.

/// A call made on a stream task.
enum StreamCall {
    typealias ReadCompletion = @Sendable (Data?, Bool, (any Error)?) -> Void
    typealias WriteCompletion = @Sendable ((any Error)?) -> Void

    case read(min: Int, max: Int, timeout: Duration?, ReadCompletion)
    case write([UInt8], timeout: Duration?, WriteCompletion)
    case closeRead
    case closeWrite
    case startTLS
    case stopTLS

    /// Whether the call gets a reply (reads and writes).
    var isAnswered: Bool {
        switch self {
        case .read, .write: true
        default: false
        }
    }
}

/// What a read after the end gets of the body the stream came from, and whether that is all of it.
struct StreamRest {
    var bytes: [UInt8] = []
    var atEnd = true
}

struct StreamSinkMachine<Channel> {
    typealias Actions = StreamSinkActions<Channel>

    private(set) var channel: Channel?
    private(set) var waiting: [StreamCall] = []
    /// A thread is handing calls to the channel; calls made meanwhile wait behind them.
    private(set) var sending = false
    /// Body bytes of the response the stream came from, read before anything else.
    private(set) var prefix: [UInt8] = []
    /// Reads and writes handed to the channel and not answered yet.
    private(set) var outstanding = 0
    private(set) var capturing = false
    private(set) var captured = false
    private(set) var abandoned = false
    /// Why later calls fail (nil inside: the stream ended cleanly), once the task completed.
    private(set) var ended: (any Error)??

    // MARK: Calls (any thread)

    /// A read, write, close or TLS call: waits for the channel, goes to it, or is answered as after the end.
    mutating func call(_ call: StreamCall) -> Actions {
        guard ended == nil, !captured else {
            // A stream whose response ended without its connection still reads that response's body.
            guard case .read(_, let max, _, _) = call, case .some(nil) = ended else {
                let error: (any Error)? = if case .some(.some(let error)) = ended { error } else { nil }
                return Actions(afterEnd: (call, error, StreamRest()))
            }
            return Actions(afterEnd: (call, nil, takePrefix(max)))
        }
        guard let channel else {
            waiting.append(call)
            return Actions()
        }
        if call.isAnswered { outstanding += 1 }
        guard !sending else {
            waiting.append(call)
            return Actions()
        }
        sending = true
        return Actions(channel: channel, calls: [call], handOver: true)
    }

    /// The sender handed its calls to the channel: the calls made meanwhile, to hand over next (in order), or
    /// the end of the sending.
    mutating func handedOver() -> Actions {
        guard let channel, !waiting.isEmpty else {
            sending = false
            return Actions()
        }
        defer { waiting = [] }
        return Actions(channel: channel, calls: waiting, handOver: true)
    }

    /// `captureStreams()`: the capture happens once the reads and writes made before it are answered — now
    /// (queued, `captureReady`) when nothing is left.
    mutating func capture() -> Actions {
        guard ended == nil, !capturing else { return Actions() }
        capturing = true
        return Actions(captureReady: channel != nil && waiting.isEmpty && outstanding == 0)
    }

    /// `cancel()`: the connection (or the one still coming) is dropped; streams captured keep theirs.
    mutating func abandon() -> Actions {
        abandoned = true
        guard !captured, let channel else { return Actions() }
        return Actions(channel: channel, abort: true)
    }

    // MARK: Events (delegate queue)

    /// Body bytes of the response the stream came from.
    mutating func received(prefix bytes: [UInt8]) {
        prefix += bytes
    }

    /// The connection is there: it starts with the body read so far and gets the calls that waited, in order
    /// — unless the task was cancelled or ended meanwhile, then it is aborted.
    mutating func attach(_ channel: Channel) -> Actions {
        guard !abandoned, ended == nil else { return Actions(channel: channel, abort: true) }
        self.channel = channel
        defer {
            waiting = []
            prefix = []
        }
        outstanding += waiting.filter(\.isAnswered).count
        sending = true
        return Actions(channel: channel, start: prefix, calls: waiting, handOver: true,
                       captureNow: capturing && outstanding == 0)
    }

    /// The response completed before the delegate answered: the stream ends cleanly with only the body read
    /// so far, in the same input that answers the waiting reads — so a read made meanwhile either waited (and
    /// is answered here) or reads what is left of the body (`call`): it never finds the stream closed. What
    /// no read took stays for the reads to come; writes that waited fail at the completion (`complete`).
    /// Nothing when the stream has a channel or already ended.
    mutating func responseEnded() -> Actions {
        guard channel == nil, ended == nil else { return Actions() }
        ended = .some(nil)
        var answers: [(StreamCall.ReadCompletion, StreamRest)] = []
        for case .read(_, let max, _, let completion) in waiting {
            answers.append((completion, takePrefix(max)))
        }
        // The writes that waited stay, for the completion this end brings to fail.
        waiting.removeAll { if case .read = $0 { true } else { false } }
        return Actions(endedWithoutChannel: answers)
    }

    /// Whether a failure of the response the stream came from ends the task (it has no connection yet).
    var failsWithoutChannel: Bool { channel == nil }

    /// Whether the channel's read-closed or write-closed report reaches the delegate.
    func reportsClose(taskEnding: Bool) -> Bool {
        !taskEnding && !abandoned
    }

    /// The connection failed or finished with `error` (nil: cleanly): what the task completes with —
    /// `cancellation` once abandoned, whatever raced the abort.
    func finishing(with error: (any Error)?, cancellation: @autoclosure () -> any Error) -> (any Error)? {
        abandoned ? cancellation() : error
    }

    /// One read or write was answered; `captureNow` when a capture waited for exactly that.
    mutating func answered() -> Actions {
        // Replies to calls made after the end were never counted.
        outstanding = Swift.max(0, outstanding - 1)
        return Actions(captureNow: capturing && !captured && outstanding == 0 && waiting.isEmpty)
    }

    /// The capture: the channel, once, to be handed over as a pair of streams (nil when there is none).
    mutating func takeForCapture() -> Channel? {
        guard !captured, ended == nil, let channel else { return nil }
        captured = true
        return channel
    }

    /// The task completed (`error` nil: cleanly): a channel not captured is aborted (a finished one ignores
    /// it), the calls that waited fail with `failure`.
    mutating func complete(_ error: (any Error)?, failure: any Error) -> Actions {
        ended = .some(error)
        defer {
            channel = nil
            waiting = []
        }
        return Actions(channel: captured ? nil : channel, abort: !captured && channel != nil,
                       failure: failure, failedCalls: waiting)
    }

    /// Takes up to `max` bytes of the body the stream came from.
    private mutating func takePrefix(_ max: Int) -> StreamRest {
        let count = Swift.min(max, prefix.count)
        defer { prefix.removeFirst(count) }
        return StreamRest(bytes: Array(prefix[0..<count]), atEnd: count == prefix.count)
    }
}

// MARK: - StreamSinkActions

/// What one input of `StreamSinkMachine` asks the sink to do once the lock is released, in the order of the
/// slots: the channel calls (start, the calls, abort), then what the delegate queue runs or queues.
struct StreamSinkActions<Channel> {
    /// The channel the calls below go to.
    var channel: Channel?
    /// Start the channel with the task's bridge, these body bytes read first.
    var start: [UInt8]?
    /// Hand these calls to the channel, in order.
    var calls: [StreamCall] = []
    /// Once everything else here ran, ask for the calls made meanwhile (`handedOver`): this thread sends.
    var handOver = false
    /// Abort the channel (`cancelled`).
    var abort = false
    /// Answer a call made after the end: with this error (nil: the stream ended cleanly) and what is left.
    var afterEnd: (StreamCall, (any Error)?, StreamRest)?
    /// Queue `captureReady` (the capture may happen now).
    var captureReady = false
    /// Capture now (`takeForCapture`).
    var captureNow = false
    /// The stream ended without a connection: answer these reads, then report the read side closed and
    /// complete the task cleanly.
    var endedWithoutChannel: [(StreamCall.ReadCompletion, StreamRest)]?
    /// Fail these calls with `failure` (the task completed).
    var failure: (any Error)?
    var failedCalls: [StreamCall] = []
}
