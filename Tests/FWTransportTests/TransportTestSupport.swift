import FWLoop
import FWTransport
import FWWire
import TestSupport

// MARK: - Helpers for transport tests

/// Records a request's events and lets a test wait for the terminal one.
final class RecordingDelegate: TransportTaskDelegate {
    private let events = LockedBox<[TransportEvent]>([])

    func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
        events.withLock { $0.append(event) }
    }

    var recorded: [TransportEvent] { events.withLock { $0 } }

    /// Waits (bounded) for `end` or `failed`; returns the response head, body and error.
    func outcome(timeout: Double = 5) -> Outcome {
        _ = waitUntil(timeout: timeout) { recorded.contains { $0.isTerminal } }
        var outcome = Outcome()
        for event in recorded {
            switch event {
            case .connected(let info): outcome.connection = info
            case .head(let head): outcome.head = head
            case .body(let bytes): outcome.body += bytes
            case .end(let trailers): outcome.trailers = trailers
                outcome.terminalCount += 1
            case .failed(let error): outcome.error = error
                outcome.terminalCount += 1
            case .upgraded(let channel): outcome.channel = channel
                outcome.terminalCount += 1
            case .headSent, .informational, .wireWrite, .wireRead, .metrics, .encodedBodyBytes, .bodyBytesSent,
                 .chunk, .retrying, .tlsMessage: break
            }
        }
        return outcome
    }

    struct Outcome {
        var connection: ConnectionInfo?
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        var trailers: HTTPHeaders?
        var error: TransportError?
        var channel: WebSocketChannel?
        var terminalCount = 0
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }
}

/// A transport on its own one-loop group, shut down by `close()`.
struct TransportFixture {
    let group: EventLoopGroup
    let transport: HTTPTransport

    init(_ configuration: HTTPTransport.Configuration = HTTPTransport.Configuration()) throws {
        try self.init(configuration, group: EventLoopGroup(loopCount: 1, namePrefix: "fw-test"))
    }

    /// A transport on `group` (a `ManualEventLoopGroup`'s, for tests that move time by hand).
    init(_ configuration: HTTPTransport.Configuration = HTTPTransport.Configuration(), group: EventLoopGroup) {
        self.group = group
        transport = HTTPTransport(configuration: configuration, group: group)
    }

    /// Sends a request and waits for its outcome.
    func run(_ request: TransportRequest, timeout: Double = 5) -> RecordingDelegate.Outcome {
        let delegate = RecordingDelegate()
        transport.execute(request, delegate: delegate)
        return delegate.outcome(timeout: timeout)
    }

    func close() {
        transport.shutdown()
        group.shutdown()
    }
}

func getRequest(port: Int, path: String = "/", method: String = "GET", headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8]? = nil, idleTimeout: Duration = .seconds(5)) -> TransportRequest {
    TransportRequest(key: ConnectionKey(scheme: "http", host: "127.0.0.1", port: port),
                     head: HTTPRequestHead(method: method, target: path, headers: headers),
                     body: body.map(TransportRequestBody.bytes), idleTimeout: idleTimeout)
}

