import FWTLS

// MARK: - HTTP1ConnectionStateMachine: establishing the connection
//
// The inputs of the `connecting` state: TCP connected, the tunnel through a proxy (its own sans-I/O machine
// fed what the proxy sends), the TLS handshake, the server-trust decision and the client-identity choice,
// and a failure at any step. The states and their order are described in HTTP1ConnectionStateMachine.swift.

extension HTTP1ConnectionStateMachine {
    /// The socket connected (to the origin, or to the proxy when there is a `tunnel` to open first);
    /// `secure` for HTTPS.
    mutating func tcpConnected(secure: Bool, tunnel: ProxyTunnel? = nil) -> Action {
        guard case .connecting(.tcp) = state else { preconditionFailure("tcpConnected in state \(state)") }
        self.secure = secure
        guard var tunnel else { return afterTransport() }
        state = .connecting(.tunnelling)
        let action = tunnel.start()
        self.tunnel = tunnel
        return run(action)
    }

    /// Bytes from the proxy while the tunnel opens (ignored otherwise).
    mutating func tunnelReceived(_ bytes: [UInt8]) -> Action {
        guard case .connecting(.tunnelling) = state, var tunnel else { return .none }
        let action = tunnel.receive(bytes)
        self.tunnel = tunnel
        return run(action)
    }

    /// The proxy closed the connection while the tunnel opens (ignored otherwise).
    mutating func tunnelEndOfStream() -> Action {
        guard case .connecting(.tunnelling) = state, var tunnel else { return .none }
        let action = tunnel.receiveEndOfStream()
        self.tunnel = tunnel
        return run(action)
    }

    private mutating func run(_ action: ProxyTunnelAction) -> Action {
        switch action {
        case .write(let bytes):
            return .writeToProxy(bytes)
        case .waitForMore:
            return .none
        case .established(let leftover) where leftover.isEmpty:
            tunnel = nil
            return afterTransport()
        case .established:
            return connectFailed(.proxyFailed(.malformedReply("the proxy sent bytes before the origin was spoken to")))
        case .failed(let error):
            return connectFailed(.proxyFailed(error))
        }
    }

    /// The way to the origin is open: TLS for HTTPS, else the connection is established.
    private mutating func afterTransport() -> Action {
        guard secure else { return established() }
        state = .connecting(.handshaking)
        return .startTLS
    }

    /// The handshake moved on: `inProgress` waits for bytes; a client-certificate request or the
    /// completed handshake need the trust decision, unless it was made already.
    mutating func handshakeAdvanced(_ progress: TLSEngine.HandshakeState) -> Action {
        guard case .connecting(.handshaking) = state else { return .none }
        switch progress {
        case .inProgress:
            return .none
        case .clientIdentityRequested:
            state = .connecting(.awaitingTrust(thenIdentity: true))
            return .askServerTrust
        case .complete where trustDecidedEarly:
            return established()
        case .complete:
            state = .connecting(.awaitingTrust(thenIdentity: false))
            return .askServerTrust
        }
    }

    /// The trust decision about `peerTrust` arrived (ignored unless one is awaited); a refusal carries the trust.
    mutating func trustDecided(_ decision: ServerTrustDecision, peerTrust: ServerTrust) -> Action {
        guard case .connecting(.awaitingTrust(let thenIdentity)) = state else { return .none }
        switch decision {
        case .trust where thenIdentity:
            trustDecidedEarly = true
            state = .connecting(.awaitingIdentity)
            return .askClientIdentity
        case .trust:
            return established()
        case .reject(let error):
            state = .closed
            return .reportConnectFailed(.serverTrustRejected(error, peerTrust: peerTrust), discardTLSSession: true)
        case .cancel:
            state = .closed
            return .reportConnectFailed(.cancelled, discardTLSSession: true)
        }
    }

    /// The client identity was chosen (ignored unless one is awaited).
    mutating func clientIdentityChosen(_ decision: ClientIdentityDecision) -> Action {
        guard case .connecting(.awaitingIdentity) = state else { return .none }
        switch decision {
        case .use(let identity):
            state = .connecting(.handshaking)
            return .provideClientIdentity(identity)
        case .continueWithoutIdentity:
            state = .connecting(.handshaking)
            return .provideClientIdentity(nil)
        case .cancel:
            state = .closed
            return .reportConnectFailed(.cancelled, discardTLSSession: true)
        }
    }

    /// Establishing the connection failed (resolution, connect, handshake, timeout, EOF).
    mutating func connectFailed(_ error: TransportError) -> Action {
        guard case .connecting = state else { preconditionFailure("connectFailed(\(error)) in state \(state)") }
        state = .closed
        tunnel = nil
        return .reportConnectFailed(error, discardTLSSession: false)
    }

    private mutating func established() -> Action {
        state = .idle
        return .reportEstablished
    }
}
