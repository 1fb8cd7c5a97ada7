// ResponseEventChecker: the properties the events of one response must have, as a small state machine
// fed with every event the parser reports for that response.
//
//   awaitingHead ──.informational (1xx, not 101)──▶ awaitingHead
//   awaitingHead ──.head (final status, framing as RFC 9112 §6.3 demands)──▶ body
//   body ──.body (non-empty, allowed by the framing, never past a Content-Length)──▶ body
//   body ──.end (byte total equals the Content-Length, keep-alive as derived)──▶ ended
//
// Any other event in any state is a finding (`fuzzFailure`), never a precondition of the checker: the
// events come from the code under test. The framing and keep-alive rules are restated from
// CONFORMANCE.md and the FWWire documentation rather than calling FWWire's own rule functions.

import FWWire

/// Checks the events of one response, in order; traps on the first one that breaks a property.
struct ResponseEventChecker {
    private enum State {
        case awaitingHead
        case body(head: HTTPResponseHead, framing: BodyFraming, received: Int64)
        case ended
    }

    private var state = State.awaitingHead
    private let requestMethod: String
    private let limits: HTTPLimits

    /// A checker for the response to a request with `requestMethod`, parsed with `limits`.
    init(requestMethod: String, limits: HTTPLimits) {
        self.requestMethod = requestMethod
        self.limits = limits
    }

    /// True once `.end` was checked.
    var isEnded: Bool {
        if case .ended = state {
            return true
        }
        return false
    }

    // MARK: Input

    /// Checks `event`; `endOfStreamFed` tells whether the server's close was already fed to the parser.
    mutating func observe(_ event: HTTPResponseEvent, endOfStreamFed: Bool) {
        switch (state, event) {
        case (.awaitingHead, .informational(let head)):
            fuzzCheck(
                (100..<200).contains(head.status) && head.status != 101, "interim response \(head.status)")
            checkHead(head)
        case (.awaitingHead, .head(let head, let framing)):
            fuzzCheck((200...999).contains(head.status), "final response with status \(head.status)")
            checkHead(head)
            checkFraming(framing, of: head)
            state = .body(head: head, framing: framing, received: 0)
        case (.body(let head, let framing, let received), .body(let bytes)):
            fuzzCheck(!bytes.isEmpty, "empty .body event")
            fuzzCheck(framing != .none, "body bytes for a response without a body")
            let total = received + Int64(bytes.count)
            if case .contentLength(let length) = framing {
                fuzzCheck(total <= length, "\(total) body bytes for Content-Length \(length)")
            }
            state = .body(head: head, framing: framing, received: total)
        case (.body(let head, let framing, let received), .end(let trailers, let keepAlive)):
            checkEnd(head: head, framing: framing, received: received, trailers: trailers, keepAlive: keepAlive)
            if framing == .untilClose {
                fuzzCheck(endOfStreamFed, "close-delimited body ended before the server closed")
            }
            state = .ended
        default:
            fuzzFailure("event \(event) in checker state \(state)")
        }
    }

    // MARK: Properties

    /// Version, reason phrase and fields of any head.
    private func checkHead(_ head: HTTPResponseHead) {
        fuzzCheck(head.version == .http1_1 || head.version == .http1_0, "version \(head.version)")
        FieldGrammar.checkReason(head.reason)
        FieldGrammar.checkFields(head.headers, limits: limits, section: "head")
    }

    /// RFC 9112 §6.3 in order: no body for HEAD, 204 and 304; Transfer-Encoding wins (chunked only in
    /// HTTP/1.1); otherwise the one Content-Length value; otherwise until close.
    private func checkFraming(_ framing: BodyFraming, of head: HTTPResponseHead) {
        let headers = head.headers
        if requestMethod == "HEAD" || head.status == 204 || head.status == 304 {
            fuzzCheck(framing == .none, "framing \(framing) for a response without a body")
        } else if headers.contains(name: "Transfer-Encoding") {
            let allowed: [BodyFraming] = head.version == .http1_1 ? [.chunked, .untilClose] : [.untilClose]
            fuzzCheck(allowed.contains(framing), "framing \(framing) with Transfer-Encoding in \(head.version)")
        } else if headers.contains(name: "Content-Length") {
            let values = headers.values(name: "Content-Length")
            let lengths = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map(Self.decimal)
            guard case .contentLength(let length) = framing else {
                fuzzFailure("framing \(framing) with Content-Length \(values)")
            }
            fuzzCheck(lengths.allSatisfy { $0 == length }, "framing \(framing) with Content-Length \(values)")
        } else {
            fuzzCheck(framing == .untilClose, "framing \(framing) without length or coding")
        }
    }

    /// One Content-Length element, OWS trimmed, as 1*DIGIT within Int64; nil for anything else.
    private static func decimal(_ element: Substring) -> Int64? {
        let bytes = Array(element.utf8)
        guard let first = bytes.firstIndex(where: { !FieldGrammar.isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !FieldGrammar.isWhitespace($0) })
        else { return nil }
        let digits = bytes[first...last]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// The byte total, trailers and derived keep-alive at the end of a message.
    private func checkEnd(
        head: HTTPResponseHead, framing: BodyFraming, received: Int64, trailers: HTTPHeaders, keepAlive: Bool
    ) {
        switch framing {
        case .none:
            fuzzCheck(received == 0, "\(received) body bytes without a body")
        case .contentLength(let length):
            fuzzCheck(received == length, "\(received) body bytes at .end for Content-Length \(length)")
        case .chunked, .untilClose:
            break
        }
        if framing == .chunked {
            FieldGrammar.checkFields(trailers, limits: limits, section: "trailers")
        } else {
            fuzzCheck(trailers.isEmpty, "trailers \(trailers) without chunked framing")
        }
        let headers = head.headers
        let versionAllows = head.version == .http1_1 || headers.containsToken("keep-alive", inField: "Connection")
        let expected = framing != .untilClose && versionAllows
            && !headers.containsToken("close", inField: "Connection")
            && !(framing == .chunked && headers.contains(name: "Content-Length"))
        fuzzCheck(keepAlive == expected, "keepAlive \(keepAlive) at .end, derived \(expected), head \(head)")
    }
}
