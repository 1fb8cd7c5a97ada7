import Foundation
@testable import FWURLSession
import Testing

@Suite struct SecPolicyTests {
    @Test(arguments: [
        (SecPolicyCreateSSL(true, "api.fw.test" as CFString), "api.fw.test", "<SecPolicy SSL server for api.fw.test>"),
        (SecPolicyCreateSSL(true, nil), nil, "<SecPolicy SSL server>"),
        (SecPolicyCreateSSL(false, "api.fw.test" as CFString), nil, "<SecPolicy SSL client>"),
        (SecPolicyCreateBasicX509(), nil, "<SecPolicy basic X.509>"),
    ])
    func onlyAnSSLServerPolicyChecksAHost(_ policy: SecPolicy, _ hostname: String?, _ description: String) {
        #expect(policy.hostname == hostname)
        #expect(policy.description == description)
    }
}
