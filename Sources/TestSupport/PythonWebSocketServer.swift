// PythonWebSocketServer: Fixtures/websocket/server.py, a WebSocket peer built on Debian's python3-websockets
// (an implementation nobody here wrote), on 127.0.0.1: without compression, with permessage-deflate, and
// with TLS (the fixtures' valid-ecdsa chain).

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - PythonWebSocketServer

/// The WebSocket test peer. What a connection does depends on its path (see the script's opening comment).
public final class PythonWebSocketServer: Sendable {
    /// The server without compression (`ws://127.0.0.1:plainPort`).
    public let plainPort: Int
    /// The server that agrees to permessage-deflate.
    public let deflatePort: Int
    /// The TLS server (`wss://127.0.0.1:tlsPort`, certificate from Fixtures/tls).
    public let tlsPort: Int
    private let process: StoppableProcess

    /// Starts the script and waits (bounded) for its ports; throws `serverUnavailable` with its output when
    /// it does not come up (python3-websockets missing: run Scripts/install-deps.sh).
    public init() throws {
        let (process, ports) = try PortAnnouncingScript.start("websocket/server.py", ports: 3,
                                                              what: "the WebSocket peer")
        self.process = process
        plainPort = ports[0]
        deflatePort = ports[1]
        tlsPort = ports[2]
    }

    deinit {
        stop()
    }

    /// Kills the server and waits (bounded) for it to exit. Idempotent; also in deinit.
    public func stop() {
        process.stop()
    }
}
