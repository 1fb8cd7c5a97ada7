import FWTLS
import Testing

@Suite struct ServerTrustTests {
    enum Anchors: Sendable {
        case root
        case files([String])
        case system
        case filesAndSystem([String])
        case none

        func roots() throws -> TrustRoots {
            switch self {
            case .root: return try Fixtures.roots()
            case .files(let files): return .certificates(try files.map(Fixtures.certificate))
            case .system: return .system
            case .filesAndSystem(let files):
                return .certificates(try files.map(Fixtures.certificate), includingSystemRoots: true)
            case .none: return .certificates([])
            }
        }
    }

    struct Row: CustomTestStringConvertible, Sendable {
        let chain: [String]
        let host: String
        let anchors: Anchors
        let time: Int64?
        let outcome: TrustOutcome
        let why: String

        init(
            _ chain: [String], host: String = "localhost", anchors: Anchors = .root, time: Int64? = nil,
            _ outcome: TrustOutcome, _ why: String
        ) {
            self.chain = chain
            self.host = host
            self.anchors = anchors
            self.time = time
            self.outcome = outcome
            self.why = why
        }

        var testDescription: String { why }
    }

    static let intermediate = "intermediate-ca.pem"
    static let mid2000: Int64 = 961_000_000

    static let rows: [Row] = [
        Row(["valid-ecdsa.pem", intermediate], .accepted, "valid ECDSA chain"),
        Row(["valid-rsa.pem", intermediate], .accepted, "valid RSA chain"),
        Row(["valid-ecdsa.pem", intermediate], host: "127.0.0.1", .accepted, "IPv4 SAN"),
        Row(["valid-ecdsa.pem", intermediate], host: "::1", .accepted, "IPv6 SAN"),
        Row(["expired.pem", intermediate], .expired, "expired leaf"),
        Row(["not-yet-valid.pem", intermediate], .notYetValid, "not yet valid leaf"),
        Row(["expired.pem", intermediate], anchors: .root, time: mid2000, .notYetValid,
            "in 2000 the expired leaf was valid but its CA did not exist yet"),
        Row(["valid-ecdsa.pem", intermediate], time: mid2000, .notYetValid, "evaluation time before the chain"),
        Row(["expired.pem"], anchors: .files(["expired.pem"]), time: mid2000, .accepted,
            "an anchored leaf at a time inside its validity"),
        Row(["valid-ecdsa.pem", intermediate], time: 2_500_000_000, .expired, "evaluation time after the chain"),
        Row(["wrong-host.pem", intermediate], .hostnameMismatch, "valid chain, wrong host"),
        Row(["wildcard.pem", intermediate], host: "api.fw.test", .accepted, "wildcard"),
        Row(["wildcard.pem", intermediate], host: "a.b.fw.test", .hostnameMismatch, "wildcard is one label"),
        Row(["ip-only.pem", intermediate], host: "127.0.0.1", .accepted, "IP SAN only, IP host"),
        Row(["ip-only.pem", intermediate], .hostnameMismatch, "IP SAN only, DNS host"),
        Row(["cn-only.pem", intermediate], .accepted, "CN fallback"),
        Row(["self-signed.pem"], .unknownRoot, "self-signed leaf"),
        Row(["self-signed.pem"], anchors: .files(["self-signed.pem"]), .accepted, "self-signed leaf as its own anchor"),
        Row(["unknown-root-leaf.pem"], .unknownRoot, "unknown root"),
        Row(["unknown-root-leaf.pem", "unknown-root-ca.pem"], .unknownRoot, "unknown root sent along"),
        Row(["unknown-root-leaf.pem"], anchors: .filesAndSystem(["unknown-root-ca.pem"]), .accepted,
            "custom anchors plus the system's"),
        Row(["valid-ecdsa.pem"], .unknownRoot, "missing intermediate"),
        Row(["valid-ecdsa.pem", intermediate], anchors: .files([intermediate]), .accepted, "intermediate as anchor"),
        Row(["valid-ecdsa.pem"], anchors: .files(["valid-ecdsa.pem"]), .accepted, "leaf as anchor"),
        Row(["valid-ecdsa.pem", intermediate], anchors: .system, .unknownRoot, "the system does not know the root"),
        Row(["valid-ecdsa.pem", intermediate], anchors: .filesAndSystem(["unknown-root-ca.pem"]), .unknownRoot,
            "neither the custom anchors nor the system's"),
        Row(["valid-ecdsa.pem", intermediate], anchors: .none, .unknownRoot, "no anchors at all"),
        Row(["client.pem", "client-ca.pem"], anchors: .files(["client-ca.pem"]), .untrusted,
            "a client certificate is not for TLS servers"),
        Row([], .untrusted, "no certificate"),
    ]

    @Test(arguments: rows)
    func evaluatesChainAndHost(_ row: Row) throws {
        let trust = ServerTrust(
            certificateChain: try row.chain.map(Fixtures.certificate), host: row.host,
            anchors: try row.anchors.roots(), verificationTime: row.time
        )
        #expect(TrustOutcome.of { () throws(TrustError) in try DefaultTrustEvaluator().evaluate(trust) } == row.outcome)
    }

    @Test func hostCheckAndChainCheckAreSeparate() throws {
        let trust = ServerTrust(
            certificateChain: try Fixtures.chain("wrong-host.pem"), host: "localhost", anchors: try Fixtures.roots()
        )
        #expect(throws: Never.self) { try trust.validateChain() }
        #expect(throws: TrustError.self) { try trust.validateHost() }
        #expect(throws: Never.self) { try DefaultTrustEvaluator(validateHost: false).evaluate(trust) }
    }

    @Test func reasonsNameTheProblem() throws {
        let expired = ServerTrust(
            certificateChain: try Fixtures.chain("expired.pem"), host: "localhost", anchors: try Fixtures.roots()
        )
        do {
            try expired.validateChain()
            Issue.record("an expired chain must fail")
        } catch {
            #expect(error.reason.contains("expired"))
            #expect(error.reason.contains("depth 0"))
        }
        let wrongHost = ServerTrust(
            certificateChain: try Fixtures.chain("wrong-host.pem"), host: "localhost", anchors: try Fixtures.roots()
        )
        do {
            try wrongHost.validateHost()
            Issue.record("a wrong host must fail")
        } catch {
            #expect(error.reason.contains("wrong.fw.test"))
            #expect(error.reason.contains("localhost"))
        }
    }

    @Test func effectiveTimeIsNowUnlessSet() throws {
        var trust = ServerTrust(certificateChain: [], host: "localhost", anchors: .system)
        #expect(trust.effectiveTime > 1_700_000_000)
        trust.verificationTime = 42
        #expect(trust.effectiveTime == 42)
    }
}
