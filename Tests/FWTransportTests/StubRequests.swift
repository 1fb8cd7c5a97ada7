@testable import FWTransport
import FWWire

// MARK: - Requests for the machines' table tests

/// Prepared requests and a producer for tests that drive the connection and request machines without sockets.
enum StubRequests {
    /// Receives nothing: machine tests never run a delegate.
    final class Sink: TransportTaskDelegate {
        func transportTask(_ id: RequestID, didReceive event: TransportEvent) {}
    }

    /// A producer that never answers on its own (the test answers for it).
    final class IdleProducer: TransportBodyProducer {
        func produce(maxLength: Int, into sink: TransportBodySink) {}
        func stop() {}
    }

    static let key = ConnectionKey(scheme: "http", host: "example.test", port: 80)

    /// Request `number` (its id is R`number`): a GET unless told otherwise, with an in-memory `body` or a
    /// streamed body of `stream` bytes, and header `fields`.
    static func prepared(_ number: UInt64, method: String = "GET", body: [UInt8]? = nil, stream: Int64? = nil,
                         closes: Bool = false, decodes: Bool = false, webSocket: Bool = false,
                         fields: [(String, String)] = [], pipelining: Bool = false) -> PreparedRequest {
        var headers = HTTPHeaders()
        if closes { headers.add(name: "Connection", value: "close") }
        for (name, value) in fields { headers.add(name: name, value: value) }
        var request = TransportRequest(key: key, head: HTTPRequestHead(method: method, target: "/", headers: headers),
                                       decodesContent: decodes)
        if let body { request.body = .bytes(body) }
        if webSocket { request.webSocket = try? WebSocketUpgrade() }
        request.pipelining = pipelining
        if let stream { request.body = .stream(TransportBodyStream(length: stream) { IdleProducer() }) }
        do {
            return try PreparedRequest(id: RequestID(number), request: request, delegate: Sink())
        } catch {
            preconditionFailure("a stub request must encode: \(error)")
        }
    }
}

// MARK: - Actions as text

extension HTTP1ConnectionStateMachine.Action {
    /// The action as a short line that tables compare.
    var summary: String {
        switch self {
        case .none: return "none"
        case .writeToProxy(let bytes): return "writeToProxy(\(bytes.count))"
        case .startTLS: return "startTLS"
        case .askServerTrust: return "askServerTrust"
        case .askClientIdentity: return "askClientIdentity"
        case .provideClientIdentity(let identity): return "provideClientIdentity(\(identity == nil ? "none" : "some"))"
        case .reportEstablished: return "reportEstablished"
        case .reportConnectFailed(let error, let discard): return "connectFailed(\(error.kind), discard: \(discard))"
        case .startWriting(let request): return "startWriting(\(request.id))"
        case .bounceRequest(let request): return "bounce(\(request.id))"
        case .deliver(let events, let request):
            return "deliver([\(events.map(\.summary).joined(separator: ", "))], \(request.id))"
        case .deliverBody(let bytes, let request): return "deliverBody(\(bytes.count), \(request.id))"
        case .deliverContinue(let event, let request): return "deliverContinue(\(event.summary), \(request.id))"
        case .deliverHead(let head, let request, let producer):
            return "deliverHead(\(head.status), \(request.id), stop: \(producer != nil))"
        case .writeBody(let bytes, _): return "write(\(bytes.count))"
        case .produceBody(_, let maxLength, _): return "produce(\(maxLength))"
        case .finishBody(let last, let producer): return "finishBody(\(last.count), stop: \(producer != nil))"
        case .completeRequest(let request, _, let reusable, let producer):
            return "complete(\(request.id), reusable: \(reusable), stop: \(producer != nil))"
        case .failRequest(let request, let error, let retry, let producer):
            return "fail(\(request.id), \(error.kind), retry: \(retry), stop: \(producer != nil))"
        case .handOver(let request, .webSocket(let head), let producer):
            return "handOver(\(request.id), \(head.status), stop: \(producer != nil))"
        case .handOver(let request, .stream, let producer):
            return "handOver(\(request.id), stream, stop: \(producer != nil))"
        case .closeIdle: return "closeIdle"
        case .writeFollower(let request): return "writeFollower(\(request.id))"
        case .bounceFollower(let request): return "bounceFollower(\(request.id))"
        case .failFollower(let request, let error): return "failFollower(\(request.id), \(error.kind))"
        case .replaying(let requests, let action):
            return "replay([\(requests.map { "\($0.id)" }.joined(separator: ", "))], then: \(action.summary))"
        }
    }
}

extension TransportEvent {
    var summary: String {
        switch self {
        case .informational(let head): return "informational(\(head.status))"
        case .head(let head): return "head(\(head.status))"
        case .body(let bytes): return "body(\(bytes.count))"
        case .encodedBodyBytes(let count): return "encodedBodyBytes(\(count))"
        default: return "\(self)"
        }
    }
}

extension TransportError {
    /// The error's kind, from its public predicates.
    var kind: String {
        let kinds: [(Bool, String)] = [
            (isCancelled, "cancelled"), (isTimedOut, "timedOut"), (isConnectionLost, "connectionLost"),
            (isBadResponse, "badResponse"), (isCannotDecodeContent, "cannotDecodeContent"),
            (isSecureConnectionFailed, "secureConnectionFailed"), (isServerTrustRejected, "serverTrustRejected"),
            (isBodyStreamFailed, "bodyStreamFailed"), (isShutDown, "shutDown"),
            (isProxyFailure, "proxyFailed"), (isCannotConnectToHost, "cannotConnectToHost"),
            (isCannotFindHost, "cannotFindHost"), (isWebSocketHandshakeFailure, "webSocketHandshakeFailed"),
            (isWebSocketProtocolError, "webSocketProtocol"), (isWebSocketMessageTooBig, "webSocketMessageTooBig"),
        ]
        return kinds.first { $0.0 }?.1 ?? description
    }
}
