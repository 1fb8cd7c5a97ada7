#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - SOCKS5Handshake
//
// The client side of a SOCKS5 handshake (RFC 1928, with RFC 1929 username/password) as a value type: no
// I/O. The owner writes what `start()` and `receive` return and feeds every byte the proxy sends.
//
//   start ──▶ greeting [05 n methods…] ──[05 00]──────────────────────────▶ request [05 01 00 atyp addr port]
//                  │ [05 02] (credentials given)                                 │ [05 00 00 atyp bnd port]
//                  ▼                                                             ▼
//             authentication [01 ulen user plen password] ──[01 00]──▶ request   established(leftover)
//
// Methods offered: "no authentication", plus "username/password" when credentials are given. The
// target is the origin's name (the proxy resolves it: socks5h) or a numeric address (resolved here:
// socks5). Every answer is read whole before the next message goes out; bytes beyond an answer before
// the next message was sent break the protocol. After the final reply, the bytes that follow belong to
// the origin (`leftover`). Failures are `ProxyError` values: a version or address type we do not know,
// a method we did not offer, "no acceptable method" (0xFF), rejected credentials, a reply other than
// "succeeded", a close before the reply was complete.

/// A SOCKS5 client handshake.
struct SOCKS5Handshake: Sendable {
    /// Where the proxy should connect.
    enum Target: Equatable, Sendable {
        case ipv4([UInt8])
        case ipv6([UInt8])
        case name(String)

        /// A numeric IPv4 or IPv6 host becomes an address, anything else a name.
        init(host: String) {
            var ipv4 = in_addr()
            if inet_pton(AF_INET, host, &ipv4) == 1 {
                self = .ipv4(withUnsafeBytes(of: &ipv4) { Array($0) })
                return
            }
            var ipv6 = in6_addr()
            if inet_pton(AF_INET6, host, &ipv6) == 1 {
                self = .ipv6(withUnsafeBytes(of: &ipv6) { Array($0) })
                return
            }
            self = .name(host)
        }
    }

    private enum State: Equatable {
        case idle
        case awaitingMethod
        case awaitingAuthentication
        case awaitingReply
        case done
    }

    private let target: Target
    private let port: Int
    private let credentials: ProxyCredentials?
    private var state = State.idle
    private var buffer: [UInt8] = []

    /// A handshake asking the proxy to connect to `target`:`port`, presenting `credentials` if it asks.
    init(target: Target, port: Int, credentials: ProxyCredentials?) {
        self.target = target
        self.port = port
        self.credentials = credentials
    }

    /// The greeting: version 5 and the methods offered.
    mutating func start() -> ProxyTunnelAction {
        guard state == .idle else { preconditionFailure("start() in state \(state)") }
        state = .awaitingMethod
        return .write(credentials == nil ? [5, 1, 0] : [5, 2, 0, 2])
    }

    /// Bytes from the proxy.
    mutating func receive(_ bytes: [UInt8]) -> ProxyTunnelAction {
        guard state != .done else { return .failed(.malformedReply("the SOCKS5 handshake is over")) }
        buffer += bytes
        switch state {
        case .awaitingMethod: return methodSelected()
        case .awaitingAuthentication: return authenticated()
        case .awaitingReply: return replied()
        case .idle, .done: preconditionFailure("receive in state \(state)")
        }
    }

    /// The proxy closed the connection.
    mutating func receiveEndOfStream() -> ProxyTunnelAction {
        guard state != .done else { return .failed(.malformedReply("the SOCKS5 handshake is over")) }
        return fail(.refused("the SOCKS5 proxy closed the connection during the handshake"))
    }

    // MARK: Steps

