// MARK: - ProxyTunnel
//
// The one face the connection's machine sees of the two tunnel protocols (`HTTPConnectTunnel`,
// `SOCKS5Handshake`): bytes in, an action out, no I/O. `start()` gives the first bytes to write; every
// read is handed to `receive`; the end of the stream to `receiveEndOfStream`.

/// What a tunnel protocol wants next.
enum ProxyTunnelAction: Equatable, Sendable {
    /// Write these bytes to the proxy, then wait for its answer.
    case write([UInt8])
    /// The answer is incomplete: read more.
    case waitForMore
    /// The tunnel is open; `leftover` are bytes that followed the proxy's last answer (the origin's).
    case established(leftover: [UInt8])
    /// The proxy refused or broke its protocol; the connection must close.
    case failed(ProxyError)
}

/// A tunnel being opened through a proxy: an HTTP CONNECT exchange or a SOCKS5 handshake.
///
/// Indirect: the connection's machine holds one for a few round trips of a proxied connection's life, and
/// inline its ~400 bytes made every copy of the machine (each read of one of its computed properties through
/// the connection) five times larger.
indirect enum ProxyTunnel: Sendable {
    case connect(HTTPConnectTunnel)
    case socks5(SOCKS5Handshake)

    /// The first bytes to write (or a failure when the request cannot be expressed, e.g. a name too long).
    mutating func start() -> ProxyTunnelAction {
        switch self {
        case .connect(var tunnel):
            let action = tunnel.start()
            self = .connect(tunnel)
            return action
        case .socks5(var handshake):
            let action = handshake.start()
            self = .socks5(handshake)
            return action
        }
    }

    /// Bytes from the proxy.
    mutating func receive(_ bytes: [UInt8]) -> ProxyTunnelAction {
        switch self {
        case .connect(var tunnel):
            let action = tunnel.receive(bytes)
            self = .connect(tunnel)
            return action
        case .socks5(var handshake):
            let action = handshake.receive(bytes)
            self = .socks5(handshake)
            return action
        }
    }

    /// The proxy closed the connection.
    mutating func receiveEndOfStream() -> ProxyTunnelAction {
        switch self {
        case .connect(var tunnel):
            let action = tunnel.receiveEndOfStream()
            self = .connect(tunnel)
            return action
        case .socks5(var handshake):
            let action = handshake.receiveEndOfStream()
            self = .socks5(handshake)
            return action
        }
    }
}
