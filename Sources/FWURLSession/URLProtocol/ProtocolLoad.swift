// ProtocolLoad.swift
//
// One `URLProtocol` instance loading one hop of a task, and the client it reports to.
//
// The load's rules (started at most once, stopped exactly once, nothing after the stop, withdrawn challenges) are
// `ProtocolLoadStateMachine`'s; `ProtocolLoad` holds that value in one lock and runs its actions on the load's own
// serial queue (never on the caller's thread, never under the lock). The client turns every call into a task
// event (`TaskEvent.loaded`), queued in order with the task's other events and handled on the delegate
// queue (`URLSessionTask+Protocol.swift`); events of a stopped load, or of a load the task replaced, are
// dropped there.

import Foundation
import FWTransport

/// What a URLProtocol's client reported, as a task event.
enum URLProtocolEvent {
    case response(URLResponse, URLCache.StoragePolicy)
    case data(Data)
    case finished
    case failed(any Error)
    case redirected(URLRequest, URLResponse)
    case cachedResponseIsValid(CachedURLResponse)
    case challenge(URLAuthenticationChallenge)
}

// MARK: - ProtocolLoad

/// One protocol instance's load of one hop: a `ProtocolLoadStateMachine` behind one lock, and the queue its
/// instance runs on.
final class ProtocolLoad: @unchecked Sendable { // `machine` is a LockedBox; the rest are lets
    /// The canonical request the instance loads: the URL cache's key for its response.
    let request: URLRequest
    /// Where the instance is started, stopped and answered.
    private let queue = DispatchQueue(label: "FWURLSession.URLProtocol")
    private let machine = LockedBox(ProtocolLoadStateMachine())

    init(request: URLRequest) {
        self.request = request
    }

    // MARK: Lifecycle

    /// Starts `instance`, unless the load was stopped already.
    func start(_ instance: URLProtocol) {
        run(apply { $0.start(instance) })
    }

    /// Stops the load: its instance hears `stopLoading()` if it was started (once, whoever calls this first);
    /// its later events are dropped.
    func stop() {
        run(apply { $0.stop() })
    }

    /// Whether the load was stopped.
    var isStopped: Bool {
        apply { $0.isStopped }
    }

    /// Runs `work` where the instance runs (for answers to its challenges).
    func perform(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    // MARK: The response

    /// The protocol reported `response`; it may be stored under `policy` in a cache of `cacheLimit` bytes (nil:
    /// no cache), as long as its body fits.
    func received(_ response: URLResponse, storagePolicy: URLCache.StoragePolicy, cacheLimit: Int?) {
        apply { $0.received(response, storagePolicy: storagePolicy, cacheLimit: cacheLimit) }
    }

    /// The protocol loaded `data`: counted, and kept for the cache while the body fits it.
    func loaded(_ data: Data) {
        apply { $0.loaded(data) }
    }

    /// The response and the number of body bytes loaded so far.
    var outcome: (response: URLResponse?, bytes: Int64) {
        apply { ($0.response, $0.bytesLoaded) }
    }

    /// What the load proposes to store once finished: its response and whole body, with its policy.
    var storageProposal: CachedURLResponse? {
        apply { $0.storageProposal }
    }

    // MARK: Challenges

    /// The protocol withdrew `challenge`.
    func withdraw(_ challenge: URLAuthenticationChallenge) {
        apply { $0.withdraw(ObjectIdentifier(challenge)) }
    }

    /// Whether an answer to `challenge` still goes to the protocol.
    func awaitsAnswer(to challenge: URLAuthenticationChallenge) -> Bool {
        apply { $0.awaitsAnswer(to: ObjectIdentifier(challenge)) }
    }

    // MARK: The door

    /// Applies one input to the machine (or reads it) under the lock; nothing in `input` calls out.
    private func apply<Result>(_ input: (inout ProtocolLoadStateMachine) -> Result) -> Result {
        machine.withLock(input)
    }

    /// Runs what an input asked for, on the load's queue: never on the caller's thread, never under the lock.
    private func run(_ action: ProtocolLoadStateMachine.Action) {
        switch action {
        case .none: break
        case .startLoading(let instance): queue.async { instance.startLoading() }
        case .stopLoading(let instance): queue.async { instance.stopLoading() }
        }
    }
}

// MARK: - TaskProtocolClient

/// The client a session gives each protocol instance: every call becomes an event of the task, queued in
/// order; a withdrawn challenge is marked at once. It holds the task weakly (a protocol that outlives
/// its load keeps nothing alive).
final class TaskProtocolClient: NSObject, URLProtocolClient, @unchecked Sendable { // lets only
    private weak let task: URLSessionTask?
    private let load: ProtocolLoad

    init(task: URLSessionTask, load: ProtocolLoad) {
        self.task = task
        self.load = load
        super.init()
    }

    private func report(_ event: URLProtocolEvent) {
        task?.enqueue(.loaded(load, event))
    }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        report(.redirected(request, redirectResponse))
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
        report(.cachedResponseIsValid(cachedResponse))
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse,
                     cacheStoragePolicy policy: URLCache.StoragePolicy) {
        report(.response(response, policy))
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
        report(.data(data))
    }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) {
        report(.finished)
    }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
        report(.failed(error))
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
        report(.challenge(challenge))
    }

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
        load.withdraw(challenge)
    }
}
