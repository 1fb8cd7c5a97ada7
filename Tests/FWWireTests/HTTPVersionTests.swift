// HTTPVersion: the two supported versions and their wire spelling.

import FWWire
import Testing

@Test("versions print as on the wire and compare by number")
func versions() {
    #expect(HTTPVersion.http1_1.description == "HTTP/1.1")
    #expect(HTTPVersion.http1_0.description == "HTTP/1.0")
    #expect(HTTPVersion(major: 1, minor: 1) == .http1_1)
    #expect(HTTPVersion(major: 1, minor: 0) == .http1_0)
    #expect(HTTPVersion.http1_0 != .http1_1)
    #expect(HTTPVersion(major: 2, minor: 0).description == "HTTP/2.0")
    #expect(Set([HTTPVersion.http1_1, HTTPVersion(major: 1, minor: 1), .http1_0]).count == 2)
}
