// ConformanceScriptServer: the conformance kit's raw HTTP/1.1 servers, python3 scripts under Fixtures/conformance
// on 127.0.0.1 that announce their ports (PortAnnouncingScript), one class for both:
//
//   - `RawConformanceServer`, raw-server.py: hand-written responses that each need one named deviation
//     (`/deviation/<name>`), a chunked body for the trace (`/chunks`) and the bytes the previous connection
//     sent (`/recorded`), on a plain port and on a TLS port (the fixture chain `valid-ecdsa-chain.pem`,
//     trusted through `root-ca.pem`);
//   - `PipelineServer`, pipeline-server.py: answers only once a given number of request heads arrived on a
//     connection (or the client went quiet), reports in each response how many were pending, and can close
//     its first connection after one response.
//
// See each script's opening comment. The script is a type parameter, so each server keeps its own name.

import Foundation

// MARK: - Scripts

/// A conformance server script: where it is, how many ports it announces, what to call it in an error.
public protocol ConformanceScript: Sendable {
    /// The script's path under Fixtures.
    static var fixture: String { get }
    /// How many ports it announces (the plain port first).
    static var portCount: Int { get }
    /// What it is, for the error when it does not come up.
    static var what: String { get }
}

/// raw-server.py: canned responses, `/chunks`, `/recorded`; a plain and a TLS port.
public enum RawConformanceScript: ConformanceScript {
    /// Fixtures/conformance/raw-server.py.
    public static let fixture = "conformance/raw-server.py"
    /// The plain port, then the TLS port.
    public static let portCount = 2
    /// Its name in an error.
    public static let what = "the raw conformance server"
}

/// pipeline-server.py: answers once enough heads arrived; one port.
public enum PipelineScript: ConformanceScript {
    /// Fixtures/conformance/pipeline-server.py.
    public static let fixture = "conformance/pipeline-server.py"
    /// One plain port.
    public static let portCount = 1
    /// Its name in an error.
    public static let what = "the pipelining test server"
}

/// The conformance kit's raw test server.
public typealias RawConformanceServer = ConformanceScriptServer<RawConformanceScript>
/// The pipelining tests' raw server.
public typealias PipelineServer = ConformanceScriptServer<PipelineScript>

// MARK: - ConformanceScriptServer

/// A conformance server script running on 127.0.0.1, stopped by `stop()` or deinit.
public final class ConformanceScriptServer<Script: ConformanceScript>: Sendable {
    /// Every port it announced, in order.
    public let ports: [Int]
    private let process: StoppableProcess

    /// Its (first) plain port on 127.0.0.1.
    public var port: Int { ports[0] }
    /// "http://127.0.0.1:PORT".
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the script and waits (bounded) for its ports; throws `serverUnavailable` when it does not come up.
    public init() throws {
        (process, ports) = try PortAnnouncingScript.start(Script.fixture, ports: Script.portCount,
                                                          what: Script.what)
    }

    deinit {
        stop()
    }

    /// Kills the server and waits (bounded) for it to exit. Idempotent; also in deinit.
    public func stop() {
        process.stop()
    }
}

extension ConformanceScriptServer where Script == RawConformanceScript {
    /// Its TLS port on 127.0.0.1.
    public var tlsPort: Int { ports[1] }
    /// "https://127.0.0.1:TLSPORT" (an address the fixture certificate names).
    public var tlsBaseURL: String { "https://127.0.0.1:\(tlsPort)" }
}
