@testable import FWTransport
import FWWire
import Testing

// The connection machine's in-flight queue (pipelining) as a table: inputs in, actions out, no sockets. Each
// script starts on an established plain connection; requests R1, R2, ... are GETs that ask for pipelining
// unless a row says otherwise.
@Suite struct HTTP1ConnectionPipeliningTests {
    typealias Machine = HTTP1ConnectionStateMachine

    enum Input {
        case start(PreparedRequest)
        /// The write half of the request in flight is done (its head left the socket).
        case written
        case head(Int, [(String, String)] = [], version: HTTPVersion = .http1_1)
        case end(keepAlive: Bool = true, unread: Bool = false)
        case lost
        case fail
        case cancel(UInt64)
        case detach
    }

    static func pipelined(_ number: UInt64) -> PreparedRequest { StubRequests.prepared(number, pipelining: true) }

    static func run(_ inputs: [Input], depth: Int = 4, maxRequests: Int? = nil) -> (Machine, [String]) {
        var machine = Machine(maxRequests: maxRequests, pipeliningDepth: depth)
        _ = machine.tcpConnected(secure: false)
        var actions: [String] = []
        for input in inputs {
            let action: Machine.Action
            switch input {
            case .start(let request): action = machine.startRequest(request, readingPaused: false)
            case .written:
                _ = machine.nextBodyPiece()
                machine.withRequest { request in
                    request.wroteBytes()
                    if request.bodyIsComplete { request.writeFinished() }
                }
                continue
            case .head(let status, let fields, let version):
                var headers = HTTPHeaders()
                for (name, value) in fields { headers.add(name: name, value: value) }
                action = machine.receivedHead(HTTPResponseHead(version: version, status: status, reason: "",
                                                               headers: headers))
            case .end(let keepAlive, let unread):
                action = machine.receivedEnd(trailers: HTTPHeaders(), keepAlive: keepAlive, hasUnreadBytes: unread)
            case .lost: action = machine.connectionLost(.connectionLost("closed"))
            case .fail: action = machine.failActiveRequest(.badResponse(.invalidStatusLine))
            case .cancel(let number): action = machine.cancelFollower(RequestID(number), error: .cancelled)
            case .detach: action = machine.detachStream { _ in }
            }
            actions.append(action.summary)
        }
        return (machine, actions)
    }

    static let ok: [Input] = [.head(200), .end()]

