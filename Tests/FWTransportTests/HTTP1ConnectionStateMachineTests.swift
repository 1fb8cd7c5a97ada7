import FWTLS
@testable import FWTransport
import FWWire
import Testing
import TestSupport

// The connection's rules as a table: inputs in, actions out, no sockets (as AsyncHTTPClient tests its
// HTTP1ConnectionStateMachine). Each row drives a fresh machine through a script of inputs and compares
// the actions, summarised as text, with the expected ones.
@Suite struct HTTP1ConnectionStateMachineTests {
    typealias Machine = HTTP1ConnectionStateMachine

    /// One input of a script.
    enum Input: CustomStringConvertible {
        case tcp(secure: Bool)
        case tunnelled(secure: Bool, ProxyTunnel)
        case proxy(String)
        case proxyBytes([UInt8])
        case proxyClosed
        case handshake(TLSEngine.HandshakeState)
        case trust(ServerTrustDecision)
        case identity(ClientIdentityDecision)
        case connectFailed
        case start(PreparedRequest, paused: Bool = false)
        case nextBody
        case written
        case informational(Int)
        case head(Int, [(String, String)] = [])
        case body([UInt8])
        case end(keepAlive: Bool = true, unread: Bool = false)
        case lost
        case fail
        case unsolicited
        case close

        var description: String { "\(self)" }
    }

    static func run(_ inputs: [Input], maxRequests: Int? = nil) -> (Machine, [String]) {
        var machine = Machine(maxRequests: maxRequests)
        var actions: [String] = []
        for input in inputs {
            let action: Machine.Action
            switch input {
            case .tcp(let secure): action = machine.tcpConnected(secure: secure)
            case .tunnelled(let secure, let tunnel): action = machine.tcpConnected(secure: secure, tunnel: tunnel)
            case .proxy(let text): action = machine.tunnelReceived(Array(text.utf8))
            case .proxyBytes(let bytes): action = machine.tunnelReceived(bytes)
            case .proxyClosed: action = machine.tunnelEndOfStream()
            case .handshake(let state): action = machine.handshakeAdvanced(state)
            case .trust(let decision): action = machine.trustDecided(decision, peerTrust: Self.peerTrust)
            case .identity(let decision): action = machine.clientIdentityChosen(decision)
            case .connectFailed: action = machine.connectFailed(.timedOut("handshake"))
            case .start(let request, let paused): action = machine.startRequest(request, readingPaused: paused)
            case .nextBody: action = machine.nextBodyPiece()
            case .written:
                machine.withRequest { request in
                    request.wroteBytes()
                    if request.bodyIsComplete { request.writeFinished() }
                }
                continue
            case .informational(let status): action = machine.receivedInformational(Self.head(status))
            case .head(let status, let fields): action = machine.receivedHead(Self.head(status, fields))
            case .body(let bytes): action = machine.receivedBody(bytes)
            case .end(let keepAlive, let unread):
                action = machine.receivedEnd(trailers: HTTPHeaders(), keepAlive: keepAlive, hasUnreadBytes: unread)
            case .lost: action = machine.connectionLost(.connectionLost("reset"))
            case .fail: action = machine.failActiveRequest(.cancelled)
            case .unsolicited: action = machine.receivedUnsolicitedBytes()
            case .close: action = machine.close()
            }
            actions.append(action.summary)
        }
        return (machine, actions)
    }

