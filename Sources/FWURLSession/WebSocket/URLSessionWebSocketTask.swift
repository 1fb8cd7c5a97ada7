import Foundation
import FWTransport

// MARK: - URLSessionWebSocketTask
//
// The public face of a WebSocket task: FoundationNetworking's names and signatures. The task loads its
// opening handshake like any other request (redirects, challenges, trust and pinning for wss, metrics); its
// `WebSocketSink` (`WebSocketSink.swift`) holds the WebSocket's own state and does the work, on the
// connection's channel once the handshake succeeded.

/// A task that talks to a server over the WebSocket protocol (RFC 6455), made by
/// `URLSession.webSocketTask(with:)`. Messages sent before the handshake completes wait for it.
open class URLSessionWebSocketTask: URLSessionTask, @unchecked Sendable { // state: URLSessionTask's boxes + the sink's
    /// A WebSocket message.
    public enum Message: Sendable {
        /// A binary message.
        case data(Data)
        /// A text message.
        case string(String)
    }

    /// Why a WebSocket connection closed: the close codes of RFC 6455 §7.4.1.
    public enum CloseCode: Int, Sendable {
        /// No close code: the connection has not closed.
        case invalid = 0
        /// The purpose of the connection was fulfilled (1000).
        case normalClosure = 1000
        /// An endpoint is going away: a server shutting down, a client leaving (1001).
        case goingAway = 1001
        /// An endpoint broke the protocol (1002).
        case protocolError = 1002
        /// An endpoint received a type of data it cannot accept (1003).
        case unsupportedData = 1003
        /// The close frame carried no code (1005; never sent).
        case noStatusReceived = 1005
        /// The connection ended without a close frame (1006; never sent).
        case abnormalClosure = 1006
        /// A message's data did not match its type, such as text that is not UTF-8 (1007).
        case invalidFramePayloadData = 1007
        /// A message broke the endpoint's policy (1008).
        case policyViolation = 1008
        /// A message was too big to process (1009).
        case messageTooBig = 1009
        /// The client needed an extension the server did not agree to (1010).
        case mandatoryExtensionMissing = 1010
        /// The server met an unexpected condition (1011).
        case internalServerError = 1011
        /// The TLS handshake failed (1015; never sent).
        case tlsHandshakeFailure = 1015
    }

    let webSocket: WebSocketSink

    init(session: URLSession, identifier: Int, request: URLRequest, protocols: [String]) {
        let sink = WebSocketSink(protocols: protocols)
        webSocket = sink
        super.init(session: session, identifier: identifier, request: request, sink: sink)
    }

    // MARK: Properties

    /// The largest message the task accepts, in bytes (1 MiB by default); a larger one closes the connection
    /// with 1009 and fails the task with `URLError.dataLengthExceedsMaximum`. Read when the handshake is sent.
    open var maximumMessageSize: Int {
        get { webSocket.maximumMessageSize }
        set { webSocket.maximumMessageSize = newValue }
    }

    /// The close code of the connection: the one we sent with `cancel(with:reason:)`, or else the server's;
    /// `.invalid` while open.
    open var closeCode: CloseCode { webSocket.closeCode }

    /// The close reason that came with `closeCode`, when there was one.
    open var closeReason: Data? { webSocket.closeReason }

    // MARK: Messages

    /// Sends `message`; `completionHandler` runs on the delegate queue once it was written, or with the error
    /// that ended the connection first.
    open func send(_ message: Message, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        webSocket.send(message, task: self, completion: completionHandler)
    }

    /// Sends `message` and returns once it was written.
    open func send(_ message: Message) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            send(message) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Asks for the next message: `completionHandler` runs on the delegate queue with it, or with the error
    /// that ended the connection. Calls are answered in order, one message each.
    open func receive(completionHandler: @escaping @Sendable (Result<Message, any Error>) -> Void) {
        webSocket.receive(task: self, completion: completionHandler)
    }

    /// The next message.
    open func receive() async throws -> Message {
        try await withCheckedThrowingContinuation { continuation in
            receive { result in continuation.resume(with: result) }
        }
    }

    /// Sends a ping; `pongReceiveHandler` runs on the delegate queue when its pong arrives, or with the error
    /// that ended the connection first.
    open func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
        webSocket.sendPing(task: self, completion: pongReceiveHandler)
    }

    /// Sends a ping and returns when its pong arrived.
    open func sendPing() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            sendPing { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    // MARK: Closing

    /// Closes the connection with `closeCode` and `reason` (at most 123 bytes are sent): the task completes
    /// once the server answers (or after 5 seconds without an answer, with `URLError.timedOut`). Messages the
    /// server sent before it saw the close still answer `receive` calls, after the completion too. `.invalid`
    /// sends a close without a code.
    open func cancel(with closeCode: CloseCode, reason: Data?) {
        webSocket.close(closeCode, reason: reason, task: self)
    }

    /// Cancels the task: a connection that is open is closed with `goingAway` and dropped; the task
    /// completes with `URLError.cancelled`.
    open override func cancel() {
        webSocket.abandon(task: self)
        super.cancel()
    }

    /// Starts the handshake (or resumes a suspended task).
    open override func resume() {
        super.resume()
    }
}
