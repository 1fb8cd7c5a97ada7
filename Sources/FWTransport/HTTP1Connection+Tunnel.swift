import FWLoop
import FWWire

// MARK: - HTTP1Connection: the tunnel through a proxy
//
// Carries out the machine's tunnelling step: the tunnel's machine (a CONNECT exchange or a SOCKS5
// handshake) is made once the socket to the proxy connected — after resolving the origin's name here
// when a socks5:// proxy (not socks5h://) must be given an address — and the machine is told. The connect
// deadline (`establishmentDeadline`) covers the resolution, the tunnel and then TLS with the origin.
// The proxy's bytes are read raw (into a temporary area) and handed to the machine. Loop thread only.

extension HTTP1Connection {
    /// The socket to the proxy connected: make the tunnel (maybe after resolving the origin), then start it.
    func openTunnel(through proxy: ProxyServer) {
        armTimer(at: establishmentDeadline) { [self] in
            run(machine.connectFailed(.timedOut("opening a tunnel to \(key) took longer than \(connectTimeout)")))
        }
        if proxy.kind == .http {
            let tunnel = HTTPConnectTunnel(authority: key.authority, credentials: proxy.credentials,
                                           authorization: proxy.authorization, limits: limits)
            run(machine.tcpConnected(secure: key.isSecure, tunnel: .connect(tunnel)))
            return
        }
        let target = SOCKS5Handshake.Target(host: key.host)
        guard proxy.kind == .socks5, case .name(let name) = target else {
            startSOCKS5(target, credentials: proxy.credentials)
            return
        }
        let connection = LoopBound(self, loop: loop)
        let loop = self.loop
        Resolver.resolve(host: name, port: key.port) { result in
            loop.execute { connection.value.originResolved(result, credentials: proxy.credentials) }
        }
    }

    private func originResolved(_ result: Result<[SocketAddress], ResolverError>, credentials: ProxyCredentials?) {
        guard core.isOpen, machine.establishment == .tcp else { return }
        switch result {
        case .success(let addresses):
            guard let address = addresses.first else {
                run(machine.connectFailed(.cannotFindHost("host \(key.host) has no addresses", underlying: nil)))
                return
            }
            startSOCKS5(SOCKS5Handshake.Target(host: address.host), credentials: credentials)
        case .failure(let error):
            run(machine.connectFailed(.cannotFindHost("cannot find host \(key.host): \(error)", underlying: error)))
        }
    }

    private func startSOCKS5(_ target: SOCKS5Handshake.Target, credentials: ProxyCredentials?) {
        let handshake = SOCKS5Handshake(target: target, port: key.port, credentials: credentials)
        run(machine.tcpConnected(secure: key.isSecure, tunnel: .socks5(handshake)))
    }

    /// Writes bytes of the exchange with the proxy (never traced as a request's: no request runs yet).
    func writeToProxy(_ bytes: [UInt8]) {
        core.queue(wire: bytes)
        flush()
    }

    /// One read while tunnelling: the proxy's bytes go to the machine. The read area is temporary and not
    /// zeroed: the connection keeps no buffer for a phase that ends with the tunnel.
    func readFromProxy(using read: (UnsafeMutableRawBufferPointer) throws(IOError) -> Int) throws(IOError) {
        let bytes = try withUnsafeTemporaryAllocation(byteCount: ChannelCore.readSize, alignment: 1) { area in
            Result { () throws(IOError) in
                let count = try read(area)
                return Array(area[..<count])
            }
        }.get()
        if !bytes.isEmpty { run(machine.tunnelReceived(bytes)) }
    }
}
