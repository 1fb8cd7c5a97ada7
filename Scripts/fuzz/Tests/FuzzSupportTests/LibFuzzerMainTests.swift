// Reading replay inputs (the libFuzzer half runs only in a -sanitize=fuzzer build: Scripts/fuzz.sh).

import Glibc
import Testing

@testable import FuzzSupport

@Suite struct LibFuzzerMainTests {
    @Test func readsWholeFilesAndNilForMissingOnes() throws {
        var template = Array("/tmp/fwfuzz-test-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        try #require(descriptor >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let contents = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #expect(written == contents.count)
        #expect(LibFuzzerMain.readFile(path) == contents)
        #expect(LibFuzzerMain.readFile(path + "-missing") == nil)
    }
}
