import FWTLS
import Testing

@Suite struct TLSConfigurationTests {
    @Test func defaultsAreWhatURLSessionUsersExpect() {
        let configuration = TLSConfiguration()
        #expect(configuration.minimumVersion == .v1_2)
        #expect(configuration.maximumVersion == .v1_3)
        #expect(configuration.applicationProtocols == ["http/1.1"])
        #expect(configuration.trustRoots.includesSystemRoots)
        #expect(configuration.clientIdentity == nil)
        #expect(!configuration.requestsOCSPStapling)
    }

    @Test func versionsAreOrderedAndNamedLikeOpenSSL() {
        #expect([TLSVersion.v1_3, .v1_0, .v1_2, .v1_1].sorted() == [.v1_0, .v1_1, .v1_2, .v1_3])
        #expect([TLSVersion.v1_0, .v1_1, .v1_2, .v1_3].map(\.name) == ["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"])
        #expect(String(describing: TLSVersion.v1_3) == "TLSv1.3")
    }
}
