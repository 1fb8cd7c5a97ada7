// RawConformanceServer: Fixtures/conformance/raw-server.py, a raw HTTP/1.1 server on 127.0.0.1 for the
// conformance kit: hand-written responses that each need one named deviation (`/deviation/<name>`) and the
// bytes the previous connection sent (`/recorded`). See the script's opening comment.

import Foundation

// MARK: - RawConformanceServer

/// The conformance kit's raw test server.
public final class RawConformanceServer: Sendable {
    /// Its port on 127.0.0.1.
    public let port: Int
    private let process: StoppableProcess

    /// "http://127.0.0.1:PORT".
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the script and waits (bounded) for its port; throws `serverUnavailable` when it does not come up.
    public init() throws {
        let (process, ports) = try PortAnnouncingScript.start("conformance/raw-server.py", ports: 1,
                                                              what: "the raw conformance server")
        self.process = process
        port = ports[0]
    }

    deinit {
        stop()
    }

    /// Kills the server and waits (bounded) for it to exit. Idempotent; also in deinit.
    public func stop() {
        process.stop()
    }
}
