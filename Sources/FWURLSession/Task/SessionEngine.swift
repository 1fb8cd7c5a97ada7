import FWTransport

// MARK: - SessionEngine
//
// What a session runs on: the event loops of its transport and the clock they read (STYLE.md principle 18,
// "Time is an input"). The public initializers use the process-wide loops on the real monotonic clock; a
// test hands an internal initializer the loops of TestSupport's `ManualEventLoopGroup`, whose clock moves
// only when the test advances it, so that every deadline of the session (the request timeout in the
// transport, the resource timeout and the earliest begin date in `TaskDeadlines`) and every time it reports
// (`SessionClock`, the transport's metrics) follow that one clock. A session that makes its own delegate
// queue gets a loop hosted by that queue instead (SessionDelegateQueue.swift), on the monotonic clock.

/// The event loops a session's transport and deadlines run on, and the clock those loops read.
struct SessionEngine: Sendable {
    /// The loops of the session's connections; one of them also carries its task deadlines.
    let group: EventLoopGroup
    /// The loop the session's own delegate queue hosts (`group`'s one loop), or nil for a threaded engine.
    let hostedLoop: EventLoop?
    /// Where stream and WebSocket channels run when the connections' loop is hosted: a channel handed to a
    /// caller's thread (a captured stream read synchronously inside a delegate callback) must not depend on
    /// the delegate queue being free.
    let channelLoops: EventLoopGroup?

    /// The clock every loop of `group` reads.
    var clock: any EventLoopClock {
        group.clock
    }

    /// A session on `group` and its clock.
    init(group: EventLoopGroup) {
        self.init(group: group, hostedLoop: nil, channelLoops: nil)
    }

    private init(group: EventLoopGroup, hostedLoop: EventLoop?, channelLoops: EventLoopGroup?) {
        self.group = group
        self.hostedLoop = hostedLoop
        self.channelLoops = channelLoops
    }

    /// The process-wide loops on the monotonic clock; nil when the process cannot start them.
    static var shared: SessionEngine? {
        HTTPTransport.sharedLoops.map(SessionEngine.init(group:))
    }

    /// A loop hosted by `queue` (its channels on the process-wide loops); nil when the process cannot make
    /// one (no descriptors left, or no doorbell or shared loops): the session then takes the threaded engine.
    /// `busyPoll` seconds at most (`URLSessionConfiguration.busyPollInterval`) it polls after its last work.
    static func hosted(by queue: SessionDelegateQueue, busyPoll: Double) -> SessionEngine? {
        guard let channelLoops = HTTPTransport.sharedLoops,
              let loop = try? EventLoop(name: "fw-session", hostedBy: queue,
                                        busyPoll: .nanoseconds(Self.nanoseconds(busyPoll))) else { return nil }
        queue.host(loop)
        return SessionEngine(group: EventLoopGroup(loops: [loop]), hostedLoop: loop, channelLoops: channelLoops)
    }

    /// `seconds` in whole nanoseconds, 0 for a negative or NaN value, at most 1 s.
    private static func nanoseconds(_ seconds: Double) -> Int64 {
        guard seconds > 0 else { return 0 }
        return Int64(min(seconds, 1) * 1_000_000_000)
    }
}
