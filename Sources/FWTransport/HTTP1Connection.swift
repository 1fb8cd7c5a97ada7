import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection

/// One HTTP/1.1 connection: the executor of its `HTTP1ConnectionStateMachine`, and the HTTP/1.1 driver of its
/// `ChannelCore` (the socket to the origin or to its proxy, the TLS engine for HTTPS, the write queue). It
/// owns the response parser, the timers and the metering, feeds what happens on them into the machine, and
/// runs the machine's actions in one place (`run`). Every rule (establishment, tunnels, keep-alive, retry
/// safety, the request in flight and its body) lives in the machine.
///
/// Sendable because it only crosses threads as a reference handed to `loop.execute`: every mutable
/// stored property below is touched on `loop`'s thread only (checked with `preconditionInEventLoop`
/// at every entry point).
final class HTTP1Connection: ChannelDriver, EndOfIterationWork, @unchecked Sendable { // loop-thread-only state
    let id: ConnectionID
    let key: ConnectionKey
    let loop: EventLoop
    let transport: HTTPTransport
    /// How long establishing the connection may take, all steps together: resolving and connecting, and for
    /// HTTPS the handshake and the trust decision.
    let connectTimeout: Duration
    let idleConnectionTimeout: Duration
    /// The limits responses (and a proxy's answers to CONNECT) must stay within.
    let limits: HTTPLimits

    // MARK: Loop-thread state
    //
    // The state the request path touches on every read and write is marked `@exclusivity(unchecked)`: the
    // runtime's check of each access (begin and end, about 50 instructions) cost some 50 accesses, 2.5 k
    // instructions, per small request. Every access is on the loop's thread and none overlaps another of
    // the same property: a machine input returns its action before `run` executes it, and no callback runs
    // while a property is being changed.

    /// The connection's rules and the request in flight. Loop thread only.
    @exclusivity(unchecked) var machine: HTTP1ConnectionStateMachine
    /// Loop thread only: the socket, the TLS engine of an HTTPS connection (records that arrive while a decision
    /// is pending, trust or client identity, wait in it) and the write queue. The peer's end ends the connection.
    @exclusivity(unchecked) var core: ChannelCore
    /// Loop thread only.
    @exclusivity(unchecked) var parser: HTTPResponseParser
    /// Loop thread only: the connection's one deadline — the handshake timeout while connecting, the
    /// request's idle timeout while active, the idle-connection timeout while idle (`+Timers.swift`).
    var timer: TimerID?
    /// Loop thread only: what `timer` watches when it is a watch (`+Timers.swift`), and when it fires.
    var watching = TimerWatch.none
    var watchDeadline: Deadline?
    /// Loop thread only: sends a body waiting for `100 Continue` after `PreparedRequest.continueWait`.
    var continueTimer: TimerID?
    /// Loop thread only: when a byte last moved for the current request (on the loop's clock).
    @exclusivity(unchecked) var lastActivity: Deadline
    /// Loop thread only: when establishing the connection times out (`connectTimeout` after `start`).
    var establishmentDeadline = Deadline.distantFuture
    /// Loop thread only: the next decoded slice is scheduled (`scheduleDecoding`).
    var decodingScheduled = false
    /// Loop thread only: the connection waits for its peer's answer — it is being made, or a request went out
    /// and its response has not begun — which a hosted loop polls for (HTTP1Connection+AnswerWait.swift).
    var awaitsAnswer = false

