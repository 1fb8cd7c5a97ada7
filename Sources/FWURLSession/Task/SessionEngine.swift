import FWTransport

// MARK: - SessionEngine
//
// What a session runs on: the event loops of its transport and the clock they read (STYLE.md principle 18,
// "Time is an input"). The public initializers use the process-wide loops on the real monotonic clock; a
// test hands an internal initializer the loops of TestSupport's `ManualEventLoopGroup`, whose clock moves
// only when the test advances it, so that every deadline of the session (the request timeout in the
// transport, the resource timeout and the earliest begin date in `TaskDeadlines`) and every time it reports
// (`SessionClock`, the transport's metrics) follow that one clock.

/// The event loops a session's transport and deadlines run on, and the clock those loops read.
struct SessionEngine: Sendable {
    /// The loops of the session's connections; one of them also carries its task deadlines.
    let group: EventLoopGroup

    /// The clock every loop of `group` reads.
    var clock: any EventLoopClock {
        group.clock
    }

    /// A session on `group` and its clock.
    init(group: EventLoopGroup) {
        self.group = group
    }

    /// The process-wide loops on the monotonic clock; nil when the process cannot start them.
    static var shared: SessionEngine? {
        HTTPTransport.sharedLoops.map(SessionEngine.init(group:))
    }
}
