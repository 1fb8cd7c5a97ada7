import FWWire

// MARK: - HTTP1RequestStateMachine
//
// One request in flight on an HTTP/1.1 connection, as a pure value type nested in the connection's
// machine (`HTTP1ConnectionStateMachine.active`), the way AsyncHTTPClient nests its request machine. It
// owns everything that lives exactly as long as the request does: the prepared request, its body on the
// way out (`RequestBodyStateMachine`, the producer of a streamed body and the number of the one answer
// the producer owes), the body bytes the socket took, the response's content decoder (which hands a
// received piece out in bounded slices), and whether the task wants the response read now.
//
//   write half:  head ──▶ body pieces (after `100 Continue` or its timeout, when the body waits) ──▶ done
//   read half:   awaiting head ──1xx*──▶ awaiting head ──head──▶ body ──▶ (end: the connection decides)
//                a WebSocket handshake's 101 is its final head (no body): the connection hands itself over
//
// A content-encoded body is decoded in bounded slices: a received piece that inflates to more than one slice
// leaves the rest pending (`hasDecodedOutputPending`), which the connection takes out one slice per loop
// iteration while the task wants the response read, reading and parsing nothing else meanwhile — the same
// backpressure as raw bytes. Interim responses do not count as activity for the idle timeout.
//
// The two halves are independent (STYLE.md principle 4): a final response may arrive while the body is
// still going out, which stops the body there (the connection is then not reused, since the request was
// not fully framed). A streamed body has at most one `produce` outstanding; its answer counts only if it
// carries the number of the answer awaited (a stopped producer's late answer is ignored).

/// The state machine of one request in flight on a connection.
struct HTTP1RequestStateMachine {
    /// What to do with the body after the write queue emptied or the producer answered.
    enum BodyAction {
        case none
        /// Queue `bytes` (framing included); `payload` of them are body bytes.
        case write([UInt8], payload: Int)
        /// Ask `producer` for up to `maxLength` bytes; its answer must come back with `answer`.
        case produce(BodyProducer, maxLength: Int, answer: UInt64)
        /// The body is complete: queue `bytes` (the last chunk, or nothing) and stop `producer`.
        case finish([UInt8], stop: BodyProducer?)
        /// The body cannot be sent: the request fails with `reason` (the producer is stopped with it).
        case fail(String)
    }

    /// The request.
    let request: PreparedRequest
    private var body: RequestBodyStateMachine
    /// The producer of a streamed body while it runs, and the number of the answer it owes.
    private var producer: BodyProducer?
    private var awaitedAnswer: UInt64 = 0
    /// Body bytes the socket took on this attempt.
    private(set) var bodyBytesSent: Int64 = 0
    /// Undoes the response's transfer codings besides chunked, and its Content-Encoding when the request
    /// asked.
    private var decoder: ContentDecoder?
    /// Some request byte left the socket.
    private(set) var wroteAnyByte = false
    /// Every request byte left the socket.
    private(set) var writeDone = false
    /// A response byte (an interim or the final head) arrived.
    private(set) var responseStarted = false
    /// An interim response arrived and the final head has not yet.
    private var awaitingFinalHeadAfterInterim = false
    /// The final head was a 101 to a WebSocket handshake: at its end the connection leaves HTTP.
    private(set) var switchingProtocolsHead: HTTPResponseHead?
    /// The task does not want the response read now (suspended, or its delegate is behind).
    private(set) var readingPaused: Bool

    /// A request about to be written; `readingPaused` is what the task wants at this moment.
    init(_ request: PreparedRequest, readingPaused: Bool) {
        self.request = request
        self.body = RequestBodyStateMachine(body: request.request.body, waitsForContinue: request.expectsContinue)
        self.readingPaused = readingPaused
    }

    /// Whether the body (when streamed) needs a producer before anything else.
    var needsProducer: Bool { request.bodyProducers != nil && producer == nil }

    /// Whether every body byte (and the last chunk) was handed out for writing.
    var bodyIsComplete: Bool { body.isComplete }
    /// Whether `nextBodyPiece()` has something to do.
    var bodyHasPieceReady: Bool { body.hasPieceReady }

    // MARK: Writing

    /// The streamed body's producer for this attempt.
    mutating func attach(_ producer: BodyProducer) {
        self.producer = producer
    }

    /// Some request bytes left the socket.
    mutating func wroteBytes() {
        wroteAnyByte = true
    }

    /// The write queue is empty: what the body does next.
    mutating func nextBodyPiece() -> BodyAction {
        perform(body.nextPiece())
    }

    /// The producer answered; answers to anything but the awaited `answer` are ignored.
    mutating func producerAnswered(_ answer: TransportBodySink.Answer, number: UInt64) -> BodyAction {
        guard number == awaitedAnswer, producer != nil else { return .none }
        awaitedAnswer &+= 1
        switch answer {
        case .bytes(let bytes): return perform(body.produced(bytes))
        case .finish: return perform(body.finished())
        case .fail(let reason): return perform(body.failed(reason))
        }
    }