    /// Whether the request in flight has decoded slices still to come out (nothing else is read or parsed
    /// meanwhile: see `scheduleDecoding`).
    var decodedOutputPending: Bool { machine.hasDecodedOutputPending }
    /// Loop thread only: when this connection was resolved and connected (for its first request's metrics);
    /// its addresses are filled in on first need (`noteAddresses()`).
    var establishment = TransportMetrics()
    /// Loop thread only: `establishment` holds the socket's addresses.
    private var addressesNoted = false
    /// Loop thread only: the socket's local and peer addresses as text, for a `.connected` event (made when
    /// asked: only a request that reports its connection does).
    var addresses: (local: String?, remote: String?) {
        noteAddresses()
        return (establishment.localAddress?.description, establishment.remoteAddress?.description)
    }
    /// Loop thread only: events waiting for the end of the loop iteration (`post`), per request, in order.
    @exclusivity(unchecked) private var outbox: [(request: PreparedRequest, events: [TransportEvent])] = []
    /// Loop thread only: the emptied outbox of the last flush, kept with its capacity for the next one.
    @exclusivity(unchecked) private var spareOutbox: [(request: PreparedRequest, events: [TransportEvent])] = []
    /// Loop thread only: emptied event lists of past flushes, kept with their capacity for the next batches.
    @exclusivity(unchecked) private var spareEventLists: [[TransportEvent]] = []
    /// Loop thread only: the current request's metrics, and the bytes it wrote and read so far.
    @exclusivity(unchecked) var metrics = TransportMetrics()
    @exclusivity(unchecked) var bytesWritten: Int64 = 0
    @exclusivity(unchecked) var bytesRead: Int64 = 0
    /// Loop thread only: when each pipelined follower's head was queued, oldest first (its metrics'
    /// `requestStart` once it is promoted; HTTP1Connection+Pipelining.swift).
    var followerRequestStarts: [(id: RequestID, time: UInt64)] = []

    init(id: ConnectionID, key: ConnectionKey, loop: EventLoop, transport: HTTPTransport,
         connectTimeout: Duration, idleConnectionTimeout: Duration, maxRequests: Int?, pipeliningDepth: Int = 1,
         limits: HTTPLimits) {
        self.id = id
        self.key = key
        self.loop = loop
        self.transport = transport
        self.connectTimeout = connectTimeout
        self.idleConnectionTimeout = idleConnectionTimeout
        self.limits = limits
        var parser = HTTPResponseParser(limits: limits)
        parser.pieceSupply = transport.bodyPieces
        self.parser = parser
        self.machine = HTTP1ConnectionStateMachine(maxRequests: maxRequests, pipeliningDepth: pipeliningDepth)
        self.lastActivity = loop.now()
        self.core = ChannelCore(loop: loop, hangUp: .endsChannel)
    }

    // MARK: Entry points (loop thread)

    /// Resolves the host and connects (racing addresses), then reports to the pool.
    func start() {
        loop.preconditionInEventLoop()
        awaitAnswer(true)
        establishmentDeadline = loop.now() + connectTimeout
        let establisher = ConnectionEstablisher(key: key, loop: loop, timeout: connectTimeout) { [self] result, times in
            switch result {
            case .success(let established): adopt(established, times: times)
            case .failure(let error): run(machine.connectFailed(error))
            }
        }
        establisher.start()
    }

    /// Runs `request`, which the pool leased to this connection.
    func execute(_ request: PreparedRequest) {
        loop.preconditionInEventLoop()
        // The server may have closed the kept-alive connection while it was idle, its close not yet seen (the
        // event can wait in this very loop iteration, whose tasks run before its events are dispatched): read
        // what is pending first, so that the request never goes out on a closed connection but back to the
        // pool, for a new one. Input reported in an earlier iteration was read by `handleIO` then, so only this
        // iteration's events ask for the read (no EAGAIN read otherwise). (A new connection goes ahead: what
        // its server says comes as the response, and a failure there cannot send the request round.)
        if machine.isIdle, machine.isReused, reportedInput { readAvailable() }
        run(machine.startRequest(request, readingPaused: transport.isReadingPaused(request.id)))
    }

    /// Whether the loop reported input (or a hang-up) for the socket in this iteration; true when unwatched. It
    /// reads the core's registration alone: a computed property of the core, which calls out to the loop, made
    /// the compiler copy the whole core out of the connection and destroy the copy (some 350 instructions).
    private var reportedInput: Bool {
        guard let registration = core.registration else { return true }
        return loop.reportedInput(for: registration)
    }

    /// Ends `request` with `error` if it is the one running here.
    func cancel(_ request: RequestID, error: TransportError) {
        loop.preconditionInEventLoop()
        guard machine.activeRequest?.id == request else {
            // A pipelined request still waiting for its turn leaves the queue.
            if !machine.followers.isEmpty { run(machine.cancelFollower(request, error: error)) }
            return
        }
        run(machine.failActiveRequest(error))
    }

    /// Stops or restarts reading for `request`, as its task now wants (the transport holds that wish).
    func refreshReadingPause(for request: RequestID) {
        loop.preconditionInEventLoop()
        guard machine.activeRequest?.id == request else { return }
        let paused = transport.isReadingPaused(request)
        guard machine.withRequest({ $0.setReadingPaused(paused) }) == true else { return }
        // The idle timeout stops while paused and starts afresh when reading resumes.
        lastActivity = loop.now()
        if let request = machine.activeRequest, !paused { armRequestIdleTimer(request.request.idleTimeout) }
        if !paused, decodedOutputPending { scheduleDecoding() }
        refreshInterest()
    }

