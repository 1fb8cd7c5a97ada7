import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: handing the connection over to a WebSocket
//
// A WebSocket handshake's 101 ended (the machine is closed): the response is checked against the handshake
// (RFC 6455 §4.1: accept value, upgrade fields, subprotocol, extensions); a bad one fails the request and
// closes the connection. A good one takes the socket, its registration, the TLS engine and the bytes the
// parser holds after the head out of this connection into a `WebSocketChannel` on the same loop; the pool
// hears that the request finished on a connection that is not reusable, so the connection is gone from it
// for good and nothing of it is closed here. Loop thread only.

extension HTTP1Connection {
    func handOver(_ request: PreparedRequest, head: HTTPResponseHead) {
        cancelTimer()
        cancelContinueTimer()
        guard let upgrade = request.request.webSocket, let socket else {
            preconditionFailure("handOver(\(request.id)) without a WebSocket upgrade or a socket")
        }
        // A server that answers before our request was all written broke the handshake's order.
        guard writes.isEmpty else {
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
        let leftover = parser.takeBufferedBytes()
        // The channel registers the socket itself once started; until then nothing watches it.
        stopWatchingSocket()
        let channel = WebSocketChannel(socket: socket, tls: tls, loop: loop, upgrade: upgrade, agreement: agreement,
                                       received: leftover)
        self.socket = nil
        tls = nil
        post([.metrics(finalMetrics()), .upgraded(channel)], to: request)
        flushOutbox()
        _ = transport.requestFinished(request, on: self, reusable: false)
    }
}
