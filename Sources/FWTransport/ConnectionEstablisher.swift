import FWLoop

// MARK: - ConnectionEstablisher

/// Opens the TCP connection for a new `HTTP1Connection` (to the origin, or to its proxy): resolves the
/// host off the loop (a numeric one needs no lookup), then races attempts as `HappyEyeballsStateMachine` says,
/// within a connect timeout. Reports exactly once, on the loop, with the winning socket (still registered if its
/// connect was waited for, see `EstablishedSocket`) or the error, plus the lookup and connect times. A connect
/// that succeeded within `connect` (loopback) reports before `start()` returns. Loop thread only; it keeps itself alive
/// until it has reported.
final class ConnectionEstablisher {
    typealias Completion = (Result<EstablishedSocket, TransportError>, TransportMetrics) -> Void

    /// One attempt in the race.
    private typealias Racing = (id: HappyEyeballsStateMachine.AttemptID, attempt: ConnectAttempt)

    // The state every step of an establishment changes is `@exclusivity(unchecked)`: it spares each access the
    // runtime's check (about 50 instructions; some ten accesses per new connection). Every access is on the
    // loop's thread and none overlaps another: a machine input returns its actions before `perform` runs them,
    // and an attempt is taken out of the list before it is told anything.

    private let key: ConnectionKey
    private let loop: EventLoop
    private let timeout: Duration
    /// Set until the result is reported; cleared after, which also breaks the attempts' cycles.
    @exclusivity(unchecked) private var completion: Completion?
    @exclusivity(unchecked) private var machine = HappyEyeballsStateMachine()
    /// The attempts racing, in the order they started (a few at most: a list, where a dictionary cost every new
    /// connection a hashed table).
    @exclusivity(unchecked) private var attempts: [Racing] = []
    private var delayTimer: TimerID?
    private var deadlineTimer: TimerID?
    @exclusivity(unchecked) private var times = TransportMetrics()

    init(key: ConnectionKey, loop: EventLoop, timeout: Duration, completion: @escaping Completion) {
        self.key = key
        self.loop = loop
        self.timeout = timeout
        self.completion = completion
    }

    /// Starts resolving. Loop thread.
    func start() {
        loop.preconditionInEventLoop()
        deadlineTimer = loop.scheduleTimer(at: loop.now() + timeout) { [self] in
            deadlineTimer = nil
            perform(machine.abandon())
            finish(.failure(.timedOut("connecting to \(key) took longer than \(timeout)")))
        }
        times.domainLookupStart = self.loop.now().uptimeNanoseconds
        let host = key.proxy?.host ?? key.host
        let port = key.proxy?.port ?? key.port
        // A numeric host is its own address: connect now, without the resolver's completion and a hop back to
        // this loop (two closures, a LoopBound and a queued task per new connection).
        if let port = UInt16(exactly: port), let address = Resolver.numericAddress(host, port: port) {
            resolved(.success([address]))
            return
        }
        let loop = self.loop
        let resolving = LoopBound(self, loop: loop)
        Resolver.resolve(host: host, port: port) { result in
            loop.execute { resolving.value.resolved(result) }
        }
    }

    private func resolved(_ result: Result<[SocketAddress], ResolverError>) {
        guard completion != nil else { return }
        times.domainLookupEnd = loop.now().uptimeNanoseconds
        switch result {
        case .success(let addresses) where !addresses.isEmpty:
            perform(machine.resolved(addresses))
        case .success:
            finish(.failure(.cannotFindHost("\(hostDescription) has no addresses", underlying: nil)))
        case .failure(let error):
            finish(.failure(.cannotFindHost("cannot find \(hostDescription): \(error)", underlying: error)))
        }
    }

    /// "host example.org", or "the proxy's host proxy.example" when the connection goes through one.
    private var hostDescription: String {
        key.proxy.map { "the proxy's host \($0.host)" } ?? "host \(key.host)"
    }

    // MARK: Actions

    private func perform(_ actions: [HappyEyeballsStateMachine.Action]) {
        for action in actions {
            switch action {
            case .startAttempt(let id, let address):
                startAttempt(id, to: address)
            case .scheduleDelay:
                // An attempt may have won already, within the action before (a connect that succeeded at once).
                guard completion != nil else { continue }
                if let delayTimer { loop.cancelTimer(delayTimer) }
                delayTimer = loop.scheduleTimer(at: loop.now() + HappyEyeballsStateMachine.attemptDelay) { [self] in
                    delayTimer = nil
                    perform(machine.delayElapsed())
                }
            case .closeAttempts(let ids):
                for id in ids { takeAttempt(id)?.close(on: loop) }
            case .succeed(let id):
                guard let winner = takeAttempt(id) else { continue }
                times.connectEnd = loop.now().uptimeNanoseconds
                finish(.success(winner.handOver()))
            case .fail(let error):
                finish(.failure(key.proxy.map { .cannotConnect(toProxy: $0, error) } ?? .cannotConnect(error)))
            }
        }
    }

