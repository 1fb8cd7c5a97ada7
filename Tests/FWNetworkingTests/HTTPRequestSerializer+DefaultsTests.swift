import Foundation
@testable import FWNetworking
import Testing

// The default Accept-Language (from the POSIX locale environment, with AFNetworking's q-values) and
// User-Agent of a new serializer.
@Suite struct HTTPRequestSerializerDefaultsTests {
    static let languageCases: [([String: String], String)] = [
        ([:], "en;q=1"),
        (["LANG": "C"], "en;q=1"),
        (["LANG": "POSIX"], "en;q=1"),
        (["LANG": "C.UTF-8"], "en;q=1"),
        (["LANG": "fr_FR.UTF-8"], "fr-FR;q=1"),
        (["LANG": "de_DE@euro"], "de-DE;q=1"),
        (["LANG": "en_US.UTF-8", "LC_MESSAGES": "pt_BR.UTF-8"], "pt-BR;q=1"),
        (["LANG": "en_US.UTF-8", "LC_MESSAGES": "pt_BR", "LC_ALL": "ja_JP.UTF-8"], "ja-JP;q=1"),
        (["LANG": "fr_FR.UTF-8", "LANGUAGE": "fr:en_GB:de"], "fr;q=1, en-GB;q=0.9, de;q=0.8"),
        (["LANG": "C", "LANGUAGE": "fr:de"], "en;q=1"),
        (["LANG": "fr_FR", "LANGUAGE": "a:b:c:d:e:f:g:h"], "a;q=1, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5"),
        (["LANG": "fr_FR", "LANGUAGE": "fr:fr:en"], "fr;q=1, en;q=0.9"),
        (["LANG": "fr_FR", "LANGUAGE": ""], "fr-FR;q=1"),
        (["LANG": "", "LC_ALL": "", "LC_MESSAGES": "it_IT"], "it-IT;q=1"),
    ]

    @Test(arguments: languageCases)
    func acceptLanguage(environment: [String: String], expected: String) {
        #expect(HTTPRequestSerializer.defaultAcceptLanguage(environment: environment) == expected)
    }

    @Test func aNewSerializerSendsTheProcessLanguagesAndAUserAgent() throws {
        let serializer = HTTPRequestSerializer()
        #expect(serializer.value(forHTTPHeaderField: "Accept-Language")
                == HTTPRequestSerializer.defaultAcceptLanguage())
        let userAgent = try #require(serializer.value(forHTTPHeaderField: "User-Agent"))
        var system = utsname()
        uname(&system)
        let machine = withUnsafeBytes(of: &system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(userAgent.hasPrefix(ProcessInfo.processInfo.processName + " (Linux "))
        #expect(userAgent.hasSuffix("; \(machine)) FWNetworking/\(HTTPRequestSerializer.frameworkVersion)"))
        #expect(userAgent.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) })
    }
}
