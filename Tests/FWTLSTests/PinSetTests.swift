@testable import FWTLS
import Testing
import TestSupport

@Suite struct PinSetTests {

    static func pin(_ file: String) throws -> String {
        try #require(try TLSFixtures.readmePins()[file] ?? TLSFixtures.readmePins("pinning/README.md")[file])
    }

    @Test func aSetNeedsABackupPinUnlessOneIsAllowed() throws {
        let leaf = try Self.pin("valid-ecdsa.pem")
        #expect(throws: TrustError.self) { try PinSet(host: "localhost", pins: [leaf]) }
        #expect(throws: TrustError.self, "a repeated pin is one pin") {
            try PinSet(host: "localhost", pins: [leaf, leaf])
        }
        let single = try PinSet(host: "localhost", pins: [leaf], allowsSinglePin: true)
        #expect(single.pins.count == 1)
        let pair = try PinSet(host: "localhost", pins: [leaf, try Self.pin("next-backup.key")])
        #expect(pair.pinStrings == [leaf, try Self.pin("next-backup.key")])
    }

    @Test(arguments: ["", "sha256//short", "sha1//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA8="])
    func malformedPinsAndHostsAreRefused(_ pin: String) throws {
        let leaf = try Self.pin("valid-ecdsa.pem")
        do {
            _ = try PinSet(host: pin.isEmpty ? "" : "localhost", pins: [leaf, pin.isEmpty ? leaf : pin])
            Issue.record("\(pin) must be refused")
        } catch {
            #expect(error.isInvalidPin)
        }
    }

    @Test func hostsAreCoveredExactlyOrWithSubdomains() throws {
        let pins = [try Self.pin("valid-ecdsa.pem"), try Self.pin("next-backup.key")]
        let exact = try PinSet(host: "Example.COM.", pins: pins)
        #expect(exact.covers(host: "example.com"))
        #expect(exact.covers(host: "EXAMPLE.com."))
        #expect(!exact.covers(host: "api.example.com"))
        let wide = try PinSet(host: "example.com", includesSubdomains: true, pins: pins)
        #expect(wide.covers(host: "api.example.com"))
        #expect(wide.covers(host: "example.com"))
        #expect(!wide.covers(host: "badexample.com"))
        let api = try PinSet(host: "api.example.com", pins: pins, mode: .reportOnly)
        #expect(PinSet.set(for: "api.example.com", in: [wide, api]) == api, "the exact host wins")
        #expect(PinSet.set(for: "x.api.example.com", in: [wide, api]) == wide, "api is not includesSubdomains")
        #expect(PinSet.set(for: "other.org", in: [wide, api]) == nil)
    }

    @Test func theScopeChoosesCertificatesOfTheVerifiedChain() throws {
        let chain = [
            try Fixtures.certificate("valid-ecdsa.pem"), try Fixtures.certificate("intermediate-ca.pem"),
            try Fixtures.certificate("root-ca.pem"),
        ]
        let backup = try Self.pin("next-backup.key")
        let cases: [(String, PinSet.Scope, Bool)] = [
            ("valid-ecdsa.pem", .leaf, true), ("valid-ecdsa.pem", .intermediates, false),
            ("intermediate-ca.pem", .intermediates, true), ("intermediate-ca.pem", [.leaf, .root], false),
            ("root-ca.pem", .root, true), ("root-ca.pem", .leaf, false), ("root-ca.pem", .anyCertificate, true),
        ]
        for (file, scope, expected) in cases {
            let set = try PinSet(host: "localhost", pins: [try Self.pin(file), backup], scope: scope)
            #expect(set.matches(verifiedChain: chain) == expected, "\(file) in \(scope.rawValue)")
        }
        let selfSigned = try PinSet(host: "localhost", pins: [try Self.pin("self-signed.pem"), backup], scope: .root)
        #expect(selfSigned.matches(verifiedChain: [try Fixtures.certificate("self-signed.pem")]),
                "a chain of one certificate: it is the leaf and the root")
    }

    @Test func expiryIsAfterTheExpirationTime() throws {
        let pins = [try Self.pin("valid-ecdsa.pem"), try Self.pin("next-backup.key")]
        let expiring = try PinSet(host: "localhost", pins: pins, expirationTime: 1_000)
        #expect(!expiring.isExpired(at: 1_000))
        #expect(expiring.isExpired(at: 1_001))
        #expect(!(try PinSet(host: "localhost", pins: pins)).isExpired(at: .max))
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"), (951_782_400, "2000-02-29T00:00:00Z"),
        (2_426_173_261, "2046-11-18T17:01:01Z"), (-1, "1969-12-31T23:59:59Z"),
    ])
    func reportTimesAreRFC3339(_ seconds: Int64, _ text: String) {
        #expect(RFC3339.format(seconds) == text)
    }
}