    private mutating func methodSelected() -> ProxyTunnelAction {
        if let error = expectVersion(5, "method selection") { return fail(error) }
        guard buffer.count >= 2 else { return .waitForMore }
        let method = buffer[1]
        switch method {
        case 0xFF where credentials == nil:
            return fail(.authenticationRequired("the SOCKS5 proxy requires credentials"))
        case 0xFF:
            return fail(.refused("the SOCKS5 proxy accepts none of the offered authentication methods"))
        case 0:
            break
        case 2 where credentials != nil:
            break
        default:
            return fail(.malformedReply("the SOCKS5 proxy chose method \(method), which was not offered"))
        }
        guard buffer.count == 2 else { return fail(Self.unasked) }
        buffer = []
        return method == 0 ? sendRequest() : sendCredentials()
    }

    private mutating func sendCredentials() -> ProxyTunnelAction {
        guard let credentials else { preconditionFailure("no credentials to send") }
        let user = Array(credentials.user.utf8)
        let password = Array(credentials.password.utf8)
        // RFC 1929: each field is 1...255 bytes.
        guard (1...255).contains(user.count), (1...255).contains(password.count) else {
            return fail(.authenticationRequired("SOCKS5 user names and passwords are 1 to 255 bytes"))
        }
        state = .awaitingAuthentication
        return .write([1, UInt8(user.count)] + user + [UInt8(password.count)] + password)
    }

    private mutating func authenticated() -> ProxyTunnelAction {
        if let error = expectVersion(1, "authentication status") { return fail(error) }
        guard buffer.count >= 2 else { return .waitForMore }
        guard buffer[1] == 0 else {
            return fail(.authenticationRequired("the SOCKS5 proxy rejected the user name and password"))
        }
        guard buffer.count == 2 else { return fail(Self.unasked) }
        buffer = []
        return sendRequest()
    }

    private mutating func sendRequest() -> ProxyTunnelAction {
        var request: [UInt8] = [5, 1, 0]
        switch target {
        case .ipv4(let address): request += [1] + address
        case .ipv6(let address): request += [4] + address
        case .name(let name):
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                return fail(.refused("a SOCKS5 host name is 1 to 255 bytes, not \(bytes.count)"))
            }
            request += [3, UInt8(bytes.count)] + bytes
        }
        request += [UInt8(truncatingIfNeeded: port >> 8), UInt8(truncatingIfNeeded: port)]
        state = .awaitingReply
        return .write(request)
    }

    private mutating func replied() -> ProxyTunnelAction {
        if let error = expectVersion(5, "reply") { return fail(error) }
        guard buffer.count >= 2 else { return .waitForMore }
        guard buffer[1] == 0 else { return fail(.refused("the SOCKS5 proxy answered: \(Self.reason(buffer[1]))")) }
        guard buffer.count >= 5 else { return .waitForMore }
        let addressLength: Int
        switch buffer[3] {
        case 1: addressLength = 4
        case 4: addressLength = 16
        case 3: addressLength = 1 + Int(buffer[4])
        default: return fail(.malformedReply("the SOCKS5 reply has address type \(buffer[3])"))
        }
        let length = 4 + addressLength + 2
        guard buffer.count >= length else { return .waitForMore }
        state = .done
        let leftover = Array(buffer[length...])
        buffer = []
        return .established(leftover: leftover)
    }

    // MARK: Helpers

    private func expectVersion(_ version: UInt8, _ what: String) -> ProxyError? {
        guard let first = buffer.first, first != version else { return nil }
        return .malformedReply("the SOCKS5 \(what) has version \(first), not \(version)")
    }

    private mutating func fail(_ error: ProxyError) -> ProxyTunnelAction {
        state = .done
        buffer = []
        return .failed(error)
    }

    private static let unasked = ProxyError.malformedReply("the SOCKS5 proxy sent bytes it was not asked for")

    /// RFC 1928 §6's reply codes.
    static func reason(_ code: UInt8) -> String {
        switch code {
        case 1: return "general SOCKS server failure"
        case 2: return "connection not allowed by ruleset"
        case 3: return "network unreachable"
        case 4: return "host unreachable"
        case 5: return "connection refused"
        case 6: return "TTL expired"
        case 7: return "command not supported"
        case 8: return "address type not supported"
        default: return "unassigned reply code \(code)"
        }
    }
}
