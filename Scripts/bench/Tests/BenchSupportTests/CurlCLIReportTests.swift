import BenchSupport
import Testing

@Test func readsTheWriteOutLine() throws {
    let report = try #require(CurlCLIReport(parsing: "curl: (0) noise\n201 0 1073741824 1.523400\n"))
    #expect(report == CurlCLIReport(status: 201, downloaded: 0, uploaded: 1_073_741_824, seconds: 1.5234))
    #expect(report.succeeded)
}

@Test(arguments: [(200, true), (204, true), (299, true), (0, false), (404, false), (500, false)])
func successIsA2xxStatus(status: Int, succeeded: Bool) {
    #expect(CurlCLIReport(status: status, downloaded: 1, uploaded: 0, seconds: 1).succeeded == succeeded)
}

@Test(arguments: ["", "200 1 2", "200 a 0 1.0", "curl: (7) Failed to connect"])
func rejectsOutputWithoutTheLine(output: String) {
    #expect(CurlCLIReport(parsing: output) == nil)
}

@Test func theFormatHasFourFieldsAndANewline() {
    #expect(CurlCLIReport.writeOut.split(separator: " ").count == 4)
    #expect(CurlCLIReport.writeOut.hasSuffix("\\n"))
}
