import BenchSupport
import Foundation
import Testing

private func sample() -> ClientResult {
    ClientResult(client: "fw", api: "handler", mode: .get, concurrency: 4, maxConnections: 4,
                 totals: LoopTotals(completed: 2000, failed: 1, bytes: 4_000_000, seconds: 2, firstError: "boom"),
                 cpuSeconds: 0.5, peakRSSKiB: 9000)
}

@Test func ratesAreDerivedFromTheTotals() {
    let result = sample()
    #expect(result.requests == 2000)
    #expect(result.errors == 1)
    #expect(result.requestsPerSecond == 1000)
    #expect(result.megabytesPerSecond == 2)
    #expect(result.cpuMicrosecondsPerRequest == 250)
    #expect(result.mode == "get")
}

@Test func noCompletedRequestsMeansNoCPUPerRequest() {
    let result = ClientResult(client: "curl", api: "multi", mode: .close, concurrency: 1, maxConnections: 1,
                              totals: LoopTotals(), cpuSeconds: 0.1, peakRSSKiB: 1)
    #expect(result.cpuMicrosecondsPerRequest == 0)
    #expect(result.requestsPerSecond == 0)
}

@Test func jsonLineRoundTripsWithSnakeCaseKeys() throws {
    let line = sample().jsonLine
    #expect(!line.contains("\n"))
    #expect(line.contains("\"requests_per_second\":1000"))
    #expect(line.contains("\"peak_rss_kib\":9000"))
    #expect(line.contains("\"max_conns\":4"))
    #expect(ClientResult.parse("noise\n\(line)\n") == sample())
}

@Test func parsesTheCClientsLine() throws {
    let line = """
        {"api":"multi","body_bytes":128,"client":"curl","concurrency":1,"cpu_seconds":0.000100,\
        "cpu_us_per_request":50.000,"errors":0,"max_conns":1,"mb_per_second":0.001,"mode":"get",\
        "peak_rss_kib":5120,"requests":2,"requests_per_second":20000.000,"seconds":0.000100}
        """
    let result = try #require(ClientResult.parse(line))
    #expect(result.client == "curl")
    #expect(result.requests == 2)
    #expect(result.peakRSSKiB == 5120)
    #expect(result.firstError == nil)
}

@Test(arguments: ["", "not json", "{\"client\":\"fw\"}", "{"])
func parseRejectsIncompleteOutput(output: String) {
    #expect(ClientResult.parse(output) == nil)
}