    /// `100 Continue` arrived, or the wait for it timed out: the body may go.
    mutating func continueReceived() {
        body.continueReceived()
    }

    /// The socket took `count` more body bytes; the new total, or nil when none moved.
    mutating func bodyBytesWritten(_ count: Int) -> Int64? {
        guard count > 0 else { return nil }
        bodyBytesSent += Int64(count)
        return bodyBytesSent
    }

    /// Every request byte left the socket.
    mutating func writeFinished() {
        writeDone = true
    }

    /// The request ends (or the final response came): the body stops where it is; the producer still
    /// running is returned, to be stopped.
    mutating func stopBody() -> BodyProducer? {
        body.stop()
        awaitedAnswer &+= 1
        defer { producer = nil }
        return producer
    }

    // MARK: Reading

    /// An interim (1xx) head arrived; true when it releases a body waiting for `100 Continue`.
    mutating func receivedInformational(_ head: HTTPResponseHead) -> Bool {
        responseStarted = true
        awaitingFinalHeadAfterInterim = true
        guard head.status == 100 else { return false }
        body.continueReceived()
        return true
    }

    /// The final head arrived: decoding starts when the body has transfer codings besides chunked, or a
    /// content coding the request asked to decode; the body stops going out (its producer is returned, to be
    /// stopped).
    mutating func receivedHead(_ head: HTTPResponseHead) -> BodyProducer? {
        responseStarted = true
        awaitingFinalHeadAfterInterim = false
        if head.status == 101, request.request.webSocket != nil { switchingProtocolsHead = head }
        // The transfer codings are always undone; the parser refused any it cannot undo on a response with a
        // body (one without, such as a HEAD response, decodes nothing).
        let transferCodings = (try? ResponseFramingRules.transferCodings(of: head)) ?? []
        let contentEncoding = request.request.decodesContent ? head.headers.first(name: "Content-Encoding") : nil
        // Most bodies have no coding: no decoder is tried (a failing class initialiser allocates first).
        decoder = transferCodings.isEmpty && contentEncoding == nil
            ? nil : ContentDecoder(transferCodings: transferCodings, contentEncoding: contentEncoding)
        return stopBody()
    }

    /// Body bytes arrived: the events that carry them. When decoding, only their first decoded slice: the
    /// rest comes from `nextDecodedSlice()` while `hasDecodedOutputPending`, and no more body may arrive
    /// before it is all out.
    mutating func receivedBody(_ bytes: [UInt8]) throws(ContentDecoder.Failure) -> [TransportEvent] {
        guard let decoder else { return [.body(bytes)] }
        try decoder.push(bytes)
        return [.encodedBodyBytes(bytes.count)] + (try nextDecodedSlice())
    }

    /// The received body's next decoded slice (no event when it decoded to nothing).
    func nextDecodedSlice() throws(ContentDecoder.Failure) -> [TransportEvent] {
        guard let slice = try decoder?.nextSlice(), !slice.isEmpty else { return [] }
        return [.body(slice)]
    }

    /// Whether the body is decoded (it has transfer codings besides chunked, or a content coding to undo): a
    /// piece of one that is not is delivered as it came, without this machine.
    var decodes: Bool { decoder != nil }

    /// Whether the body received so far still has decoded slices to come out.
    var hasDecodedOutputPending: Bool { decoder?.hasPendingOutput ?? false }

    /// The response ended: the decoder must have seen a complete stream.
    mutating func receivedEnd() throws(ContentDecoder.Failure) {
        try decoder?.finish()
    }

    /// Whether bytes read now count as activity for the idle timeout: not once an interim response came
    /// and until the final head does (a server that only ever sends `100 Continue` is idle).
    var readsCountAsActivity: Bool { !awaitingFinalHeadAfterInterim }

    /// The task wants the response read (`false`) or not (`true`); true when that changed.
    mutating func setReadingPaused(_ paused: Bool) -> Bool {
        guard paused != readingPaused else { return false }
        readingPaused = paused
        return true
    }

    // MARK: Helpers

    private mutating func perform(_ action: RequestBodyStateMachine.Action) -> BodyAction {
        switch action {
        case .none:
            return .none
        case .write(let bytes, let payload):
            return .write(bytes, payload: payload)
        case .produce(let maxLength):
            guard let producer else {
                preconditionFailure("produce(\(maxLength)) without a producer for \(request.id)")
            }
            awaitedAnswer &+= 1
            return .produce(producer, maxLength: maxLength, answer: awaitedAnswer)
        case .finish(let last):
            awaitedAnswer &+= 1
            defer { producer = nil }
            return .finish(last, stop: producer)
        case .fail(let reason):
            return .fail(reason)
        }
    }
}

// MARK: - BodyProducer

/// A streamed body's producer as the machines hand it around: compared by identity.
struct BodyProducer: Equatable {
    let producer: any TransportBodyProducer

    static func == (lhs: BodyProducer, rhs: BodyProducer) -> Bool {
        lhs.producer === rhs.producer
    }
}
