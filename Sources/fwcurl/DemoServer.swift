import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// DemoServer: `fwcurl demo`'s own loopback HTTP/1.1 server (fwcurl links no test code). Minimal on
// purpose: it serves the demo's routes and nothing more, and says so (see DemoServer+HTTP.swift for what
// it parses and refuses).
//
// One serial queue owns everything, so nothing needs a lock: a read source on the listening socket
// accepts, a read source per connection reads, parses and answers (keep-alive, one request at a time),
// a reply with a delay is sent later from the same queue. Sockets are non-blocking; the replies are a
// few hundred bytes, so a write that would block waits for the socket with poll (bounded), which only a
// client that stops reading could cause. The sources' handlers keep the server alive until `stop()`
// cancels them; their cancel handlers close the descriptors.

// MARK: - DemoServer

/// A keep-alive HTTP/1.1 server on 127.0.0.1 (kernel-chosen port) that answers each request with
/// `route`'s reply, until `stop()`.
final class DemoServer: @unchecked Sendable { // every `var`: `queue` only
    /// The answer to one request; called on the server's queue.
    typealias Route = @Sendable (Request) -> Reply

    /// The port on 127.0.0.1.
    let port: Int
    private let queue = DispatchQueue(label: "fwcurl.demo-server")
    private let route: Route
    private let listener: DispatchSourceRead
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var accepted = 0
    private var peak = 0
    private var stopped = false

    /// Listens on 127.0.0.1 and starts accepting.
    init(route: @escaping Route) throws(DemoServerError) {
        let descriptor = try Self.listenOnLoopback()
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let error = DemoServerError("getsockname", errno)
            close(descriptor)
            throw error
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.route = route
        listener = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        listener.setEventHandler { [self] in acceptAll(descriptor) }
        listener.setCancelHandler { close(descriptor) }
        listener.resume()
    }

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Connections accepted so far.
    var connectionCount: Int { queue.sync { accepted } }

    /// The largest number of connections open at the same time.
    var peakConcurrentConnections: Int { queue.sync { peak } }

    /// Stops accepting and closes every connection. Idempotent.
    func stop() {
        queue.sync {
            guard !stopped else { return }
            stopped = true
            listener.cancel()
            connections.values.forEach { $0.source.cancel() }
            connections = [:]
        }
    }

    // MARK: Accepting (on `queue`)

    private static func listenOnLoopback() throws(DemoServerError) -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        let descriptor = socket(AF_INET, type, 0)
        guard descriptor >= 0 else { throw DemoServerError("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let error = DemoServerError(bound == 0 ? "listen" : "bind", errno)
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Accepts every pending connection.
    private func acceptAll(_ listening: Int32) {
        while !stopped {
            let descriptor = accept(listening, nil, nil)
            guard descriptor >= 0 else { return }
            guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0,
                fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0
            else {
                close(descriptor)
                continue
            }
            let connection = Connection(descriptor: descriptor, queue: queue)
            connection.source.setEventHandler { [self] in readable(connection) }
            connection.source.setCancelHandler { close(descriptor) }
            connections[ObjectIdentifier(connection)] = connection
            accepted += 1
            peak = max(peak, connections.count)
            connection.source.resume()
        }
    }

    // MARK: Serving (on `queue`)

    /// Reads what arrived, then answers the request it completes, if any.
    private func readable(_ connection: Connection) {
        guard connection.readAvailable() else { return finish(connection) }
        serveNext(connection)
    }

    /// Answers the next complete request of `connection`, unless a reply is still on its way.
    private func serveNext(_ connection: Connection) {
        guard !connection.replying, connections[ObjectIdentifier(connection)] != nil else { return }
        let reply: Reply
        let closes: Bool
        switch Request.parse(connection.input) {
        case .incomplete:
            return
        case .malformed:
            (reply, closes) = (.badRequest, true)
        case .complete(let request, let consumed):
            connection.input.removeFirst(consumed)
            reply = route(request)
            closes = reply.closeAfter || request.wantsClose
        }
        connection.replying = true
        guard reply.delay > 0 else { return send(reply, closing: closes, on: connection) }
        queue.asyncAfter(deadline: .now() + reply.delay) { [self] in send(reply, closing: closes, on: connection) }
    }

    private func send(_ reply: Reply, closing: Bool, on connection: Connection) {
        guard connections[ObjectIdentifier(connection)] != nil else { return }
        connection.replying = false
        guard connection.write(reply.bytes), !closing else { return finish(connection) }
        serveNext(connection)
    }

    private func finish(_ connection: Connection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        connection.source.cancel()
    }
}

// MARK: - DemoServerError

/// A system call that failed while starting the server.
struct DemoServerError: Error, CustomStringConvertible {
    let call: String
    let code: Int32

    init(_ call: String, _ code: Int32) {
        self.call = call
        self.code = code
    }

    var description: String { "\(call): \(String(cString: strerror(code)))" }
}
