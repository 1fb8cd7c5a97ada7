import Foundation
import FWNetworking
import Testing
import TestSupport

// Pins hold on every redirect hop (curl pins only the first origin), against nginx configured by the
// test (`NginxServer`; openssl s_server cannot redirect): hop 1 on one port serves valid-ecdsa.pem and
// answers 302 to hop 2, another port serving valid-rsa.pem. Each hop is a new TLS connection, so each
// raises its own server-trust challenge; both ways of pinning (session delegate, task delegate) are run.
@Suite struct RedirectPinningTests {
    enum Pinner: String, CaseIterable, Sendable {
        case sessionDelegate, taskDelegate
    }

    static func startServers() throws -> NginxServer {
        try NginxServer(blocks: [
            NginxServer.Block(tls: (chain: ["valid-ecdsa.pem", "intermediate-ca.pem"], key: "valid-ecdsa.key"),
                              config: "location / { return 302 https://127.0.0.1:PORT1/hop2; }"),
            NginxServer.Block(tls: (chain: ["valid-rsa.pem", "intermediate-ca.pem"], key: "valid-rsa.key"),
                              config: "location / { return 200 \"hop 2\\n\"; }"),
        ])
    }

    /// Loads hop 1 with `pins` applied by `pinner`; returns the body or the error.
    static func load(_ nginx: NginxServer, pins: SPKIPins, pinner: Pinner) async throws -> Result<String, URLError> {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.tlsTrustRoots = .certificates(
            try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        configuration.timeoutIntervalForResource = 20
        let sessionDelegate: (any URLSessionDelegate)? = pinner == .sessionDelegate ? SessionLevelPinner(pins) : nil
        let taskDelegate: (any URLSessionTaskDelegate)? = pinner == .taskDelegate ? TaskLevelPinner(pins) : nil
        let session = URLSession(configuration: configuration, delegate: sessionDelegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        do {
            let url = URL(string: "https://127.0.0.1:\(nginx.ports[0])/hop1")!
            let (body, response) = try await session.data(for: URLRequest(url: url), delegate: taskDelegate)
            #expect(response.url?.port == nginx.ports[1], "the response is hop 2's")
            return .success(String(decoding: body, as: UTF8.self))
        } catch let error as URLError {
            return .failure(error)
        }
    }

    @Test(arguments: Pinner.allCases)
    func aPinThatOnlyMatchesTheFirstHopFailsAtTheSecond(_ pinner: Pinner) async throws {
        let nginx = try Self.startServers()
        defer { nginx.stop() }
        let pins = SPKIPins([try FixturePins.pin("valid-ecdsa.pem")])
        let result = try await Self.load(nginx, pins: pins, pinner: pinner)
        let error = try #require(result.failure, "\(result)")
        #expect(error.code == .cancelled, "the pinning delegate refused hop 2")
        #expect(error.failingURL?.port == nginx.ports[1], "\(error)")
        #expect(pins.made == [PinDecision(port: nginx.ports[0], accepted: true),
                              PinDecision(port: nginx.ports[1], accepted: false)])
    }

    @Test(arguments: Pinner.allCases)
    func pinsMatchingEveryHopLoadTheLastOne(_ pinner: Pinner) async throws {
        let nginx = try Self.startServers()
        defer { nginx.stop() }
        let pins = SPKIPins([try FixturePins.pin("valid-ecdsa.pem"), try FixturePins.pin("valid-rsa.pem")])
        let result = try await Self.load(nginx, pins: pins, pinner: pinner)
        #expect(try result.get() == "hop 2\n")
        #expect(pins.made == [PinDecision(port: nginx.ports[0], accepted: true),
                              PinDecision(port: nginx.ports[1], accepted: true)])
        if pinner == .taskDelegate {
            #expect(pins.askedFor.count == 2 && pins.askedFor[0] === pins.askedFor[1], "one task, two hops")
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