    /// Closes the connection if it is idle (the pool retired it).
    func closeIfIdle() {
        loop.preconditionInEventLoop()
        guard machine.isIdle else { return }
        run(machine.close())
    }

    // MARK: Actions

    /// Runs what the machine decided.
    func run(_ action: consuming HTTP1ConnectionStateMachine.Action) {
        if let awaiting = Self.awaitsAnswer(after: action) { awaitAnswer(awaiting) }
        switch consume action {
        case .none:
            break
        case .writeToProxy(let bytes):
            writeToProxy(bytes)
        case .startTLS:
            startTLS()
        case .askServerTrust:
            askForServerTrust()
        case .askClientIdentity:
            askForClientIdentity()
        case .provideClientIdentity(let identity):
            core.tls?.provideClientIdentity(identity)
            advanceHandshake()
        case .reportEstablished:
            transport.connectionEstablished(self)
            // The pool either gave the connection its first request at once (the usual case: a request waits
            // for it), which armed the request's timer, or parked it. Only a parked connection needs the idle
            // timer: armed first, it was scheduled and cancelled again for nearly every new connection.
            if machine.isIdle { armIdleConnectionTimer() }
        case .reportConnectFailed(let error, let discardTLSSession):
            // A session cached during the handshake must not let a later connection skip the decision.
            if discardTLSSession { core.tls?.discardSession() }
            cancelTimer()
            closeSocket()
            transport.connectionFailed(self, error: error)
        case .startWriting(let request):
            startWriting(request)
        case .bounceRequest(let request):
            flushOutbox()
            transport.retry(afterStaleConnection: request)
        case .deliver(let events, let request):
            post(events, to: request)
        case .deliverBody(let bytes, let request):
            post(.body(bytes), to: request)
        case .deliverContinue(let event, let request):
            post(event, to: request)
            releaseBodyAfterContinue()
        case .deliverHead(let head, let request, let producer):
            cancelContinueTimer()
            producer?.producer.stop()
            post(.head(head), to: request)
        case .writeBody(let bytes, let payload):
            enqueue(bytes, payload: payload)
        case .produceBody(let producer, let maxLength, let answer):
            producer.producer.produce(maxLength: maxLength, into: makeBodySink(answer: answer))
        case .finishBody(let last, let producer):
            producer?.producer.stop()
            enqueue(last)
        case .completeRequest(let request, let trailers, let reusable, let producer):
            complete(request, trailers: trailers, reusable: reusable, stopping: producer)
        case .failRequest(let request, let error, let retry, let producer):
            fail(request, error: error, retry: retry, stopping: producer)
        case .handOver(let request, let target, let producer):
            producer?.producer.stop()
            handOver(request, to: target)
        case .closeIdle:
            cancelTimer()
            closeSocket()
            transport.connectionClosed(self)
        case .writeFollower(let request):
            writeFollower(request)
        case .bounceFollower(let request):
            flushOutbox()
            transport.followerBounced(request, on: self)
        case .failFollower(let request, let error):
            flushOutbox()
            transport.followerFailed(request, on: self, error: error)
        case .replaying(let requests, let action):
            run(action)
            flushOutbox()
            transport.replay(requests)
        }
    }

    /// The request succeeded: its metrics and end are posted, the connection goes back to the pool (or
    /// closes), and then — not before — the pool's next request for this connection starts.
    private func complete(_ request: PreparedRequest, trailers: HTTPHeaders, reusable: Bool,
                          stopping producer: BodyProducer?) {
        // A connection that stays keeps its timer: the next watch (idle, or the next request's idle timeout)
        // takes it over when it fires no later than that watch is due (`+Timers.swift`).
        if !reusable { cancelTimer() }
        cancelContinueTimer()
        producer?.producer.stop()
        postEnding(of: request, then: .end(trailers: trailers))
        if !reusable {
            closeSocket()
        } else if machine.isIdle {
            armIdleConnectionTimer()
        } else if let promoted = machine.activeRequest {
            startPromotedResponse(promoted)
        }
        let (next, more) = transport.requestFinished(request, on: self, reusable: reusable)
        if reusable { refreshInterest() }
        if let next { execute(next) }
        for request in more { execute(request) }
    }

