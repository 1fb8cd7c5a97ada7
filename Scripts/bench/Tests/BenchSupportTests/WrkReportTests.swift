import BenchSupport
import Testing

@Test func readsACleanReport() throws {
    let output = """
        Running 2s test @ http://127.0.0.1:8080/64.bin
          1 threads and 32 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency   437.49us  120.33us   3.46ms   88.50%
            Req/Sec    73.23k     2.05k   75.71k    80.00%
          145722 requests in 2.00s, 43.93MB read
        Requests/sec:  72860.51
        Transfer/sec:     21.96MB
        """
    let report = try #require(WrkReport(parsing: output))
    #expect(report.requests == 145_722)
    #expect(report.seconds == 2)
    #expect(report.bytesRead == 43.93 * 1_048_576)
    #expect(report.errors == 0)
}

@Test func countsSocketErrorsAndBadStatuses() throws {
    let output = """
          20 requests in 500.00ms, 2.00GB read
          Socket errors: connect 1, read 2, write 0, timeout 3
          Non-2xx or 3xx responses: 4
        """
    let report = try #require(WrkReport(parsing: output))
    #expect(report.requests == 20)
    #expect(report.seconds == 0.5)
    #expect(report.bytesRead == 2 * 1_073_741_824)
    #expect(report.errors == 10)
}

@Test(arguments: ["", "unable to connect to 127.0.0.1:1 Connection refused", "  12 requests in 2.00s, 1.00XB read"])
func rejectsOutputWithoutASummary(output: String) {
    #expect(WrkReport(parsing: output) == nil)
}
