import FWLoop

// MARK: - RequestBodyProducers

/// Hands out the producers of one request's streamed body, one per attempt.
///
/// The first attempt gets a producer from `makeProducer`. When a connection fails in a way that allows a
/// retry, it asks for the resend's producer at once (`prepareResend`): if `makeProducer` has none, the
/// request is not retried. The spare producer waits here for the next attempt; should the request end
/// without one (cancelled or shut down meanwhile), it is stopped when the request is released.
///
/// Sendable: `state` is only touched under its lock; `makeProducer` and `stop` are never called with
/// the lock held.
final class RequestBodyProducers: Sendable {
    private struct State {
        var madeFirst = false
        /// The producer made for a resend, and the loop to stop it on if it is never used.
        var spare: (producer: any TransportBodyProducer, loop: EventLoop)?
    }

    private let stream: TransportBodyStream
    private let state = LockedBox(State())

    init(_ stream: TransportBodyStream) {
        self.stream = stream
    }

    deinit {
        guard let spare = state.withLock({ $0.spare }) else { return }
        let producer = spare.producer
        spare.loop.execute { producer.stop() }
    }

    /// The producer for the attempt that starts now: the resend's, or for the first attempt a new one.
    /// nil when there is none (the body cannot be produced).
    func producerForAttempt() -> (any TransportBodyProducer)? {
        enum Pick {
            case spare(any TransportBodyProducer)
            case makeFirst
            case none
        }
        let pick: Pick = state.withLock { state in
            if let spare = state.spare {
                state.spare = nil
                return .spare(spare.producer)
            }
            guard !state.madeFirst else { return .none }
            state.madeFirst = true
            return .makeFirst
        }
        switch pick {
        case .spare(let producer): return producer
        case .makeFirst: return stream.makeProducer()
        case .none: return nil
        }
    }

    /// Makes the producer for a resend on a new connection; false when the body cannot be produced
    /// again (then the request must not be retried). Called on `loop`'s thread.
    func prepareResend(on loop: EventLoop) -> Bool {
        guard let producer = stream.makeProducer() else { return false }
        let replaced: (any TransportBodyProducer)? = state.withLock { state in
            defer { state.spare = (producer, loop) }
            return state.spare?.producer
        }
        replaced?.stop()
        return true
    }
}
