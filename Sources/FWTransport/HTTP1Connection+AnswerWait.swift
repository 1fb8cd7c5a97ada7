import FWLoop

// MARK: - HTTP1Connection: waiting for the peer's answer
//
// A hosted loop polls, rather than sleeps, while one of its channels waits for its peer's answer
// (EventLoop+Hosted.swift, BusyPollWindow.swift). The connection waits from its start until it is made, and from
// a request's first write until the response's head, or the request's end, failure or hand-over, or the socket's
// close; it tells the loop once per change. Loop thread only.

extension HTTP1Connection {
    /// Tells the loop when the connection starts or stops waiting for its peer's answer (once per change).
    func awaitAnswer(_ awaiting: Bool) {
        guard awaiting != awaitsAnswer else { return }
        awaitsAnswer = awaiting
        loop.expectAnswer(awaiting)
    }

    /// Whether `action` leaves the connection waiting for its peer: a request goes out (or waits behind
    /// another, pipelined); a response began, a request ended or left, the connection was made (its request may
    /// have been cancelled meanwhile: it then idles, awaiting nothing) or ends: no longer. Anything else leaves
    /// the wait as it was.
    static func awaitsAnswer(after action: HTTP1ConnectionStateMachine.Action) -> Bool? {
        switch action {
        case .startWriting, .writeFollower: true
        case .deliverHead, .completeRequest, .failRequest, .handOver, .bounceRequest, .closeIdle,
             .reportConnectFailed, .reportEstablished: false
        default: nil
        }
    }
}
