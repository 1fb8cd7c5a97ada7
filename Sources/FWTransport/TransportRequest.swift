import FWTLS
import FWWire

// MARK: - TransportRequest

/// One HTTP request as the transport carries it: where to, the head, and a body in memory or streamed.
public struct TransportRequest: Sendable {
    /// Which pool serves it.
    public var key: ConnectionKey
    /// Method, target and fields. `Host` is added from `key` when absent; the body's framing is set
    /// from `body` (`Content-Length`, or `Transfer-Encoding: chunked` for a stream of unknown length).
    public var head: HTTPRequestHead
    /// The body when there is one: bytes (kept so a retry can send them again) or a stream (a retry
    /// asks it for a new producer).
    public var body: TransportRequestBody?
    /// Longest time without a byte moving before the request fails with `timedOut`; also bounds the
    /// connection attempt made for it.
    public var idleTimeout: Duration
    /// Higher runs first when requests wait for a connection (URLSessionTask.priority × 1000).
    public var priority: Int
    /// Undo a gzip or deflate `Content-Encoding` of the response body (`.body` carries decoded bytes,
    /// `.encodedBodyBytes` the count as received).
    public var decodesContent: Bool
    /// Report the exact bytes exchanged: `.headSent`, and every `.wireWrite` / `.wireRead` (for `-v`
    /// and `--trace-ascii` style tracing; it costs a copy of every byte).
    public var tracesBytes: Bool
    /// Report `.connected` when the request gets its connection. A receiver that does not read it (a session
    /// without a trace delegate) turns it off: each event it is sent costs it a hand-off.
    public var reportsConnection: Bool
    /// A raw request: these bytes are written exactly as they are, instead of the encoded head and body (no
    /// field added or changed, no line ending normalised), and the connection closes after the response.
    /// `head.method` must still name the method, for the response's framing (a HEAD response has no body);
    /// `body` must be nil, and the key should have a `partition` of its own so the bytes go on a new
    /// connection. nil for an ordinary request.
    public var rawBytes: [UInt8]?
    /// Turn the connection into a WebSocket: the handshake's fields are added, a 101 is the final response
    /// and, once checked, the connection leaves the pool as `.upgraded`'s channel. nil for plain HTTP.
    public var webSocket: WebSocketUpgrade? {
        get { webSocketBox?.upgrade }
        set { webSocketBox = newValue.map(WebSocketUpgradeBox.init) }
    }
    /// `webSocket`, boxed: nearly every request has none, and held inline its room (some 80 bytes) was moved
    /// and copied with each request, a quarter of its size.
    private var webSocketBox: WebSocketUpgradeBox?
    /// Ask for HTTP/1.1 pipelining: when the request is a GET or HEAD without a body (and no
    /// `Connection: close`, no WebSocket handshake), it may be written on a connection behind other such
    /// requests, up to `HTTPTransport.Configuration.pipeliningDepth` in flight; its response comes in order,
    /// and it is replayed on a new connection when the server closes before answering it. False by default.
    public var pipelining = false
    /// Report each size line of a chunked response body as `.chunk` (for an event trace that names the chunks);
    /// each chunk's data then comes as `.body` events of its own, where chunks that arrived together otherwise
    /// come as one. False by default.
    public var reportsChunks = false
    /// Report `.metrics` at the end of each attempt. A receiver that does not read them (a session task whose
    /// metrics no delegate hears) turns it off: filling the metrics and handing them over costs every request.
    /// True by default.
    public var reportsMetrics = true
}

/// A request's WebSocket upgrade, behind one reference (`TransportRequest.webSocket`).
private final class WebSocketUpgradeBox: Sendable {
    let upgrade: WebSocketUpgrade

    init(_ upgrade: WebSocketUpgrade) {
        self.upgrade = upgrade
    }
}

extension TransportRequest {
    /// Creates a request.
    ///
    /// It assigns a value the memberwise initialiser made (hence the extension, which keeps that initialiser):
    /// an initialiser that assigns the properties one by one builds the request on the stack and copies it
    /// out, retaining and releasing every reference it holds, for each request made.
    public init(key: ConnectionKey, head: HTTPRequestHead, body: TransportRequestBody? = nil,
                idleTimeout: Duration = .seconds(60), priority: Int = 500, decodesContent: Bool = false,
                tracesBytes: Bool = false, reportsConnection: Bool = true, rawBytes: [UInt8]? = nil,
                webSocket: WebSocketUpgrade? = nil, pipelining: Bool = false) {
        self = TransportRequest(key: key, head: head, body: body, idleTimeout: idleTimeout, priority: priority,
                                decodesContent: decodesContent, tracesBytes: tracesBytes,
                                reportsConnection: reportsConnection, rawBytes: rawBytes,
                                webSocketBox: webSocket.map(WebSocketUpgradeBox.init),
                                pipelining: pipelining, reportsChunks: false, reportsMetrics: true)
    }

    /// Whether the request may be sent again after a failure that came before any response byte although
    /// the server may have seen it: its method is idempotent (RFC 9110 §9.2.2), or it carries an
    /// `Idempotency-Key` (or `X-Idempotency-Key`) field, which promises the server recognises a repeat (as
    /// Go's transport treats it).
    var isReplayable: Bool {
        switch head.method {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": return true
        default:
            return head.headers.contains(name: "Idempotency-Key") || head.headers.contains(name: "X-Idempotency-Key")
        }
    }
}

// MARK: - TransportEvent