    private func startAttempt(_ id: HappyEyeballsStateMachine.AttemptID, to address: SocketAddress) {
        if times.connectStart == nil { times.connectStart = loop.now().uptimeNanoseconds }
        do throws(IOError) {
            let socket = try Socket(family: address.family)
            let attempt = ConnectAttempt(socket: socket, id: id, race: self)
            attempts.append((id, attempt))
            if try socket.connect(to: address) || socket.connectSucceeded() {
                // Connected within `connect` (loopback): settled now, so the request goes out in this call, with
                // no registration for writability and no loop iteration first. A refusal waits for the loop.
                perform(machine.attemptConnected(id))
            } else {
                try attempt.waitForConnect(on: loop)
            }
        } catch {
            takeAttempt(id)?.close(on: loop)
            perform(machine.attemptFailed(id, error: error))
        }
    }

    /// The attempt `id`'s connect is decided.
    fileprivate func attemptSettled(_ id: HappyEyeballsStateMachine.AttemptID, _ result: Result<Void, IOError>) {
        switch result {
        case .success: perform(machine.attemptConnected(id))
        case .failure(let error): perform(machine.attemptFailed(id, error: error))
        }
    }

    /// Removes the attempt `id` from the race and returns it, or nil when it is not racing.
    private func takeAttempt(_ id: HappyEyeballsStateMachine.AttemptID) -> ConnectAttempt? {
        guard let index = attempts.firstIndex(where: { $0.id == id }) else { return nil }
        return attempts.remove(at: index).attempt
    }

    private func finish(_ result: Result<EstablishedSocket, TransportError>) {
        guard let completion else { return }
        self.completion = nil
        if let delayTimer { loop.cancelTimer(delayTimer) }
        if let deadlineTimer { loop.cancelTimer(deadlineTimer) }
        delayTimer = nil
        deadlineTimer = nil
        for racing in attempts { racing.attempt.close(on: loop) }
        attempts.removeAll()
        completion(result, times)
    }
}

/// One racing socket, registered for writability until its connect finishes (unless it succeeded at once).
/// Loop thread only.
private final class ConnectAttempt: IOHandler {
    private let socket: Socket
    private let id: HappyEyeballsStateMachine.AttemptID
    private var registration: RegistrationID?
    /// The race to tell, once, whether the connect succeeded (it holds the race alive until then); nil after,
    /// which also breaks the cycle through the race's list of attempts. A reference, not a closure: one
    /// allocation fewer per connection.
    private var race: ConnectionEstablisher?

    init(socket: Socket, id: HappyEyeballsStateMachine.AttemptID, race: ConnectionEstablisher) {
        self.socket = socket
        self.id = id
        self.race = race
    }

    func waitForConnect(on loop: EventLoop) throws(IOError) {
        registration = try loop.register(fd: socket.fd, interest: .writable, handler: self)
    }

    func handleIO(_ events: IOEvents) {
        settle()
    }

    /// The connect is decided (the socket turned writable): reports whether it connected.
    private func settle() {
        guard let race else { return }
        self.race = nil
        do throws(IOError) {
            try socket.finishConnect()
            race.attemptSettled(id, .success(()))
        } catch {
            race.attemptSettled(id, .failure(error))
        }
    }

    /// Hands the connected socket over with its registration, which the new owner takes over at once
    /// (the socket stays writable, and the attempt ignores what it is told from now on).
    func handOver() -> EstablishedSocket {
        defer { registration = nil }
        race = nil
        return EstablishedSocket(socket: socket, registration: registration)
    }

    func close(on loop: EventLoop) {
        let established = handOver()
        // Closed at once: the kernel drops the epoll entry with the descriptor.
        if let registration = established.registration { loop.deregister(registration, closingDescriptor: true) }
        established.socket.close()
    }
}

/// A connected socket and the registration its connect attempt watched it with, if any. Its owner takes the
/// registration over before the loop runs on (`ChannelCore.adopt(_:registeredAs:)`, then `watch`: one
/// `EPOLL_CTL_MOD` where a deregistration and a registration took two), or lets it go (`unregistered(on:)`).
struct EstablishedSocket {
    let socket: Socket
    let registration: RegistrationID?

    /// The socket, registered nowhere.
    func unregistered(on loop: EventLoop) -> Socket {
        if let registration { loop.deregister(registration) }
        return socket
    }
}
