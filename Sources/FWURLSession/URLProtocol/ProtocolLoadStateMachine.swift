import Foundation
import FWTransport

// MARK: - ProtocolLoadStateMachine
//
// The state of one `URLProtocol` instance's load of one hop, as a value type. `ProtocolLoad` keeps it behind its
// one lock, applies one input at a time and runs the action the input returns after the lock, on the load's
// queue; the machine itself calls nothing, so every row of its behaviour is a table test
// (`ProtocolLoadStateMachineTests`) with no protocol running, no queue and no server.
//
//   idle ──start(instance)──▶ started(instance) ──stop──▶ stopped
//     │                                                    ▲   │ start, stop, received, loaded: nothing
//     └──────────────────────stop─────────────────────────┘
//
// Rules:
// - An instance is started at most once and, once started, stopped exactly once, whoever stops the load first
//   (its end, its failure, a redirect followed elsewhere, `cancel()`, a timeout) and however often: `start`
//   returns `.startLoading` only from `idle`, `stop` returns `.stopLoading` only from `started`. A load stopped
//   before it started never starts (the task was cancelled before the load was in place).
// - What the instance reported: the response (`received`) and the body bytes since (`loaded`), counted for the
//   task's metrics. While the storage policy allows it and a URL cache is there, the body is also collected
//   (`BodyCollector`, purpose `store`: a body that outgrows the cache is dropped, never an error) and becomes the
//   `storageProposal` once the load finished. Reports that arrive after `stop` change nothing.
// - Challenges: one the protocol withdrew (`didCancel`) takes no answer, and neither does any challenge of a
//   stopped load (`awaitsAnswer`).

/// The lifecycle of one URL protocol load and what its instance reported.
struct ProtocolLoadStateMachine {
    /// Where the load is.
    enum State {
        /// Made by the URL protocol policy; no instance yet.
        case idle
        /// `instance` was started and not stopped yet.
        case started(URLProtocol)
        /// Stopped (after a start or without one): nothing is started again, reports are ignored.
        case stopped
    }

    /// What an input asks the load to do, on its queue, once the lock is released.
    enum Action {
        /// Nothing.
        case none
        /// Call `startLoading()` on the instance.
        case startLoading(URLProtocol)
        /// Call `stopLoading()` on the instance.
        case stopLoading(URLProtocol)
    }

    private(set) var state = State.idle
    /// The response the instance reported, and the body bytes it loaded since.
    private(set) var response: URLResponse?
    private(set) var bytesLoaded: Int64 = 0
    /// Where the response may be stored, and its body so far while it may be (nil: it may not).
    private var storagePolicy = URLCache.StoragePolicy.notAllowed
    private var storedBody: BodyCollector?
    /// The challenges the instance withdrew.
    private var withdrawn: Set<ObjectIdentifier> = []

    // MARK: Lifecycle inputs

    /// The task made `instance` for this load: it starts unless the load was stopped first.
    mutating func start(_ instance: URLProtocol) -> Action {
        switch state {
        case .idle:
            state = .started(instance)
            return .startLoading(instance)
        case .stopped:
            return .none
        case .started(let running):
            preconditionFailure("a URL protocol load is started once: \(type(of: running)) runs already")
        }
    }

    /// The load ends (for any reason): its instance, if started, is stopped, this once.
    mutating func stop() -> Action {
        defer { state = .stopped }
        guard case .started(let instance) = state else { return .none }
        return .stopLoading(instance)
    }

    /// Whether the load was stopped.
    var isStopped: Bool {
        if case .stopped = state { return true }
        return false
    }

    // MARK: Reports

    /// The instance reported `response`, which may be stored under `policy` in a cache of `cacheLimit` bytes
    /// (nil: there is no cache) as long as its body fits.
    mutating func received(_ response: URLResponse, storagePolicy policy: URLCache.StoragePolicy, cacheLimit: Int?) {
        guard !isStopped else { return }
        self.response = response
        storagePolicy = policy
        storedBody = cacheLimit.flatMap { limit in
            policy == .notAllowed ? nil : BodyCollector(.store(ceiling: limit), limits: HTTPLimits(), url: response.url)
        }
    }

    /// The instance loaded `data`: counted, and kept for the cache while the body fits it.
    mutating func loaded(_ data: Data) {
        guard !isStopped else { return }
        bytesLoaded += Int64(data.count)
        try? storedBody?.append(data) // a `store` collector never throws: it drops the body instead
    }

    /// What the load proposes to store once finished: its response and whole body, with its policy; nil when
    /// the policy or the cache's capacity forbids it.
    var storageProposal: CachedURLResponse? {
        guard let response, let body = storedBody?.collected else { return nil }
        return CachedURLResponse(response: response, data: body, userInfo: nil, storagePolicy: storagePolicy)
    }

    // MARK: Challenges

    /// The instance withdrew the challenge `challenge` identifies.
    mutating func withdraw(_ challenge: ObjectIdentifier) {
        withdrawn.insert(challenge)
    }

    /// Whether an answer to the challenge `challenge` identifies still goes to the instance.
    func awaitsAnswer(to challenge: ObjectIdentifier) -> Bool {
        !isStopped && !withdrawn.contains(challenge)
    }
}
