import FWTLS
import FWWire

// MARK: - HTTP1ConnectionStateMachine: its outputs
//
// The actions the machine returns and the establishment steps it reports; the rules that produce them are
// in HTTP1ConnectionStateMachine.swift.

extension HTTP1ConnectionStateMachine {
    /// What the owner must do.
    ///
    /// The cases carrying a `TransportError` (128 bytes) are indirect: inline, they made every action 160
    /// bytes, copied several times per request on its way from a machine input to `run`.
    enum Action {
        case none
        /// Write bytes of the tunnel's exchange with the proxy (the answer is read into `tunnelReceived`).
        case writeToProxy([UInt8])
        /// Start TLS on the connected socket: make the engine, arm the handshake timeout, run the handshake.
        case startTLS
        /// Ask whether to trust the server (its chain is known); the handshake waits for `trustDecided`.
        case askServerTrust
        /// Ask for the client certificate to send; the handshake waits for `clientIdentityChosen`.
        case askClientIdentity
        /// Hand the chosen identity (or none) to the engine, then run the handshake on.
        case provideClientIdentity(TLSIdentity?)
        /// Tell the pool the connection is established.
        case reportEstablished
        /// The connection could not be established: close it and report the failure to the pool (a
        /// rejected or cancelled trust decision also drops the TLS session cached during the handshake).
        indirect case reportConnectFailed(TransportError, discardTLSSession: Bool)
        /// Start writing the request (the connection is now active).
        case startWriting(PreparedRequest)
        /// The request arrived on a connection that had already closed: hand it back for a retry.
        case bounceRequest(PreparedRequest)
        /// Hand these events to the request's delegate.
        case deliver([TransportEvent], to: PreparedRequest)
        /// Hand a piece of a body that is not decoded to the request's delegate (`deliver` without a list, for
        /// the piece nearly every response has).
        case deliverBody([UInt8], to: PreparedRequest)
        /// A 100 Continue arrived: deliver it and let the waiting body go.
        case deliverContinue(TransportEvent, to: PreparedRequest)
        /// The final head arrived: deliver it; the body stops going out (stop its producer, if running).
        case deliverHead(HTTPResponseHead, to: PreparedRequest, stop: BodyProducer?)
        /// Queue body bytes (framing included); `payload` of them are body bytes.
        case writeBody([UInt8], payload: Int)
        /// Ask the body's producer for up to `maxLength` bytes, answering with `answer`.
        case produceBody(BodyProducer, maxLength: Int, answer: UInt64)
        /// The body is complete: stop its producer and queue `bytes` (the last chunk, or nothing).
        case finishBody([UInt8], stop: BodyProducer?)
        /// The request succeeded: deliver its end, release the connection to the pool (or close it).
        case completeRequest(PreparedRequest, trailers: HTTPHeaders, reusable: Bool, stop: BodyProducer?)
        /// Hand the channel's core (socket, TLS engine, the bytes read past the response's head) to `target`;
        /// the request ends, and the connection leaves the pool without closing.
        case handOver(PreparedRequest, to: HandOverTarget, stop: BodyProducer?)
        /// End the request with an error (or retry it) and close the connection.
        indirect case failRequest(PreparedRequest, TransportError, retry: Bool, stop: BodyProducer?)
        /// Close the connection and tell the pool it is gone.
        case closeIdle
        /// Pipelining: write this request's head behind the requests in flight (it joined the queue).
        case writeFollower(PreparedRequest)
        /// Pipelining: the request cannot join this connection's queue (full, closing, or not pipelinable): it
        /// goes back to the pool for another connection (no byte of it was written).
        case bounceFollower(PreparedRequest)
        /// Pipelining: a queued follower ends with this error before its turn (cancelled); the connection ends
        /// after the request in flight, since the follower's response would still come.
        indirect case failFollower(PreparedRequest, TransportError)
        /// Pipelining: run `then` (the connection is closed by it), then send `requests` again, in order, on
        /// another connection: they were written but never answered.
        indirect case replaying([PreparedRequest], then: Action)
    }

    /// Who takes the connection out of HTTP.
    enum HandOverTarget {
        /// A WebSocket handshake got its 101 (this head): check it, then a WebSocket channel.
        case webSocket(HTTPResponseHead)
        /// The task turned its response into a stream: a stream channel, given to `deliver`.
        case stream(deliver: @Sendable (StreamChannel?) -> Void)
    }

    /// Where establishing the connection is.
    enum Establishment: Equatable {
        /// Resolving and connecting the socket.
        case tcp
        /// Opening a tunnel through the proxy (CONNECT or SOCKS5).
        case tunnelling
        /// The TLS handshake runs.
        case handshaking
        /// The server's chain is known; waiting for the trust decision (then for an identity when the
        /// server asked for a client certificate).
        case awaitingTrust(thenIdentity: Bool)
        /// The server is trusted and asked for a client certificate; waiting for the choice.
        case awaitingIdentity
    }
}