    /// The request failed: its metrics and the events collected so far go out before the transport
    /// retries it or delivers its failure.
    func fail(_ request: PreparedRequest, error: TransportError, retry: Bool,
                      stopping producer: BodyProducer?) {
        cancelTimer()
        cancelContinueTimer()
        producer?.producer.stop()
        closeSocket()
        // A streamed body is resent only with a new producer (the old one was just stopped).
        let resend = retry && request.prepareResend(on: loop)
        postEnding(of: request)
        // The trace's `retry` names what failed the attempt.
        if resend, request.request.tracesBytes { post(.retrying(error), to: request) }
        flushOutbox()
        transport.requestFailed(request, on: self, error: error, retry: resend)
    }

    // MARK: Outbox

    /// Hands `events` to `request`'s delegate at the end of this loop iteration, together with the request's
    /// other events of the iteration (one hop to the delegate's queue per response instead of one per event).
    func post(_ events: consuming [TransportEvent], to request: PreparedRequest) {
        events.takeEach { post($0, to: request) }
    }

    /// Hands `event` to `request`'s delegate at the end of this loop iteration (see `post(_:to:)` above); no
    /// list is made for it: the batches' lists are kept from one iteration to the next.
    func post(_ event: consuming TransportEvent, to request: PreparedRequest) {
        if let last = outbox.indices.last, outbox[last].request.id == request.id {
            outbox[last].events.append(consume event)
            return
        }
        if outbox.isEmpty { loop.atEndOfIteration(self) }
        var batch = spareEventLists.popLast() ?? []
        // Room for what usually follows in the same iteration (head, body, metrics, end): one allocation.
        if batch.capacity == 0 { batch.reserveCapacity(Self.eventsPerBatch) }
        batch.append(consume event)
        outbox.append((request, batch))
    }

    /// The events one request usually posts in one iteration; the most a kept list may hold (a burst's longer
    /// list is let go); the most emptied lists kept (one per request whose events an iteration carries, mostly
    /// one).
    private static let eventsPerBatch = 6
    private static let keptEventsCapacity = 64
    private static let keptEventLists = 4

    /// The end of the loop iteration in which `post` was first called: the outbox goes out.
    func runAtEndOfIteration() {
        flushOutbox()
    }

    /// Delivers what `post` collected; also called before a request goes back to the transport, which
    /// delivers that request's later events itself.
    func flushOutbox() {
        guard !outbox.isEmpty else { return }
        var batches = spareOutbox
        spareOutbox = []
        swap(&batches, &outbox)
        for index in batches.indices {
            // Taken out of the batch, so that the list is the only reference once delivered, and kept.
            var events: [TransportEvent] = []
            swap(&events, &batches[index].events)
            batches[index].request.deliver(&events)
            if events.capacity <= Self.keptEventsCapacity, spareEventLists.count < Self.keptEventLists {
                spareEventLists.append(events)
            }
        }
        batches.removeAll(keepingCapacity: true)
        spareOutbox = batches
    }

    // MARK: Socket

    /// Reads the socket's local and peer addresses into `establishment` the first time a request needs them
    /// (one that reports its connection or its metrics, both at its start, while the socket is open): the
    /// local one is a `getsockname`, a syscall most connections were never asked for.
    func noteAddresses() {
        guard !addressesNoted, let socket = core.socket else { return }
        addressesNoted = true
        establishment.localAddress = socket.localAddress().map(SocketAddressInfo.init)
        establishment.remoteAddress = socket.remoteAddress().map(SocketAddressInfo.init)
    }

    private func adopt(_ established: EstablishedSocket, times: TransportMetrics) {
        core.adopt(established.socket, registeredAs: established.registration)
        establishment = times
        do throws(IOError) {
            try core.watch(for: self, readable: true)
        } catch {
            run(machine.connectFailed(.cannotConnect(error)))
            return
        }
        if let proxy = key.proxy, key.needsTunnel {
            openTunnel(through: proxy)
        } else {
            run(machine.tcpConnected(secure: key.isSecure))
        }
    }

    /// Closes the socket: gracefully, announcing the end of a TLS stream; or, while request bytes still wait
    /// to be written, with RST.
    func closeSocket() {
        awaitAnswer(false)
        core.close()
    }
}
