// PythonStreamPeer: Fixtures/stream/peer.py, a raw-stream peer built on Python's standard library (socketserver,
// ssl), on 127.0.0.1: an echo server, a line protocol that switches to TLS and back (STARTTLS / STOPTLS, with
// the fixtures' valid-ecdsa chain), and an HTTP server whose response turns into an echo stream.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - PythonStreamPeer

/// The stream-task test peer (see the script's opening comment for what each server does).
public final class PythonStreamPeer: Sendable {
    /// The echo server.
    public let echoPort: Int
    /// The STARTTLS line server.
    public let startTLSPort: Int
    /// The HTTP server whose response becomes an echo stream.
    public let httpPort: Int
    private let process: StoppableProcess

    /// Starts the script and waits (bounded) for its ports; throws `serverUnavailable` with its output when
    /// it does not come up.
    public init() throws {
        let (process, ports) = try PortAnnouncingScript.start("stream/peer.py", ports: 3, what: "the stream peer")
        self.process = process
        echoPort = ports[0]
        startTLSPort = ports[1]
        httpPort = ports[2]
    }

    deinit {
        stop()
    }

    /// Kills the server and waits (bounded) for it to exit. Idempotent; also in deinit.
    public func stop() {
        process.stop()
    }
}
