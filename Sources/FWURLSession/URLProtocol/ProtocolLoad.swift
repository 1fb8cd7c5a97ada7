// ProtocolLoad.swift
//
// One `URLProtocol` instance loading one hop of a task, and the client it reports to.
//
// The instance is started once and stopped once, both on the load's own serial queue (never on the
// caller's thread, never under a lock): `stopLoading()` runs exactly once for an instance that was started,
// whatever ends the load first — its end, its failure, a redirect followed elsewhere, `cancel()`, a
// timeout. A load stopped before it started is never started. The client turns every call into a task
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

/// One protocol instance's load of one hop: its lifecycle, and the response kept for the URL cache.
final class ProtocolLoad: @unchecked Sendable { // `state` is a LockedBox; the rest are lets
    private struct State {
        /// The instance, from `start` until it is stopped.
        var instance: URLProtocol?
        var isStopped = false
        /// The response the protocol reported, and the body bytes it loaded since.
        var response: URLResponse?
        var bytesLoaded: Int64 = 0
        /// What may be stored in the URL cache: the policy and the body so far (nil when it may not be stored;
        /// dropped once it outgrew the cache).
        var storagePolicy = URLCache.StoragePolicy.notAllowed
        var storedBody: BodyCollector?
        /// Challenges the protocol withdrew (`didCancel`).
        var withdrawn: Set<ObjectIdentifier> = []
    }

    /// The canonical request the instance loads: the URL cache's key for its response.
    let request: URLRequest
    /// Where the instance is started, stopped and answered.
    private let queue = DispatchQueue(label: "FWURLSession.URLProtocol")
    private let state = LockedBox(State())

    init(request: URLRequest) {
        self.request = request
    }

    // MARK: Lifecycle

    /// Starts `instance`, unless the load was stopped already.
    func start(_ instance: URLProtocol) {
        let started = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.instance = instance
            return true
        }
        if started { queue.async { instance.startLoading() } }
    }

    /// Stops the load: its instance hears `stopLoading()` if it was started (once, whoever calls this first);
    /// its later events are dropped.
    func stop() {
        let instance = state.withLock { state -> URLProtocol? in
            defer { state.instance = nil }
            state.isStopped = true
            return state.instance
        }
        if let instance { queue.async { instance.stopLoading() } }
    }

    /// Whether the load was stopped.
    var isStopped: Bool {
        state.withLock { $0.isStopped }
    }

    /// Runs `work` where the instance runs (for answers to its challenges).
    func perform(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    // MARK: The response

    /// The protocol reported `response`; it may be stored under `policy` in a cache of `cacheLimit` bytes (nil:
    /// no cache), as long as its body fits.
    func received(_ response: URLResponse, storagePolicy: URLCache.StoragePolicy, cacheLimit: Int?) {
        state.withLock { state in
            state.response = response
            state.storagePolicy = storagePolicy
            state.storedBody = cacheLimit.flatMap { limit in
                storagePolicy == .notAllowed ? nil
                    : BodyCollector(.store(ceiling: limit), limits: HTTPLimits(), url: response.url)
            }
        }
    }

    /// The protocol loaded `data`: counted, and kept for the cache while the body fits it.
    func loaded(_ data: Data) {
        state.withLock { state in
            state.bytesLoaded += Int64(data.count)
            try? state.storedBody?.append(data) // a `store` collector never throws: it drops the body instead
        }
    }

    /// The response and the number of body bytes loaded so far.
    var outcome: (response: URLResponse?, bytes: Int64) {
        state.withLock { ($0.response, $0.bytesLoaded) }
    }

    /// What the load proposes to store once finished: its response and whole body, with its policy.
    var storageProposal: CachedURLResponse? {
        state.withLock { state in
            guard let response = state.response, let body = state.storedBody?.collected else { return nil }
            return CachedURLResponse(response: response, data: body, userInfo: nil,
                                     storagePolicy: state.storagePolicy)
        }
    }

    // MARK: Challenges

    /// The protocol withdrew `challenge`.
    func withdraw(_ challenge: URLAuthenticationChallenge) {
        state.withLock { _ = $0.withdrawn.insert(ObjectIdentifier(challenge)) }
    }

    /// Whether an answer to `challenge` still goes to the protocol.
    func awaitsAnswer(to challenge: URLAuthenticationChallenge) -> Bool {
        state.withLock { !$0.isStopped && !$0.withdrawn.contains(ObjectIdentifier(challenge)) }
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
