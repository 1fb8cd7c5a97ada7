import Foundation
@testable import FWNetworking
import Testing

// MIMEType: parsing mime.types text, the system table (Debian's media-types), the built-in fallback and
// application/octet-stream for the rest.
@Suite struct MIMETypeTests {
    @Test func parsesMimeTypesText() {
        let table = MIMEType.parse("""
            # comment line
            text/plain\t\ttxt text
            application/x-foo foo # a comment after
            application/x-later TXT

            notatype bar
            image/png PNG png
            """)
        #expect(table == ["txt": "text/plain", "text": "text/plain", "foo": "application/x-foo",
                          "png": "image/png"])
    }

    @Test func theSystemTableIsUsedWhenPresent() throws {
        try #require(FileManager.default.fileExists(atPath: "/etc/mime.types"),
                     "Scripts/install-deps.sh installs media-types, which provides /etc/mime.types")
        #expect(MIMEType.forPathExtension("wav") == "audio/x-wav", "the system's type, not the built-in audio/wav")
        #expect(MIMEType.forPathExtension("JSON") == "application/json")
        #expect(MIMEType.systemTable.count > 500)
    }

    @Test func theBuiltInTableFillsGapsAndTheRestIsOctetStream() {
        #expect(MIMEType.systemTable["plist"] == nil)
        #expect(MIMEType.forPathExtension("plist") == "application/x-plist")
        #expect(MIMEType.forPathExtension("no-such-extension") == "application/octet-stream")
        #expect(MIMEType.forPathExtension("") == "application/octet-stream")
    }
}
