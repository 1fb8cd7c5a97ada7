import Foundation
import FWURLSession
import Testing

// The Core Foundation spellings compile and behave as Apple code expects them to.
@Suite struct CoreFoundationCompatTests {
    @Test func dataBridgesBothWays() {
        let bytes = Data([1, 2, 3])
        let data: CFData = bytes as CFData
        #expect(data as Data == bytes)
        #expect(CFDataGetLength(data) == 3)
        #expect(CFDataGetBytePtr(data)[2] == 3)
    }

    @Test func arraysBridgeBothWays() throws {
        let certificate = try SecurityFixtures.root()
        let array: CFArray = [certificate, certificate] as CFArray
        #expect(CFArrayGetCount(array) == 2)
        #expect((array as? [SecCertificate])?.first == certificate)
        #expect(array as? [String] == nil)
    }

    @Test func dictionariesAndStringsBridge() {
        let options = [kSecImportExportPassphrase as String: "secret"] as CFDictionary
        #expect((options as? [String: Any])?[kSecImportExportPassphrase] as? String == "secret")
        let host: CFString = "localhost" as CFString
        #expect(host as String == "localhost")
    }

    @Test func errorsExposeTheirCodeAndDescription() {
        let error: CFError = NSError(domain: NSOSStatusErrorDomain, code: Int(errSecNotTrusted),
                                     userInfo: [NSLocalizedDescriptionKey: "not trusted"])
        #expect(CFErrorGetCode(error) == CFIndex(errSecNotTrusted))
        #expect(CFErrorCopyDescription(error) == "not trusted")
        var unmanaged: Unmanaged<CFError>? = Unmanaged.passRetained(error)
        #expect(unmanaged?.takeRetainedValue() as Error? != nil)
        unmanaged = nil
        #expect(unmanaged == nil)
    }

    @Test func theDefaultAllocatorIsNil() {
        #expect(kCFAllocatorDefault == nil)
    }
}
