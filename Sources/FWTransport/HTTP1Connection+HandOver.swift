import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: handing the connection over to a WebSocket or a stream
//
// The machine closes and returns `.handOver` in two cases: a WebSocket handshake's 101 ended, or the task of
// the request in flight answered its response with `.becomeStream` (`detachStream`). Both go the same way:
// the timers stop, the channel's core (socket, TLS engine, what is queued) moves out of this connection
// (`ChannelCore.handOver`) together with the bytes the parser holds unparsed, into the next driver, which
// watches the socket once started; the events posted before go out first, then the new channel; the pool
// hears that the request finished on a connection that is not reusable, so the connection is gone from it for
// good. The core left here owns nothing: nothing of the connection is closed. The new driver lives on a loop
// of the transport's `channelLoops` when set (else on this loop): it is built here, on this loop, touching no
// loop state (its socket is watched by no loop in between), and everything it does later (`start`, reads,
// writes, timers, close) hops onto its own loop; the pool's bookkeeping stays here.
//
// A 101 is first checked against the handshake (RFC 6455 §4.1: accept value, upgrade fields, subprotocol,
// extensions), and a server that answered before our request was all written broke the handshake's order:
// either fails the request and closes the connection. Loop thread only.

extension HTTP1Connection {
    /// Takes the connection of request `id` out of HTTP as a stream, if that request still runs here with its
    /// request written; `deliver` gets the channel (not started), or nil.
    func detachStream(_ id: RequestID, deliver: @escaping @Sendable (StreamChannel?) -> Void) {
        loop.preconditionInEventLoop()
        guard machine.activeRequest?.id == id, core.isOpen, !core.hasQueuedWrites else { return deliver(nil) }
        run(machine.detachStream(deliver: deliver))
    }

    func handOver(_ request: PreparedRequest, to target: HTTP1ConnectionStateMachine.HandOverTarget) {
        cancelTimer()
        cancelContinueTimer()
        switch target {
        case .webSocket(let head):
            guard let upgrade = request.request.webSocket, core.isOpen else {
                preconditionFailure("handOver(\(request.id)) without a WebSocket upgrade or a socket")
            }
            guard !core.hasQueuedWrites else {
                fail(request, error: .webSocketHandshakeFailed(.unexpectedStatus), retry: false, stopping: nil)
                return
            }
            let agreement: WebSocketHandshake.Agreement
            do throws(WebSocketHandshakeError) {
                agreement = try upgrade.handshake.validate(head, expectedAccept: upgrade.handshake.expectedAccept)
            } catch {
                fail(request, error: .webSocketHandshakeFailed(error), retry: false, stopping: nil)
                return
            }
            metrics.responseEnd = loop.now().uptimeNanoseconds
            metrics.responseDeviations = parser.responseDeviations
            let leftover = parser.takeBufferedBytes()
            let channelLoop = transport.channelLoop(handedOverFrom: loop)
            let channel = WebSocketChannel(core: core.handOver(hangUp: .endsChannel, to: channelLoop),
                                           received: leftover, upgrade: upgrade, agreement: agreement)
            postEnding(of: request, then: .upgraded(channel))
            flushOutbox()
        case .stream(let deliver):
            let leftover = parser.abandonResponse()
            let channelLoop = transport.channelLoop(handedOverFrom: loop)
            let channel = StreamChannel(core: core.handOver(hangUp: .closesReadHalf, to: channelLoop),
                                        received: leftover, transport: transport, host: key.host, port: key.port)
            flushOutbox()
            deliver(channel)
        }
        _ = transport.requestFinished(request, on: self, reusable: false)
    }
}
