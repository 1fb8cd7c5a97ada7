import FWTLS
import Testing

@Suite struct PublicKeyTests {
    @Test func publicKeyRepresentations() throws {
        let ec = try Fixtures.certificate("valid-ecdsa.pem").publicKey
        #expect(ec.externalRepresentation.count == 65)
        #expect(ec.externalRepresentation.first == 0x04)
        #expect(ec.spkiDER.count == 91)
        #expect(ec.spkiDER.suffix(65) == ec.externalRepresentation[...])
        let rsa = try Fixtures.certificate("valid-rsa.pem").publicKey
        #expect(rsa.externalRepresentation.first == 0x30, "PKCS#1 RSAPublicKey is a DER SEQUENCE")
        #expect(rsa.spkiDER.count == 294)
        #expect(ec != rsa)
        #expect(try Fixtures.certificate("valid-ecdsa-chain.pem").publicKey == ec)
    }

    @Test func descriptionNamesAlgorithmSizeAndPin() throws {
        let key = try Fixtures.certificate("valid-rsa.pem").publicKey
        #expect(String(describing: key) == "PublicKey(RSA 2048 bits, \(key.spkiPin))")
        #expect(key.spkiPin.hasPrefix("sha256//"))
        #expect(key.spkiSHA256.count == 32)
    }
}
