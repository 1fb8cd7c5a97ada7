import FWTLS
import Testing

@Suite struct TLSLibraryTests {
    /// FWTLS links the system OpenSSL 3 (libssl-dev), never BoringSSL or LibreSSL.
    @Test func linksTheSystemOpenSSL3() {
        #expect(TLSLibrary.versionDescription.hasPrefix("OpenSSL 3."))
    }
}
