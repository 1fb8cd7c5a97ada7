import BenchSupport
import Testing

@Test func notApplicableRoundTripsAsOneLine() throws {
    let report = NotApplicable(client: "ahc", reason: "no \"resumption\"\nat all")
    let line = report.jsonLine
    #expect(!line.contains("\n"))
    #expect(line.hasPrefix("{\"client\":\"ahc\",\"not_applicable\":"))
    #expect(NotApplicable.parse("noise\n\(line)\n") == report)
}

@Test func resultsAndNotApplicableLinesAreNotConfused() throws {
    let result = ClientResult(client: "fw", api: "handler", mode: .get, concurrency: 1, maxConnections: 1,
                              totals: LoopTotals(completed: 1, seconds: 1), cpuSeconds: 0, peakRSSKiB: 1)
    #expect(NotApplicable.parse(result.jsonLine) == nil)
    #expect(ClientResult.parse(NotApplicable(client: "fw", reason: "x").jsonLine) == nil)
}
