import FWWire

// MARK: - HTTPConnectTunnel
//
// The client side of an HTTP CONNECT exchange (RFC 9110 §9.3.6) as a value type: no I/O. The owner writes
// what `start()` and `receive` return and feeds every byte the proxy sends.
//
//   start ──▶ CONNECT host:port ──2xx──────────────────────────────────────────▶ established(leftover)
//                   │ 407 offering Basic, credentials known, not sent yet
//                   ▼
//             (the 407's body is read) ──end, keep-alive──▶ CONNECT + Proxy-Authorization ──2xx──▶ established
//
//   any other answer, a second 407, a 407 without Basic or without credentials, a 407 after which the
//   proxy closes, a parse error, end of stream: failed (a 407's failure carries its Proxy-Authenticate
//   values, for the session to answer with an `authorization` on a new connection)
//
// Credentials are sent only to a proxy that asks for them in a scheme we speak (Basic), and only once:
// a proxy that asks again has refused them. An `authorization` chosen above (a Basic or Digest answer to
// an earlier 407) goes with the first CONNECT; a 407 to it is a refusal. Interim 1xx answers are skipped.
// A 2xx answer has no body whatever its fields say; the bytes after its head belong to the origin
// (`leftover`). Bytes beyond an answer the proxy sends before the next CONNECT went out break the protocol.

/// An HTTP CONNECT exchange with a proxy.
struct HTTPConnectTunnel: Sendable {
    private enum State: Equatable {
        case idle
        /// Waiting for the answer to a CONNECT; `answered`: it carried the credentials.
        case awaitingAnswer(answered: Bool)
        /// A 407 will be answered once its body is read.
        case readingChallenge
        case done
    }

    /// "host:port" of the origin (IPv6 in brackets).
    private let authority: String
    private let credentials: ProxyCredentials?
    private let authorization: String?
    private var parser: HTTPResponseParser
    private var state = State.idle
    /// The Proxy-Authenticate values of the last 407.
    private var offered: [String] = []

    /// An exchange asking the proxy for a tunnel to `authority`, with `authorization` from the start when
    /// given, else answering a Basic challenge with `credentials`; the proxy's answers must stay within
    /// `limits`.
    init(authority: String, credentials: ProxyCredentials?, authorization: String? = nil,
         limits: HTTPLimits = HTTPLimits()) {
        self.authority = authority
        self.credentials = credentials
        self.authorization = authorization
        self.parser = HTTPResponseParser(limits: limits)
    }

    /// The first CONNECT request.
    mutating func start() -> ProxyTunnelAction {
        guard state == .idle else { preconditionFailure("start() in state \(state)") }
        return connect(authorization: authorization)
    }

    /// Bytes from the proxy.
    mutating func receive(_ bytes: [UInt8]) -> ProxyTunnelAction {
        guard state != .done, state != .idle else { return .failed(.malformedReply("no CONNECT answer is expected")) }
        parser.feed(bytes)
        return drain()
    }

    /// The proxy closed the connection.
    mutating func receiveEndOfStream() -> ProxyTunnelAction {
        guard state != .done, state != .idle else { return .failed(.malformedReply("no CONNECT answer is expected")) }
        state = .done
        return .failed(.refused("the proxy closed the connection before the tunnel to \(authority) was open"))
    }

    // MARK: Answers

    private mutating func drain() -> ProxyTunnelAction {
        while true {
            let event: HTTPResponseEvent?
            do throws(HTTPParseError) {
                event = try parser.next()
            } catch {
                return fail(.malformedReply("the proxy's answer to CONNECT is not valid HTTP: \(error)"))
            }
            guard let event else { return .waitForMore }
            switch event {
            case .informational, .body, .chunk:
                continue
            case .head(let head, _):
                if let action = answered(head) { return action }
            case .end(_, let keepAlive):
                return challengeRead(keepAlive: keepAlive)
            }
        }
    }

    /// The final answer's head: nil to read on (a 407 that will be answered).
    private mutating func answered(_ head: HTTPResponseHead) -> ProxyTunnelAction? {
        guard case .awaitingAnswer(let answered) = state else { preconditionFailure("a head in state \(state)") }
        let status = "\(head.status) \(head.reason)"
        if (200..<300).contains(head.status) {
            _ = try? parser.next()
            state = .done
            return .established(leftover: parser.takeBufferedBytes())
        }
        guard head.status == 407 else {
            return fail(.refused("the proxy refused the tunnel to \(authority): \(status)"))
        }
        offered = head.headers.values(name: "Proxy-Authenticate")
        guard !answered else {
            return failAuthentication("the proxy rejected the credentials for the tunnel to \(authority)")
        }
        guard credentials != nil else {
            return failAuthentication("the proxy requires credentials for the tunnel to \(authority)")
        }
        guard Self.offersBasic(head.headers) else {
            let shown = offered.joined(separator: ", ")
            return failAuthentication("the proxy asks for an authentication scheme the tunnel does not "
                                      + "speak: \(shown.isEmpty ? "none" : shown)")
        }
        state = .readingChallenge
        return nil
    }

    /// The 407's body was read: answer on the same connection if the proxy keeps it open.
    private mutating func challengeRead(keepAlive: Bool) -> ProxyTunnelAction {
        guard state == .readingChallenge else { preconditionFailure("an end in state \(state)") }
        guard keepAlive else {
            return failAuthentication("the proxy closed the connection after asking for credentials")
        }
        guard parser.bufferedByteCount == 0 else {
            return fail(.malformedReply("the proxy sent bytes after its 407 before the next CONNECT"))
        }
        return connect(authorization: credentials?.basicAuthorization)
    }

    private mutating func connect(authorization: String?) -> ProxyTunnelAction {
        var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let authorization { head += "Proxy-Authorization: \(authorization)\r\n" }
        head += "\r\n"
        parser.expectResponse(requestMethod: "CONNECT")
        state = .awaitingAnswer(answered: authorization != nil)
        return .write(Array(head.utf8))
    }

    private mutating func fail(_ error: ProxyError) -> ProxyTunnelAction {
        state = .done
        return .failed(error)
    }

    /// A 407 that the tunnel does not answer: the failure carries its challenges.
    private mutating func failAuthentication(_ detail: String) -> ProxyTunnelAction {
        fail(.authenticationRequired(detail, proxyAuthenticate: offered))
    }

    /// Whether one of the `Proxy-Authenticate` challenges is Basic (a challenge starts a field value or
    /// follows a comma; its scheme is a token compared without case).
    static func offersBasic(_ headers: HTTPHeaders) -> Bool {
        headers.values(name: "Proxy-Authenticate").contains { value in
            value.split(separator: ",").contains { element in
                let words = element.split(separator: " ", omittingEmptySubsequences: true)
                return words.first?.lowercased() == "basic" && !(words.first?.contains("=") ?? true)
            }
        }
    }
}
