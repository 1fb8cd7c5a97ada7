// PipelineServer: Fixtures/conformance/pipeline-server.py, a raw HTTP/1.1 server on 127.0.0.1 for the
// pipelining tests (issue 27): it answers only once a given number of request heads arrived on a connection
// (or the client went quiet), reports in each response how many were pending, and can close its first
// connection after one response. See the script's opening comment.

import Foundation

// MARK: - PipelineServer

/// The pipelining tests' raw server.
public final class PipelineServer: Sendable {
    /// Its port on 127.0.0.1.
    public let port: Int
    private let process: StoppableProcess

    /// "http://127.0.0.1:PORT".
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the script and waits (bounded) for its port; throws `serverUnavailable` when it does not come up.
    public init() throws {
        let (process, ports) = try PortAnnouncingScript.start("conformance/pipeline-server.py", ports: 1,
                                                              what: "the pipelining test server")
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
