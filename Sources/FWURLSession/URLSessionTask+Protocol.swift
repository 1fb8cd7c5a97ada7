import Foundation

// MARK: - URL protocols: a hop loaded by a URLProtocol instead of the network
//
// Every request a task sends (the first, and each after a redirect or an answered challenge) is first
// offered to the session's URL protocol classes (`URLSession.protocolClass(for:)`, `ProtocolHopPolicy`), before
// the URL cache and the transport. The first class that takes the task canonicalises the request (it becomes
// the task's current request) and gets an instance, made with the URL cache's response for that request when the
// request's cache policy lets it use one. The instance runs on its own queue (`ProtocolLoad`); what its
// client reports reaches the task as events, in order, handled here on the delegate queue like the
// transport's:
//
//   response         the task's response, through its sink (the data delegate's `didReceive response`, a
//                    collected body, a file); kept for the URL cache when the storage policy allows it
//   data             a piece of the body
//   finished         the load stops; the response (when it may be stored) is offered to the sink
//                    (`willCacheResponse`) and stored, then the task completes
//   failed           the load stops; the task completes with the protocol's error, as it is
//   redirected       offered to the delegate like a network 3xx (`willPerformHTTPRedirection`, for an HTTP
//                    response): followed, the load stops and the new request is sent (a new hop, offered to
//                    the protocol classes again); refused, the redirect response is the task's response
//   cachedResponseIsValid   the load stops; the cached response is delivered as the response and the task
//                    completes
//   challenge        raised to the task's delegate (else the session's) through the router; the answer goes
//                    to the challenge's own sender, on the protocol's queue, unless the protocol withdrew it
//
// Cookies are the protocol's business: a protocol hop neither sends nor stores any.

extension URLSessionTask {
    // MARK: Starting

    /// Starts `load`, the hop `ProtocolHopPolicy` gave to `protocolClass` (`send()`), unless the task was
    /// cancelled meanwhile.
    func startProtocolLoad(_ load: ProtocolLoad, protocolClass: URLProtocol.Type) {
        // cancel() may have come before the load was in place: it must not start then.
        if isEnding {
            load.stop()
            return
        }
        let client = TaskProtocolClient(task: self, load: load)
        let cached = ProtocolHopPolicy.cachedResponse(for: load.request, session.sessionConfiguration)
        load.start(protocolClass.init(task: self, cachedResponse: cached, client: client))
    }

    /// The request a URL protocol made for this task loads: the current request, with an upload task's body
    /// as its `httpBody` (data) or `httpBodyStream` (a file).
    var requestForProtocol: URLRequest {
        let (current, upload) = withTransfer { ($0.hop.request, $0.upload) }
        var request = current ?? originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/"))
        switch upload {
        case .data(let data): request.httpBody = data
        case .file(let url): request.httpBodyStream = InputStream(url: url)
        case .stream, nil: break
        }
        return request
    }

    /// Stops the current protocol load, if any (the task ends, or a redirect leaves it).
    func stopProtocolLoad() {
        withTransfer { $0.hop.protocolLoad }?.stop()
    }

    // MARK: Handling its events (delegate queue)

    /// Handles what the protocol of `load` reported; ignored unless `load` is the task's current load and
    /// still running.
    func handleProtocolEvent(_ event: URLProtocolEvent, from load: ProtocolLoad) {
        guard withTransfer({ $0.hop.protocolLoad === load }), !load.isStopped else { return }
        switch event {
        case .response(let response, let policy):
            if let response = response as? HTTPURLResponse { withTransfer { $0.hop.response = response } }
            load.received(response, storagePolicy: policy, cacheLimit: session.sessionConfiguration.urlCache.map {
                max($0.memoryCapacity, $0.diskCapacity)
            })
            deliverResponse(response)
        case .data(let data):
            load.loaded(data)
            deliverBody([UInt8](data))
        case .finished:
            protocolFinished(load)
        case .failed(let error):
            end(load)
            finish(error: error)
        case .redirected(let request, let response):
            protocolRedirected(to: request, response: response, load: load)
        case .cachedResponseIsValid(let cached):
            end(load, fetchType: .localCache, response: cached.response, bytes: Int64(cached.data.count))
            enqueue(.cached(.response(cached.response)))
            if !cached.data.isEmpty { enqueue(.cached(.body(cached.data))) }
            enqueue(.cached(.end))
        case .challenge(let challenge):
            raiseProtocolChallenge(challenge, load: load)
        }
    }

