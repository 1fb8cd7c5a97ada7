import FWLoop
import FWTLS

// MARK: - HTTPTransport: TLS
//
// The transport's one TLS context (made on first use, shared by every connection and stream), and the two
// questions a handshake asks the configuration: whether to trust the server, and which client certificate
// to send. Both answers may come later, on any thread. Called on loop threads.

extension HTTPTransport {
    /// The transport's TLS context, made on first use.
    func tlsContext() -> Result<TLSContext, TLSError> {
        tlsContextBox.withLock { box in
            if let box { return box }
            let made = Result { () throws(TLSError) in
                try TLSContext(configuration: configuration.tls, sessionStore: TLSSessionCache<TLSSession>())
            }
            box = made
            return made
        }
    }

    /// Asks the configured handler (or the default evaluator) whether to trust the server of
    /// `connection`; `decide` may be called on any thread, later.
    func evaluateServerTrust(_ trust: ServerTrust, for connection: HTTP1Connection,
                             decide: @escaping @Sendable (ServerTrustDecision) -> Void) {
        if let handler = configuration.serverTrustHandler {
            handler(trust, connection.key, awaitingRequest(of: connection), decide)
            return
        }
        do throws(TrustError) {
            try DefaultTrustEvaluator().evaluate(trust)
            decide(.trust)
        } catch {
            decide(.reject(error))
        }
    }

    /// Asks the configured handler for the certificate to send to the server of `connection`, which
    /// accepts certificates issued by `acceptableAuthorities` (DER names); without a handler none is
    /// sent. `decide` may be called on any thread, later.
    func chooseClientIdentity(for connection: HTTP1Connection, acceptableAuthorities: [[UInt8]],
                              decide: @escaping @Sendable (ClientIdentityDecision) -> Void) {
        guard let handler = configuration.clientIdentityHandler else {
            decide(.continueWithoutIdentity)
            return
        }
        handler(connection.key, awaitingRequest(of: connection), acceptableAuthorities, decide)
    }

    /// The request a connecting connection is being made for (see `ConnectionPoolStateMachine.waiter(for:)`).
    private func awaitingRequest(of connection: HTTP1Connection) -> RequestID? {
        state.withLock { $0.pool.waiter(for: connection.id) }
    }
}

// MARK: - Server trust

/// The outcome of a server-trust evaluation.
public enum ServerTrustDecision: Sendable {
    /// Go on with the connection.
    case trust
    /// Refuse the server; requests waiting for the connection fail with this reason.
    case reject(TrustError)
    /// The evaluation was cancelled (`cancelAuthenticationChallenge`).
    case cancel
}

/// Decides whether to trust the server of a connection (`key`) once its chain is known: after the TLS
/// handshake, or earlier when the server asks for a client certificate (trust comes first). The request
/// id is the request the connection is being made for (nil when none waits for it any more). Called on
/// a loop thread; call `decide` exactly once, on any thread, possibly later (after asking a delegate).
public typealias ServerTrustHandler = @Sendable (
    ServerTrust, ConnectionKey, RequestID?, _ decide: @escaping @Sendable (ServerTrustDecision) -> Void
) -> Void

// MARK: - Client identity

/// The answer to a server's request for a client certificate.
public enum ClientIdentityDecision: Sendable {
    /// Send this identity (its certificate, its intermediates, and a signature with its key).
    case use(TLSIdentity)
    /// Send no certificate; the server decides whether to go on.
    case continueWithoutIdentity
    /// Stop: the connection fails with `TransportError.cancelled` (`cancelAuthenticationChallenge`).
    case cancel
}

/// Chooses the client certificate for a connection (`key`) whose server asked for one, after the
/// server's trust was accepted. The request id is the request the connection is being made for (nil
/// when none waits for it any more); the DER names are the certificate authorities the server accepts
/// (URLProtectionSpace's `distinguishedNames`; possibly empty). Called on a loop thread; call `decide`
/// exactly once, on any thread, possibly later. The handshake (and the connect timeout) waits for it.
public typealias ClientIdentityHandler = @Sendable (
    ConnectionKey, RequestID?, _ acceptableAuthorities: [[UInt8]],
    _ decide: @escaping @Sendable (ClientIdentityDecision) -> Void
) -> Void
