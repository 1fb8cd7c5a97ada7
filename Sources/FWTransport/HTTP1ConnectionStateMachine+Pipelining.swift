import FWWire

// MARK: - HTTP1ConnectionStateMachine: pipelining
//
// The in-flight queue of an HTTP/1.1 connection that pipelines (opt-in, `TransportRequest.pipelining`). The
// request in flight (`active`) is the head of the queue: its response is the one being read. Behind it,
// `followers` are requests whose heads were written after it, oldest first. Writes run ahead of reads up to
// the depth; each response's end completes the head and promotes the oldest follower (reads complete the
// head of the queue).
//
//   active(A), followers [] ──startRequest(B), B may follow A──▶ active(A), followers [B]   (writeFollower B)
//   active(A), followers [B, C] ──A's response ended, reusable──▶ active(B), followers [C]
//   active(A), followers [B, C] ──closes (not reusable, lost, failed, timed out)──▶ closed   (replaying B, C)
//   active(B, was a follower) ──lost before B's response began──▶ closed   (replaying B, C)
//
// A request joins only when both it and the head are pipelinable (GET or HEAD without a body; never behind
// a request with a body, `Connection: close` or a WebSocket handshake), fewer than the depth are in flight,
// the connection's request budget (`maxRequests`) allows it, and nothing said the connection ends after the
// head (its response's head said `Connection: close`, or HTTP/1.0 without keep-alive; or a follower left
// the queue, whose response will still come). Otherwise the request bounces back to the pool unwritten.
//
// A follower that is cancelled leaves the queue at once (its task ends now), and the connection ends after
// the head: its response, already asked for, would otherwise be taken for the next follower's. Only the
// head's timeout runs (each follower's starts when it becomes the head). A response that breaks the
// framing poisons everything behind it: the head fails with its error and the followers are replayed.

extension HTTP1ConnectionStateMachine {
    /// Whether `request` may be written behind `head` now.
    func mayFollow(_ request: PreparedRequest, behind head: HTTP1RequestStateMachine) -> Bool {
        request.isPipelinable && head.request.isPipelinable && !pipelineClosed
            && 1 + followers.count < pipeliningDepth
            && carriedRequests + 1 + followers.count < maxRequests
    }

    /// The pool leased the busy connection to `request` as well: it joins the queue, or bounces.
    mutating func admitFollower(_ request: PreparedRequest, behind head: HTTP1RequestStateMachine) -> Action {
        guard mayFollow(request, behind: head) else { return .bounceFollower(request) }
        followers.append(request)
        return .writeFollower(request)
    }

    /// The head's response ended and the connection goes on: the oldest follower is the new head. Its task's
    /// wish to pause reading is the owner's to apply (`setReadingPaused`), as it is for a new request.
    mutating func promoteFollower() -> HTTP1RequestStateMachine {
        let next = followers.removeFirst()
        headWasPipelined = true
        return HTTP1RequestStateMachine(next, readingPaused: false)
    }

    /// `action` closes the connection: with followers queued, they are replayed after it.
    mutating func closing(_ action: Action) -> Action {
        guard !followers.isEmpty else { return action }
        let replay = followers
        followers = []
        return .replaying(replay, then: action)
    }

    /// Ends follower `id` with `error` before its turn (no-op when it is not queued here).
    mutating func cancelFollower(_ id: RequestID, error: TransportError) -> Action {
        guard let index = followers.firstIndex(where: { $0.id == id }) else { return .none }
        pipelineClosed = true
        return .failFollower(followers.remove(at: index), error)
    }

    /// Whether the response whose head this is ends the connection: `Connection: close`, or HTTP/1.0
    /// without `keep-alive`.
    static func closesAfterResponse(_ head: HTTPResponseHead) -> Bool {
        if head.headers.containsToken("close", inField: "Connection") { return true }
        return head.version == .http1_0 && !head.headers.containsToken("keep-alive", inField: "Connection")
    }
}