    @Test func requestsGoOutBackToBackAndResponsesCompleteTheHeadOfTheQueue() {
        let (machine, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .start(Self.pipelined(3)), .written,
        ] + Self.ok + Self.ok + [.written] + Self.ok)
        #expect(actions == [
            "startWriting(R1)", "writeFollower(R2)", "writeFollower(R3)",
            "deliverHead(200, R1, stop: false)", "complete(R1, reusable: true, stop: false)",
            "deliverHead(200, R2, stop: false)", "complete(R2, reusable: true, stop: false)",
            "deliverHead(200, R3, stop: false)", "complete(R3, reusable: true, stop: false)",
        ])
        #expect(machine.isIdle)
        #expect(machine.carriedRequests == 3)
    }

    @Test func theQueueIsTheHeadOfTheQueueInFlight() {
        let (machine, _) = Self.run([.start(Self.pipelined(1)), .start(Self.pipelined(2)), .written] + Self.ok)
        #expect(machine.activeRequest?.id == RequestID(2))
        #expect(machine.followers.isEmpty)
        #expect(machine.headWasPipelined)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let why: String
        let head: PreparedRequest
        let follower: PreparedRequest
        var depth = 4
        var maxRequests: Int?
        var testDescription: String { why }
    }

    static let refusals = [
        Refusal(why: "a POST never joins", head: pipelined(1),
                follower: StubRequests.prepared(2, method: "POST", body: [1], pipelining: true)),
        Refusal(why: "nothing joins behind a request with a body",
                head: StubRequests.prepared(1, method: "POST", body: [1], pipelining: true), follower: pipelined(2)),
        Refusal(why: "nothing joins behind a request that did not ask", head: StubRequests.prepared(1),
                follower: pipelined(2)),
        Refusal(why: "a request that did not ask does not join", head: pipelined(1),
                follower: StubRequests.prepared(2)),
        Refusal(why: "a request that says Connection: close does not join", head: pipelined(1),
                follower: StubRequests.prepared(2, closes: true, pipelining: true)),
        Refusal(why: "a WebSocket handshake does not join", head: pipelined(1),
                follower: StubRequests.prepared(2, webSocket: true, pipelining: true)),
        Refusal(why: "depth 1 is no pipelining", head: pipelined(1), follower: pipelined(2), depth: 1),
        Refusal(why: "the connection's last request is in flight", head: pipelined(1), follower: pipelined(2),
                maxRequests: 1),
    ]

    @Test(arguments: refusals)
    func requestsThatMayNotFollowBounceUnwritten(_ row: Refusal) {
        let (machine, actions) = Self.run([.start(row.head), .start(row.follower)], depth: row.depth,
                                          maxRequests: row.maxRequests)
        #expect(actions == ["startWriting(R1)", "bounceFollower(R2)"])
        #expect(machine.followers.isEmpty)
    }

    @Test func theDepthBoundsTheRequestsInFlight() {
        let (_, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .start(Self.pipelined(3)), .written,
        ] + Self.ok + [.start(Self.pipelined(4))], depth: 2)
        #expect(actions == ["startWriting(R1)", "writeFollower(R2)", "bounceFollower(R3)",
                            "deliverHead(200, R1, stop: false)", "complete(R1, reusable: true, stop: false)",
                            "writeFollower(R4)"])
    }

    @Test func nothingJoinsBehindAResponseThatClosesTheConnection() {
        let (machine, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .written, .head(200, [("Connection", "close")]),
            .start(Self.pipelined(3)), .end(keepAlive: false),
        ])
        #expect(Array(actions.dropFirst(3)) == [
            "bounceFollower(R3)", "replay([R2], then: complete(R1, reusable: false, stop: false))",
        ])
        #expect(machine.isClosed)
    }

    @Test func nothingJoinsBehindAnHTTP10ResponseWithoutKeepAlive() {
        let (_, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .written, .head(200, version: .http1_0),
            .start(Self.pipelined(3)), .end(keepAlive: false),
        ])
        #expect(Array(actions.dropFirst(3)) == [
            "bounceFollower(R3)", "replay([R2], then: complete(R1, reusable: false, stop: false))",
        ])
    }

    @Test func aServerThatClosesAfterTheFirstResponseHasTheOthersReplayed() {
        let (machine, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .start(Self.pipelined(3)), .written,
        ] + Self.ok + [.lost])
        #expect(actions.last == "replay([R2, R3], then: closeIdle)")
        #expect(machine.isClosed)
        #expect(machine.followers.isEmpty)
    }

    @Test func aCloseBeforeTheFirstResponseFailsItByTheUsualRulesAndReplaysTheRest() {
        let (_, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .written, .head(200), .lost,
        ])
        #expect(actions.last == "replay([R2], then: fail(R1, connectionLost, retry: false, stop: false))")
    }

    @Test func aFramingErrorPoisonsEverythingBehindIt() {
        let (_, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .start(Self.pipelined(3)), .written, .fail,
        ])
        #expect(actions.last == "replay([R2, R3], then: fail(R1, badResponse, retry: false, stop: false))")
    }

    @Test func bytesOfTheNextResponseAfterOneDoNotForbidReuse() {
        let (_, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .written, .head(200), .end(unread: true),
        ])
        #expect(actions.last == "complete(R1, reusable: true, stop: false)")
    }

    @Test func aCancelledFollowerLeavesAndTheConnectionEndsAfterTheHead() {
        let (machine, actions) = Self.run([
            .start(Self.pipelined(1)), .start(Self.pipelined(2)), .start(Self.pipelined(3)), .cancel(2),
            .start(Self.pipelined(4)), .written,
        ] + Self.ok)
        #expect(Array(actions.dropFirst(3)) == [
            "failFollower(R2, cancelled)", "bounceFollower(R4)", "deliverHead(200, R1, stop: false)",
            "replay([R3], then: complete(R1, reusable: false, stop: false))",
        ])
        #expect(machine.isClosed)
    }

    @Test func aPipelinedResponseCannotBecomeAStream() {
        let (_, actions) = Self.run([.start(Self.pipelined(1)), .start(Self.pipelined(2)), .written, .head(200),
                                     .detach])
        #expect(actions.last == "replay([R2], then: fail(R1, connectionLost, retry: false, stop: false))")
    }

    @Test func withoutFollowersNothingChanges() {
        let (_, actions) = Self.run([.start(Self.pipelined(1)), .written, .head(200), .lost])
        #expect(actions.last == "fail(R1, connectionLost, retry: false, stop: false)")
    }
}
