// RawConformanceServer: Fixtures/conformance/raw-server.py, a raw HTTP/1.1 server on 127.0.0.1 for the
// conformance kit: hand-written responses that each need one named deviation (`/deviation/<name>`) and the
// bytes the previous connection sent (`/recorded`), on a plain port and on a TLS port (the fixture chain
// `valid-ecdsa-chain.pem`, trusted through `root-ca.pem`). See the script's opening comment.

import Foundation

// MARK: - RawConformanceServer

/// The conformance kit's raw test server.
public final class RawConformanceServer: Sendable {
    /// Its plain port on 127.0.0.1.
    public let port: Int
    /// Its TLS port on 127.0.0.1.
    public let tlsPort: Int
    private let process: StoppableProcess

    /// "http://127.0.0.1:PORT".
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// "https://127.0.0.1:TLSPORT" (an address the fixture certificate names).
    public var tlsBaseURL: String { "https://127.0.0.1:\(tlsPort)" }

    /// Starts the script and waits (bounded) for its port; throws `serverUnavailable` when it does not come up.
    public init() throws {
        let (process, ports) = try PortAnnouncingScript.start("conformance/raw-server.py", ports: 2,
                                                              what: "the raw conformance server")
        self.process = process
        port = ports[0]
        tlsPort = ports[1]
    }

    deinit {
        stop()
    }

    /// Kills the server and waits (bounded) for it to exit. Idempotent; also in deinit.
    public func stop() {
        process.stop()
    }
}
