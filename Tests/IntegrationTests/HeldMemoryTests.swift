import Foundation
import FWNetworking
import Testing
import TestSupport

// Issue 29's memory nobody asked to keep, each scenario in a PathProbe process of its own (the test process's
// RSS is a dozen tests'):
// - finished tasks whose references the caller keeps hold their metadata, not their bodies — with the URL
//   cache on (`.default`, memory and disk) and `.ephemeral`, over HTTP and TLS, for responses that go to the
//   network every time (no validators, no freshness: storable, so the cache proposal is made each time);
// - `bytes(from:)` holds only the unread window however far its reader lags.
@Suite struct HeldMemoryTests {
    /// nginx serving a 1 MiB body without validators over HTTP (first port) and TLS (second port): SSI
    /// processing drops `Last-Modified` and `etag off` the ETag, so nothing is fresh and nothing validates.
    static func nginx() throws -> NginxServer {
        let config = "location / { ssi on; ssi_types *; etag off; }"
        return try NginxServer(files: ["big.bin": [UInt8](repeating: 0x61, count: 1 << 20),
                                       "huge.bin": [UInt8](repeating: 0x62, count: 64 << 20)], blocks: [
            NginxServer.Block(config: config),
            NginxServer.Block(tls: (chain: ["valid-rsa.pem", "intermediate-ca.pem"], key: "valid-rsa.key"),
                              config: config),
        ])
    }

    enum Scheme: String, CaseIterable, Sendable {
        case http, https
    }

    @Test(arguments: ["default", "ephemeral"], Scheme.allCases)
    func threeHundredFinishedTasksHoldNoBodies(_ configuration: String, _ scheme: Scheme) throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let port = scheme == .http ? nginx.ports[0] : nginx.ports[1]
        let url = "\(scheme.rawValue)://127.0.0.1:\(port)/big.bin"
        // Each probe has its own cache directory: the shared cache's disk tier must not be another run's.
        let cache = try TemporaryDirectory()
        let run = try PathProbeRun(["held", url, "300", configuration, TLSFixtures.path("root-ca.pem")],
                                   environment: ["XDG_CACHE_HOME": cache.path])
        let grown = try #require(Int(run.fields["grown"] ?? ""))
        let trimmed = (Int(run.fields["trimmed"] ?? "") ?? 0) >> 20
        print("HeldMemory: 300 finished 1 MiB tasks held, .\(configuration), \(scheme.rawValue): "
              + "RSS +\(grown >> 20) MiB (+\(trimmed) MiB after malloc_trim)")
        #expect(run.fields["failures"] == "0")
        #expect(grown < Sanitizers.memoryBound(40 << 20), "300 held tasks grew RSS by \(grown >> 20) MiB")
        let log = nginx.accessLog(atLeast: 301).filter { $0.contains("big.bin") } // logged after each response
        #expect(log.count == 301, "every request went to the network: \(log.count) of 301")
    }

    @Test func aLaggingBytesReaderHoldsOnlyItsWindow() throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let run = try PathProbeRun(["lagging", "\(nginx.baseURL)/huge.bin", "20"])
        let peak = try #require(Int(run.fields["peak"] ?? ""))
        print("HeldMemory: 64 MiB through bytes(from:), 20 ms pause per MiB: peak +\(peak >> 20) MiB")
        #expect(run.fields["error"] == "success")
        #expect(run.fields["bytes"] == "\(64 << 20)")
        #expect(peak < Sanitizers.memoryBound(32 << 20), "peak +\(peak >> 20) MiB")
    }
}