    /// The load finished: its response is offered for storing when its policy allows, then the task completes.
    private func protocolFinished(_ load: ProtocolLoad) {
        end(load)
        guard let proposal = load.storageProposal, session.sessionConfiguration.urlCache != nil else {
            return finish(error: nil)
        }
        execute((.cache, .ask(.willCache(proposal, request: load.request))), stage: .ended)
    }

    /// The protocol redirected the load: an HTTP redirect is offered to the delegate (`RedirectHopPolicy`);
    /// any other is followed.
    private func protocolRedirected(to request: URLRequest, response: URLResponse, load: ProtocolLoad) {
        end(load, response: response)
        guard let redirect = response as? HTTPURLResponse else {
            withTransfer { $0.hop.next = NextHop(request: request, reason: .redirect) }
            return sendNextHop()
        }
        let decision = RedirectHopPolicy.offer(request, response: redirect, withTransfer { $0.policies })
        execute((.redirect, decision), stage: .protocolRedirect(redirect))
    }

    /// Stops `load` and records its transaction: its request, and the response and byte count it got
    /// (`response` and `bytes` when the protocol told of another).
    private func end(_ load: ProtocolLoad, fetchType: URLSessionTaskMetrics.ResourceFetchType? = nil,
                     response: URLResponse? = nil, bytes: Int64? = nil) {
        load.stop()
        let outcome = load.outcome
        withTransfer { state in
            guard let fetchStart = state.hop.sentAt ?? state.fetchStart else { return }
            state.transactions.append(TransactionRecord(
                request: load.request, response: response ?? outcome.response, fetchStart: fetchStart,
                decodedBodyBytes: bytes ?? outcome.bytes, fetchType: fetchType))
        }
    }

    // MARK: Challenges

    /// Raises the protocol's `challenge` through the router; the answer goes to the challenge's sender on
    /// the protocol's queue, unless the protocol withdrew the challenge or the load ended meanwhile.
    private func raiseProtocolChallenge(_ challenge: URLAuthenticationChallenge, load: ProtocolLoad) {
        let sender = URLSessionAuthenticationChallengeSender(task: self) { disposition, credential in
            guard let original = challenge.sender, load.awaitsAnswer(to: challenge) else { return }
            load.perform {
                switch disposition {
                case .useCredential:
                    if let credential {
                        original.use(credential, for: challenge)
                    } else {
                        original.continueWithoutCredential(for: challenge)
                    }
                case .performDefaultHandling: original.performDefaultHandling(for: challenge)
                case .cancelAuthenticationChallenge: original.cancel(challenge)
                case .rejectProtectionSpace: original.rejectProtectionSpaceAndContinue(with: challenge)
                }
            }
        }
        let forwarded = URLAuthenticationChallenge(authenticationChallenge: challenge, sender: sender)
        DelegateRouter.didReceive(forwarded, task: self, answer: sender.answer)
    }
}

// MARK: - Choosing the class

extension URLSession {
    /// The first URL protocol class that takes `task` now: the configuration's `protocolClasses` in order,
    /// then, for the shared session, the registered classes (most recently registered first). Entries that
    /// are not `URLProtocol` subclasses are skipped.
    final func protocolClass(for task: URLSessionTask) -> URLProtocol.Type? {
        // The session's own configuration (the public `configuration` is a copy made per read).
        if let configured = sessionConfiguration.protocolClasses, !configured.isEmpty,
           let chosen = configured.lazy.compactMap({ $0 as? URLProtocol.Type }).first(where: { $0.canInit(with: task) }) {
            return chosen
        }
        guard isSharedSession else { return nil }
        return URLProtocol.registeredClasses.first { $0.canInit(with: task) }
    }
}
