// MARK: - HTTPTransport.WorkList: the work one decision makes
//
// What the transport decides under its lock it does after (`perform`, below). Nearly every decision makes one
// item or none: a request leased an idle connection, a connection finished its request. The first item is
// kept inline and only a second makes an array; an array made for every request was one of its allocations.

extension HTTPTransport {
    /// Work decided under the lock, in the order decided.
    struct WorkList: Sequence {
        private var first: Work?
        private var rest: [Work] = []

        /// No work.
        init() {}

        /// One item.
        init(_ item: Work) {
            first = item
        }

        mutating func append(_ item: Work) {
            if first == nil { first = item } else { rest.append(item) }
        }

        static func += (list: inout WorkList, more: WorkList) {
            for item in more { list.append(item) }
        }

        func makeIterator() -> Iterator {
            Iterator(first: first, rest: rest.makeIterator())
        }

        struct Iterator: IteratorProtocol {
            fileprivate var first: Work?
            fileprivate var rest: IndexingIterator<[Work]>

            mutating func next() -> Work? {
                first.take() ?? rest.next()
            }
        }
    }
}

// MARK: - After the lock

extension HTTPTransport {
    /// Does `work`, decided under the lock, in order.
    func perform(_ work: WorkList) {
        for item in work {
            switch item {
            case .execute(let request, let connection):
                onLoop(of: connection, request) { $0.execute($1) }
            case .fail(let id, let delegate, let error):
                delegate.transportTask(id, didReceive: .failed(error))
            case .start(let connection):
                onLoop(of: connection, ()) { connection, _ in connection.start() }
            case .close(let connection):
                onLoop(of: connection, ()) { connection, _ in connection.closeIfIdle() }
            case .cancel(let id, let connection, let error):
                onLoop(of: connection, (id, error)) { $0.cancel($1.0, error: $1.1) }
            case .refreshReadingPause(let id, let connection):
                onLoop(of: connection, id) { $0.refreshReadingPause(for: $1) }
            case .armWaitSweep(let deadline):
                armWaitSweep(at: deadline)
            }
        }
    }

    /// Runs `body` with `connection` and `argument` on the connection's loop: at once on that loop's thread, else as
    /// a task there. `body` captures nothing (the connection and what it needs come as arguments), so that no
    /// closure is allocated unless the work crosses threads: every request and every new connection passes here,
    /// nearly always on the loop.
    private func onLoop<Argument: Sendable>(of connection: HTTP1Connection, _ argument: Argument,
                                            _ body: @escaping @Sendable (HTTP1Connection, Argument) -> Void) {
        if connection.loop.inEventLoop {
            body(connection, argument)
        } else {
            connection.loop.execute { body(connection, argument) }
        }
    }
}
