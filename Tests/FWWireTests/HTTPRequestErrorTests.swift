// HTTPRequestError: every member is distinct and described.

import FWWire
import Testing

@Test("request errors are distinct, with distinct descriptions")
func distinctRequestErrors() {
    let all: [HTTPRequestError] = [
        .invalidMethod, .invalidTarget, .unsupportedVersion, .invalidHeaderName, .invalidHeaderValue,
        .missingHost, .conflictingFraming,
    ]
    #expect(Set(all).count == all.count)
    #expect(Set(all.map(\.description)).count == all.count)
    #expect(all.allSatisfy { !$0.description.isEmpty })
}