/// What happens to a request, in order: `connected` (when `reportsConnection`), maybe `headSent`,
/// `informational`s, `head`, `body`s, then exactly one of `end`, `failed` or (for a WebSocket handshake)
/// `upgraded`. With tracing, `wireWrite` and `wireRead` report the raw bytes in between, in the order they
/// moved, `tlsMessage` the TLS messages after the handshake, and `chunk` each size line of a chunked body.
/// `bodyBytesSent` reports upload progress at any time between `connected` and the end.
///
/// The cases whose payload is larger than a few words (`connected`, `informational`, `head`, `metrics`, `retrying`,
/// `failed`) are boxed (`indirect`): an event is copied several times on its way to the task's drain, and
/// without the boxes every event, however small, would be as large as the largest payload each time (a
/// response head or the metrics are hundreds of bytes; boxing them cut a small request by 6.7 % of its
/// instructions).
public enum TransportEvent: Sendable {
    /// The request got a connection (and, for tracing, the connection's addresses); only when the request
    /// `reportsConnection`.
    indirect case connected(ConnectionInfo)
    /// The exact head bytes about to be written (only when `tracesBytes`).
    case headSent([UInt8])
    /// Bytes that left the socket for this request (only when `tracesBytes`).
    case wireWrite([UInt8])
    /// How many request-body bytes the socket accepted so far on this attempt (payload only, without
    /// chunk framing); at most once per flush of the socket and only when the count moved, so the totals
    /// grow strictly and end at the body's length when it was all sent. A retry on a new connection
    /// starts again from its first report.
    case bodyBytesSent(Int64)
    /// Bytes read from the socket while this request was active (only when `tracesBytes`).
    case wireRead([UInt8])
    /// A TLS handshake-protocol message sent or received after the handshake (a TLS 1.3 server's
    /// NewSessionTicket, a KeyUpdate), before the `wireRead` of the plaintext that followed it; only when
    /// `tracesBytes` and the connection was made for a traced request (which records its TLS messages; the
    /// handshake's own are in `ConnectionInfo.trace`'s establishment).
    case tlsMessage(TLSHandshakeMessage)
    /// The size line of one chunk of a chunked response body (`size` 0 for the last-chunk), with the text of
    /// its extensions (empty if none), before that chunk's `.body` (only when `tracesBytes`).
    case chunk(size: Int64, extensions: String)
    /// An interim 1xx response.
    indirect case informational(HTTPResponseHead)
    /// The final response head.
    indirect case head(HTTPResponseHead)
    /// Response body bytes (decoded, when the request decodes content).
    case body([UInt8])
    /// How many bytes of a content-encoded body arrived (before decoding); the decoded bytes follow as
    /// `.body`. Only for responses the request decodes.
    case encodedBodyBytes(Int)
    /// Timings and byte counts of the attempt on its connection; comes right before `end` or `failed`
    /// (a retried attempt's metrics are followed by the retry's own).
    indirect case metrics(TransportMetrics)
    /// The attempt failed with this error, and the transport retries the request on a new connection (only when
    /// `tracesBytes`); comes right after the failed attempt's `metrics`. The retry may still not happen (the
    /// transport shut down meanwhile): then `failed` follows instead of a second `connected`.
    indirect case retrying(TransportError)
    /// The response is complete.
    case end(trailers: HTTPHeaders)
    /// The request failed; nothing follows.
    indirect case failed(TransportError)
    /// The WebSocket handshake succeeded (after `head`, the 101, and `metrics`): the connection left the
    /// pool and is now this channel, which the receiver must `start` or `abort`. Nothing follows.
    case upgraded(WebSocketChannel)
}

extension TransportEvent {
    /// True for `end` and `failed`: nothing follows them.
    public var isTerminal: Bool {
        switch self {
        case .end, .failed, .upgraded: return true
        default: return false
        }
    }
}

/// Facts about the connection a request runs on.
public struct ConnectionInfo: Sendable {
    /// The connection's id inside its transport.
    public var id: ConnectionID
    /// Whether the connection carried a request before this one.
    public var isReused: Bool
    /// The local address, when known.
    public var localAddress: String?
    /// The peer address, when known.
    public var remoteAddress: String?
    /// For a traced request (`tracesBytes`): how the pool served it and how a new connection was made.
    public var trace: ConnectionTrace?
}

/// Receives a request's events on the connection's event-loop thread. Implementations hop to their
/// own queue; they must return quickly and never block.
public protocol TransportTaskDelegate: AnyObject, Sendable {
    /// One event of the request `id`.
    func transportTask(_ id: RequestID, didReceive event: TransportEvent)
    /// Several events of the request `id`, in order: what one loop iteration produced for it (a small
    /// response's head, body, metrics and end usually arrive together). The delegate takes the events out
    /// (`takeEach`) and leaves the list empty: its storage goes back to the connection for the next
    /// iteration's events. By default, one call each.
    func transportTask(_ id: RequestID, didReceive events: inout [TransportEvent])
}

extension TransportTaskDelegate {
    /// Hands the events over one by one.
    public func transportTask(_ id: RequestID, didReceive events: inout [TransportEvent]) {
        events.takeEach { transportTask(id, didReceive: $0) }
    }
}

extension Array where Element == TransportEvent {
    /// Hands each event to `body`, in order, moved out of the list, and leaves the list empty with its storage
    /// kept. Iterated plainly, each event would be copied (retaining what it holds) and released again when
    /// the list is emptied.
    @inlinable
    public mutating func takeEach(_ body: (consuming TransportEvent) -> Void) {
        for index in indices {
            var event = TransportEvent.encodedBodyBytes(0) // trivial: left in the event's place
            swap(&event, &self[index])
            body(event)
        }
        removeAll(keepingCapacity: true)
    }
}
