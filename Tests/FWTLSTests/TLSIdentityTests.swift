import FWTLS
import Testing
import TestSupport

@Suite struct TLSIdentityTests {
    @Test func fromPEMFiles() throws {
        let identity = try Fixtures.clientIdentity()
        #expect(identity.certificate.subjectSummary == "FWNetworking Test Client")
        #expect(identity.intermediates.isEmpty)
    }

    @Test func fromPEMWithAChain() throws {
        let chain = [try Fixtures.certificate("client.pem"), try Fixtures.certificate("client-ca.pem")]
        let identity = try TLSIdentity(certificateChain: chain, privateKeyPEM: try Fixtures.bytes("client.key"))
        #expect(identity.intermediates == [chain[1]])
    }

    @Test func replacingIntermediatesKeepsCertificateAndKey() throws {
        let identity = try TLSIdentity(pkcs12File: Fixtures.path("client.p12"), password: Fixtures.clientPassword)
        let clientCA = try Fixtures.certificate("client-ca.pem")
        #expect(identity.intermediates == [clientCA], "the PKCS#12 carries client-ca")
        let bare = identity.replacingIntermediates(with: [])
        #expect(bare.intermediates.isEmpty)
        #expect(bare.certificate == identity.certificate)
        #expect(identity.intermediates == [clientCA], "a value: the original is unchanged")
        let server = try OpenSSLServer.start(extra: TLSEngineTests.clientAuth)
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        try client.handshake { bare.replacingIntermediates(with: [clientCA]) }
        #expect(try client.get().contains("FWNetworking Test Client"), "the key still signs for the certificate")
    }

    @Test func encryptedPEMKeyNeedsItsPassword() throws {
        let chain = [try Fixtures.certificate("client.pem")]
        let key = try Fixtures.bytes("client-encrypted.key")
        let identity = try TLSIdentity(certificateChain: chain, privateKeyPEM: key, password: Fixtures.clientPassword)
        #expect(identity.certificate == chain[0])
        for password in [nil, "wrong"] as [String?] {
            do {
                _ = try TLSIdentity(certificateChain: chain, privateKeyPEM: key, password: password)
                Issue.record("password \(password ?? "nil") must fail")
            } catch {
                #expect(error.isWrongPassword)
            }
        }
    }

    @Test func fromPKCS12() throws {
        let identity = try TLSIdentity(pkcs12File: Fixtures.path("client.p12"), password: Fixtures.clientPassword)
        #expect(identity.certificate == (try Fixtures.certificate("client.pem")))
        #expect(identity.intermediates == [try Fixtures.certificate("client-ca.pem")])
    }

    @Test func pkcs12Failures() throws {
        do {
            _ = try TLSIdentity(pkcs12File: Fixtures.path("client.p12"), password: "wrong")
            Issue.record("a wrong password must fail")
        } catch {
            #expect(error.isWrongPassword)
        }
        let pem = try Fixtures.bytes("client.pem")
        do {
            _ = try TLSIdentity(pkcs12: pem, password: Fixtures.clientPassword)
            Issue.record("PEM is not PKCS#12")
        } catch {
            #expect(error.isDecodingFailure)
        }
        do {
            _ = try TLSIdentity(pkcs12File: Fixtures.path("missing.p12"), password: "")
            Issue.record("a missing file must fail")
        } catch {
            #expect(error.isFileUnreadable)
        }
    }

    @Test func keyMustBelongToTheCertificate() throws {
        let chain = [try Fixtures.certificate("client.pem")]
        let foreignKey = try Fixtures.bytes("valid-ecdsa.key")
        do {
            _ = try TLSIdentity(certificateChain: chain, privateKeyPEM: foreignKey)
            Issue.record("a foreign key must fail")
        } catch {
            #expect(error.isKeyMismatch)
        }
    }

    @Test func malformedInputs() throws {
        let cases: [([Certificate], [UInt8])] = [
            ([], try Fixtures.bytes("client.key")),
            ([try Fixtures.certificate("client.pem")], Array("not a key".utf8)),
            ([try Fixtures.certificate("client.pem")], try Fixtures.bytes("client.pem")),
        ]
        for (chain, key) in cases {
            do {
                _ = try TLSIdentity(certificateChain: chain, privateKeyPEM: key)
                Issue.record("must fail")
            } catch {
                #expect(error.isDecodingFailure)
            }
        }
    }
}