    static func head(_ status: Int, _ fields: [(String, String)] = []) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return HTTPResponseHead(version: .http1_1, status: status, reason: "", headers: headers)
    }

    static let get = StubRequests.prepared(1)

    // MARK: Establishment

    @Test func plainConnectionsAreEstablishedWhenTheSocketConnects() {
        let (machine, actions) = Self.run([.tcp(secure: false)])
        #expect(actions == ["reportEstablished"])
        #expect(machine.isIdle)
    }

    @Test func httpsAsksForTrustWhenTheHandshakeCompletes() {
        let (machine, actions) = Self.run([
            .tcp(secure: true), .handshake(.inProgress), .handshake(.complete), .trust(.trust),
        ])
        #expect(actions == ["startTLS", "none", "askServerTrust", "reportEstablished"])
        #expect(machine.isIdle)
    }

    @Test func aClientCertificateIsChosenOnlyOnceTheServerIsTrusted() {
        let (machine, actions) = Self.run([
            .tcp(secure: true), .handshake(.clientIdentityRequested), .trust(.trust),
            .identity(.continueWithoutIdentity), .handshake(.complete),
        ])
        #expect(actions == ["startTLS", "askServerTrust", "askClientIdentity", "provideClientIdentity(none)",
                            "reportEstablished"])
        #expect(machine.isIdle)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let inputs: [Input]
        let last: String
        var testDescription: String { last }
    }

    static let refusals = [
        Refusal(inputs: [.tcp(secure: true), .handshake(.complete), .trust(.reject(.untrusted(reason: "x")))],
                last: "connectFailed(serverTrustRejected, discard: true)"),
        Refusal(inputs: [.tcp(secure: true), .handshake(.complete), .trust(.cancel)],
                last: "connectFailed(cancelled, discard: true)"),
        Refusal(inputs: [.tcp(secure: true), .handshake(.clientIdentityRequested), .trust(.trust), .identity(.cancel)],
                last: "connectFailed(cancelled, discard: true)"),
        Refusal(inputs: [.tcp(secure: true), .connectFailed], last: "connectFailed(timedOut, discard: false)"),
        Refusal(inputs: [.tcp(secure: true), .handshake(.complete), .lost],
                last: "connectFailed(connectionLost, discard: false)"),
    ]

    @Test(arguments: refusals)
    func aRefusedOrFailedEstablishmentClosesTheConnection(_ row: Refusal) {
        let (machine, actions) = Self.run(row.inputs)
        #expect(actions.last == row.last)
        #expect(machine.isClosed)
    }

    /// The trust every script's decision is about.
    static let peerTrust = ServerTrust(certificateChain: [], host: "peer.example", anchors: .system)

    @Test func aRefusedTrustTravelsInTheConnectFailure() {
        var machine = Machine(maxRequests: nil)
        _ = machine.tcpConnected(secure: true)
        _ = machine.handshakeAdvanced(.complete)
        guard case .reportConnectFailed(let error, _) = machine.trustDecided(
            .reject(.untrusted(reason: "x")), peerTrust: Self.peerTrust) else {
            Issue.record("a refusal fails the connection")
            return
        }
        #expect(error.isServerTrustRejected)
        #expect(error.peerTrust?.host == "peer.example")
    }

    @Test func decisionsThatComeAtTheWrongTimeAreIgnored() {
        let (machine, actions) = Self.run([
            .tcp(secure: true), .trust(.trust), .identity(.continueWithoutIdentity), .handshake(.inProgress),
        ])
        #expect(actions == ["startTLS", "none", "none", "none"])
        #expect(machine.establishment == .handshaking)
    }

    // MARK: Tunnels through a proxy

    static let connect = ProxyTunnel.connect(HTTPConnectTunnel(authority: "example.test:443", credentials: nil))
    static let socks = ProxyTunnel.socks5(SOCKS5Handshake(target: .name("example.test"), port: 80, credentials: nil))
    static let connected = "HTTP/1.1 200 Connection established\r\n\r\n"

    @Test func tlsWithTheOriginStartsInsideTheOpenTunnel() {
        let (machine, actions) = Self.run([
            .tunnelled(secure: true, Self.connect), .proxy("HTTP/1.1 200 Connection"), .proxy(" established\r\n\r\n"),
            .handshake(.complete), .trust(.trust),
        ])
        #expect(actions == ["writeToProxy(61)", "none", "startTLS", "askServerTrust", "reportEstablished"])
        #expect(machine.isIdle)
    }

    @Test func plainHTTPThroughSOCKS5IsEstablishedWhenTheTunnelOpens() {
        let (machine, actions) = Self.run([
            .tunnelled(secure: false, Self.socks), .proxyBytes([5, 0]), .proxyBytes([5, 0, 0, 1, 1, 2, 3, 4, 0, 80]),
        ])
        #expect(actions == ["writeToProxy(3)", "writeToProxy(19)", "reportEstablished"])
        #expect(machine.isIdle)
    }

    static let tunnelFailures = [
        Refusal(inputs: [.tunnelled(secure: true, connect), .proxy("HTTP/1.1 502 Bad Gateway\r\n\r\n")],
                last: "connectFailed(proxyFailed, discard: false)"),
        Refusal(inputs: [.tunnelled(secure: true, connect), .proxy(connected + "early")],
                last: "connectFailed(proxyFailed, discard: false)"),
        Refusal(inputs: [.tunnelled(secure: false, socks), .proxyClosed],
                last: "connectFailed(proxyFailed, discard: false)"),
        Refusal(inputs: [.tunnelled(secure: true, connect), .connectFailed],
                last: "connectFailed(timedOut, discard: false)"),
    ]

    @Test(arguments: tunnelFailures)
    func aTunnelThatDoesNotOpenClosesTheConnection(_ row: Refusal) {
        let (machine, actions) = Self.run(row.inputs)
        #expect(actions.last == row.last)
        #expect(machine.isClosed)
    }

    @Test func proxyBytesOutsideTheTunnelStepAreIgnored() {
        let (machine, actions) = Self.run([
            .tunnelled(secure: true, Self.connect), .proxy(Self.connected), .proxy(Self.connected), .proxyClosed,
        ])
        #expect(actions == ["writeToProxy(61)", "startTLS", "none", "none"])
        #expect(machine.establishment == .handshaking)
    }

    // MARK: Requests and keep-alive

    @Test func aRequestRunsAndTheConnectionIsReusedWhenBothHalvesEndCleanly() {
        let (machine, actions) = Self.run([
            .tcp(secure: false), .start(Self.get), .nextBody, .written, .head(200), .body([1, 2]), .end(),
        ])
        #expect(actions == ["reportEstablished", "startWriting(R1)", "none", "deliverHead(200, R1, stop: false)",
                            "deliverBody(2, R1)", "complete(R1, reusable: true, stop: false)"])
        #expect(machine.isIdle)
        #expect(machine.isReused)
    }

    struct ReuseRow: Sendable, CustomTestStringConvertible {
        let why: String
        let request: PreparedRequest
        let written: Bool
        let keepAlive: Bool
        let unread: Bool
        let maxRequests: Int?
        let reusable: Bool
        var testDescription: String { why }
    }

    static let reuseRows = [
        ReuseRow(why: "everything clean", request: get, written: true, keepAlive: true, unread: false,
                 maxRequests: nil, reusable: true),
        ReuseRow(why: "the response forbids keep-alive", request: get, written: true, keepAlive: false,
                 unread: false, maxRequests: nil, reusable: false),
        ReuseRow(why: "the response ended before the request was written", request: get, written: false,
                 keepAlive: true, unread: false, maxRequests: nil, reusable: false),
        ReuseRow(why: "the request said Connection: close", request: StubRequests.prepared(1, closes: true),
                 written: true, keepAlive: true, unread: false, maxRequests: nil, reusable: false),
        ReuseRow(why: "bytes follow the response", request: get, written: true, keepAlive: true, unread: true,
                 maxRequests: nil, reusable: false),
        ReuseRow(why: "the connection carried its last request", request: get, written: true, keepAlive: true,
                 unread: false, maxRequests: 1, reusable: false),
    ]

    @Test(arguments: reuseRows)
    func keepAliveIsDerived(_ row: ReuseRow) {
        var inputs: [Input] = [.tcp(secure: false), .start(row.request), .nextBody]
        if row.written { inputs.append(.written) }
        inputs += [.head(200), .end(keepAlive: row.keepAlive, unread: row.unread)]
        let (machine, actions) = Self.run(inputs, maxRequests: row.maxRequests)
        #expect(actions.last == "complete(R1, reusable: \(row.reusable), stop: false)")
        #expect(machine.isIdle == row.reusable)
        #expect(machine.isClosed == !row.reusable)
    }

    @Test func aRequestForAClosedConnectionBouncesBack() {
        let (_, actions) = Self.run([.tcp(secure: false), .lost, .start(Self.get)])
        #expect(actions == ["reportEstablished", "closeIdle", "bounce(R1)"])
    }

    @Test func bytesWhileIdleCloseTheConnection() {
        let (machine, actions) = Self.run([.tcp(secure: false), .unsolicited])
        #expect(actions == ["reportEstablished", "closeIdle"])
        #expect(machine.isClosed)
    }

    // MARK: Retry safety

    struct RetryRow: Sendable, CustomTestStringConvertible {
        let why: String
        let reused: Bool
        let request: PreparedRequest
        let written: Bool
        let responseStarted: Bool
        let retry: Bool
        var testDescription: String { why }
    }

    static let retryRows = [
        RetryRow(why: "a fresh connection is never retried", reused: false, request: get, written: false,
                 responseStarted: false, retry: false),
        RetryRow(why: "reused, nothing written", reused: true, request: StubRequests.prepared(2, method: "POST"),
                 written: false, responseStarted: false, retry: true),
        RetryRow(why: "reused, a POST partly written", reused: true, request: StubRequests.prepared(2, method: "POST"),
                 written: true, responseStarted: false, retry: false),
        RetryRow(why: "reused, an idempotent GET written", reused: true, request: StubRequests.prepared(2),
                 written: true, responseStarted: false, retry: true),
        RetryRow(why: "reused, but the response had started", reused: true, request: StubRequests.prepared(2),
                 written: true, responseStarted: true, retry: false),
        RetryRow(why: "reused, a POST with an Idempotency-Key written", reused: true,
                 request: StubRequests.prepared(2, method: "POST", fields: [("Idempotency-Key", "k1")]),
                 written: true, responseStarted: false, retry: true),
        RetryRow(why: "reused, a POST with an X-Idempotency-Key written", reused: true,
                 request: StubRequests.prepared(2, method: "POST", fields: [("X-Idempotency-Key", "k1")]),
                 written: true, responseStarted: false, retry: true),
    ]

    @Test(arguments: retryRows)
    func aLostConnectionRetriesOnlyWhenProvablySafe(_ row: RetryRow) {
        var inputs: [Input] = [.tcp(secure: false)]
        if row.reused { inputs += [.start(Self.get), .nextBody, .written, .head(204), .end()] }
        inputs.append(.start(row.request))
        if row.written { inputs += [.nextBody, .written] }
        if row.responseStarted { inputs.append(.informational(103)) }
        inputs.append(.lost)
        let (machine, actions) = Self.run(inputs)
        let id = row.request.id
        #expect(actions.last == "fail(\(id), connectionLost, retry: \(row.retry), stop: false)")
        #expect(machine.isClosed)
    }

    // MARK: Bodies

    @Test func aLargeBodyWaitsForContinueThenGoesInSlices() {
        let upload = StubRequests.prepared(1, method: "PUT", body: [UInt8](repeating: 7, count: 1_100_000))
        let (_, actions) = Self.run([
            .tcp(secure: false), .start(upload), .nextBody, .informational(100), .nextBody, .nextBody,
        ])
        #expect(upload.expectsContinue)
        #expect(actions == ["reportEstablished", "startWriting(R1)", "none",
                            "deliverContinue(informational(100), R1)", "write(65536)", "write(65536)"])
    }

    @Test func aStreamedBodyTakesOnlyTheAnswerItAskedFor() {
        let stream = StubRequests.prepared(1, method: "POST", stream: 3)
        var machine = Machine()
        _ = machine.tcpConnected(secure: false)
        _ = machine.startRequest(stream, readingPaused: false)
        #expect(machine.inFlight?.needsProducer == true)
        let producer = BodyProducer(producer: StubRequests.IdleProducer())
        machine.withRequest { $0.attach(producer) }
        guard case .produceBody(_, let maxLength, let answer) = machine.nextBodyPiece() else {
            Issue.record("the body asks its producer first")
            return
        }
        #expect(maxLength == 3)
        #expect(machine.producerAnswered(.bytes([1]), number: answer + 1).summary == "none")
        #expect(machine.producerAnswered(.bytes([1, 2, 3]), number: answer).summary == "write(3)")
        guard case .produceBody(_, _, let next) = machine.nextBodyPiece() else {
            Issue.record("the body asks for its end")
            return
        }
        #expect(machine.producerAnswered(.finish, number: next).summary == "finishBody(0, stop: true)")
        #expect(machine.inFlight?.bodyIsComplete == true)
    }

    @Test func aStreamThatBreaksItsContractFailsTheRequest() {
        var machine = Machine()
        _ = machine.tcpConnected(secure: false)
        _ = machine.startRequest(StubRequests.prepared(1, method: "POST", stream: 2), readingPaused: false)
        machine.withRequest { $0.attach(BodyProducer(producer: StubRequests.IdleProducer())) }
        guard case .produceBody(_, _, let answer) = machine.nextBodyPiece() else {
            Issue.record("the body asks its producer first")
            return
        }
        #expect(machine.producerAnswered(.bytes([1, 2, 3]), number: answer).summary
                    == "fail(R1, bodyStreamFailed, retry: false, stop: true)")
        #expect(machine.isClosed)
    }

    @Test func theFinalResponseStopsABodyStillGoingOut() {
        let upload = StubRequests.prepared(1, method: "POST", stream: 100)
        var machine = Machine()
        _ = machine.tcpConnected(secure: false)
        _ = machine.startRequest(upload, readingPaused: false)
        machine.withRequest { $0.attach(BodyProducer(producer: StubRequests.IdleProducer())) }
        _ = machine.nextBodyPiece()
        #expect(machine.receivedHead(Self.head(413)).summary == "deliverHead(413, R1, stop: true)")
        #expect(machine.nextBodyPiece().summary == "none")
        #expect(machine.receivedEnd(trailers: HTTPHeaders(), keepAlive: true, hasUnreadBytes: false).summary
                    == "complete(R1, reusable: false, stop: false)")
    }

    @Test func aStreamTakesTheConnectionOverOnlyWhileItsRequestRuns() {
        var machine = Machine()
        _ = machine.tcpConnected(secure: false)
        #expect(machine.detachStream(deliver: { _ in }).summary == "none", "idle: no request to take over")
        _ = machine.startRequest(Self.get, readingPaused: false)
        _ = machine.nextBodyPiece()
        _ = machine.receivedHead(Self.head(200))
        #expect(machine.detachStream(deliver: { _ in }).summary == "handOver(R1, stream, stop: false)")
        #expect(machine.isClosed, "handed over: never back to the pool")
        #expect(machine.detachStream(deliver: { _ in }).summary == "none")
    }

    @Test func aWebSocketHandshakes101HandsTheConnectionOverAndNeverBackToThePool() {
        let handshake = StubRequests.prepared(1, webSocket: true)
        let (machine, actions) = Self.run([
            .tcp(secure: false), .start(handshake), .nextBody, .written, .head(101), .end(keepAlive: false),
        ])
        #expect(actions.suffix(2) == ["deliverHead(101, R1, stop: false)", "handOver(R1, 101, stop: false)"])
        #expect(machine.isClosed)
        // The same status for a request that did not ask to upgrade completes it (the parser refuses it first).
        let plain = Self.run([.tcp(secure: false), .start(Self.get), .nextBody, .written, .head(101), .end()])
        #expect(plain.1.last == "complete(R1, reusable: true, stop: false)")
    }

    // MARK: Decoding and pausing

    @Test func anEncodedBodyIsDecodedAndABrokenOneFailsTheRequest() throws {
        let gzip: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9,
                             0xc9, 0x07, 0x00, 0x86, 0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00]
        let decoding = StubRequests.prepared(1, decodes: true)
        let (_, actions) = Self.run([
            .tcp(secure: false), .start(decoding), .head(200, [("Content-Encoding", "gzip")]), .body(gzip), .end(),
        ])
        #expect(actions[3] == "deliver([encodedBodyBytes(25), body(5)], R1)")
        #expect(actions[4].hasPrefix("complete(R1"))
        let (machine, broken) = Self.run([
            .tcp(secure: false), .start(decoding), .head(200, [("Content-Encoding", "gzip")]), .body([1, 2, 3, 4]),
        ])
        #expect(broken.last == "fail(R1, cannotDecodeContent, retry: false, stop: false)")
        #expect(machine.isClosed)
    }

    @Test func theReadingPauseIsTheRequestsAndEndsWithIt() {
        var machine = Machine()
        _ = machine.tcpConnected(secure: false)
        _ = machine.startRequest(Self.get, readingPaused: true)
        #expect(machine.isReadingPaused)
        #expect(machine.withRequest { $0.setReadingPaused(true) } == false)
        #expect(machine.withRequest { $0.setReadingPaused(false) } == true)
        #expect(!machine.isReadingPaused)
        _ = machine.withRequest { $0.setReadingPaused(true) }
        _ = machine.failActiveRequest(.cancelled)
        #expect(!machine.isReadingPaused)
    }

    // Issue 18, item 7: interim responses do not reset the idle timeout.
    @Test func interimResponsesAreNotActivityUntilTheFinalHead() {
        var machine = Machine()
        _ = machine.tcpConnected(secure: false)
        _ = machine.startRequest(Self.get, readingPaused: false)
        #expect(machine.inFlight?.readsCountAsActivity == true)
        _ = machine.receivedInformational(Self.head(100))
        #expect(machine.inFlight?.readsCountAsActivity == false)
        _ = machine.receivedInformational(Self.head(103))
        #expect(machine.inFlight?.readsCountAsActivity == false)
        _ = machine.receivedHead(Self.head(200))
        #expect(machine.inFlight?.readsCountAsActivity == true)
    }

    // Issue 18, item 4: a piece that inflates a thousandfold comes out one bounded slice at a time.
    @Test func aBodyThatInflatesComesOutInSlices() throws {
        let bomb = try GzipBomb.bytes(decodedMebibytes: 1)
        var machine = Machine()
        _ = machine.tcpConnected(secure: false)
        _ = machine.startRequest(StubRequests.prepared(1, decodes: true), readingPaused: false)
        _ = machine.receivedHead(Self.head(200, [("Content-Encoding", "gzip")]))
        #expect(machine.receivedBody(bomb).summary == "deliver([encodedBodyBytes(\(bomb.count)), body(65536)], R1)")
        var slices = 1
        while machine.inFlight?.hasDecodedOutputPending == true {
            let action = machine.nextDecodedSlice().summary
            #expect(action == "deliver([body(65536)], R1)" || action == "none")
            if action != "none" { slices += 1 }
        }
        #expect(slices == 16)
        #expect(machine.receivedEnd(trailers: HTTPHeaders(), keepAlive: true, hasUnreadBytes: false).summary
                    == "complete(R1, reusable: false, stop: false)")
    }
}
