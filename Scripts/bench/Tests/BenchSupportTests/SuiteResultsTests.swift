import BenchSupport
import Testing

// MARK: - Fixtures

private func result(_ client: String, rps: Double = 0, mbps: Double = 0, cpuMicros: Double = 10,
                    rssKiB: Int = 8000) -> ClientResult {
    let requests = 1000
    var result = ClientResult(client: client, api: "x", mode: .get, concurrency: 1, maxConnections: 1,
                              totals: LoopTotals(completed: requests, seconds: 1), cpuSeconds: 0,
                              peakRSSKiB: rssKiB)
    result.requestsPerSecond = rps
    result.megabytesPerSecond = mbps
    result.cpuMicrosecondsPerRequest = cpuMicros
    return result
}

private func row(_ id: String) throws -> SuiteRow {
    try #require(SuiteRow.standard.first { $0.id == id })
}

// MARK: - Medians and ratios

@Test func ratiosArePerRoundThenMedian() throws {
    let small = try row("small-c1")
    var results = SuiteResults(rows: [small])
    // fw/curl per round: 2.0, 0.5, 1.5 → median 1.5; the ratio of medians would be 100/100 = 1.0.
    let rounds: [(Double, Double)] = [(200, 100), (50, 100), (100, 66.666_666_666_666_67)]
    for (index, (fw, curl)) in rounds.enumerated() {
        results.record(result("fw", rps: fw), problem: nil, row: small, round: index, client: "fw")
        results.record(result("curl", rps: curl), problem: nil, row: small, round: index, client: "curl")
    }
    let rps = { (result: ClientResult) in result.requestsPerSecond }
    #expect(results.median(small, "fw", rps) == 100)
    #expect(results.median(small, "curl", rps) == 100)
    let ratio = try #require(results.medianRatio(small, "fw", over: "curl", rps))
    #expect(abs(ratio - 1.5) < 1e-9)
    #expect(results.medianRatio(small, "fw", over: "ahc", rps) == nil)
}

@Test func roundsWhereAClientFailedAreLeftOutOfItsRatios() throws {
    let small = try row("small-c32")
    var results = SuiteResults(rows: [small])
    results.record(result("fw", rps: 10), problem: nil, row: small, round: 0, client: "fw")
    results.record(nil, problem: "exited with 1", row: small, round: 0, client: "curl")
    results.record(result("fw", rps: 30), problem: nil, row: small, round: 1, client: "fw")
    results.record(result("curl", rps: 10), problem: nil, row: small, round: 1, client: "curl")
    let rps = { (result: ClientResult) in result.requestsPerSecond }
    #expect(results.median(small, "fw", rps) == 20)
    #expect(results.medianRatio(small, "fw", over: "curl", rps) == 3)
    #expect(results.problems == ["small-c32, round 1, curl: exited with 1"])
}

// MARK: - Targets and the report

@Test func targetsUseTheIssuesThresholds() throws {
    let rows = try ["small-c1", "mib-c4", "close-c1", "mem-baseline", "mem-one", "mem-queued", "big-buffered"].map(row)
    var results = SuiteResults(rows: rows)
    let record = { (client: ClientResult, id: String) in
        results.record(client, problem: nil, row: try row(id), round: 0, client: client.client)
    }
    try record(result("fw", rps: 900, cpuMicros: 30), "small-c1")
    try record(result("curl", rps: 1000, cpuMicros: 25), "small-c1")
    try record(result("fw", mbps: 3000, cpuMicros: 300), "mib-c4")
    try record(result("curl", mbps: 2000, cpuMicros: 200), "mib-c4")
    try record(result("fw", rps: 1000), "close-c1")
    try record(result("curl", rps: 1000), "close-c1")
    try record(result("fw", rssKiB: 20_000), "mem-baseline")
    try record(result("curl", rssKiB: 8_000), "mem-baseline")
    try record(result("fw", rssKiB: 21_953), "mem-one")
    try record(result("fw", rssKiB: 26_000), "mem-queued")
    try record(result("curl", rssKiB: 13_000), "mem-queued")
    try record(result("fw", rssKiB: 126_000), "big-buffered")
    let checks = Dictionary(uniqueKeysWithValues: results.targets().map { ($0.target, $0) })
    #expect(checks["GET 64 B, keep-alive, c=1: requests/s ≥ 1.0× libcurl"]?.met == false)
    #expect(checks["GET 64 B, keep-alive, c=1: requests/s ≥ 1.0× libcurl"]?.measured == "FW/curl 0.90×")
    // 30 / 25 = 1.2: exactly the limit.
    #expect(checks["GET 64 B, keep-alive, c=1: CPU per request ≤ 1.2× libcurl's"]?.met == true)
    #expect(checks["GET 1 MiB, keep-alive, c=4: MB/s ≥ 1.0× libcurl"]?.met == true)
    #expect(checks["GET 64 B, new connection each, c=1: requests/s ≥ 1.0× libcurl"]?.met == true)
    // 1,953 KiB = 2.0 MB of growth: at the limit.
    let one = checks["one GET 64 B: peak RSS growth over the baseline ≤ 2 MB"]
    #expect(one?.met == true)
    #expect(one?.measured == "2.0 MB")
    // fw grew 6,000 KiB, curl 5,000 KiB.
    let queued = checks["1000 GET 64 B queued, limit 8: growth over the baseline ≤ libcurl's growth"]
    #expect(queued?.met == false)
    #expect(queued?.measured == "fw 6.1 MB, curl 5.1 MB")
    // Allowed: (102,400 + 20,000) KiB × 1.05 = 128,520 KiB.
    let buffered = checks["GET 100 MiB once, buffered: peak RSS ≤ (body + baseline) × 1.05"]
    #expect(buffered?.met == true)
    #expect(buffered?.measured == "129.0 MB of 131.6 MB allowed")
    #expect(checks["GET 64 B, keep-alive, c=32: requests/s ≥ 1.0× libcurl"]?.met == nil)
}

@Test func memoryTargetsNeedTheBaseline() throws {
    let one = try row("mem-one")
    var results = SuiteResults(rows: [one])
    results.record(result("fw", rssKiB: 9_000), problem: nil, row: one, round: 0, client: "fw")
    let check = results.targets().first { $0.target.hasPrefix("one GET 64 B") }
    #expect(check?.met == nil)
    #expect(check?.measured == "not run")
    #expect(results.growthOverBaseline(one, "fw") == nil)
}

@Test func httpsAndFileTargets() throws {
    let ids = ["https-small-c32", "https-mib-c4", "https-big-streamed", "https-new-rsa-full", "https-new-ecdsa-resumed",
               "file-download", "file-upload"]
    let rows = try ids.map(row)
    var results = SuiteResults(rows: rows)
    let record = { (client: ClientResult, id: String) in
        results.record(client, problem: nil, row: try row(id), round: 0, client: client.client)
    }
    try record(result("fw", rps: 30_000), "https-small-c32")
    try record(result("curl", rps: 20_000), "https-small-c32")
    try record(result("fw", mbps: 900), "https-mib-c4")
    try record(result("curl", mbps: 1000), "https-mib-c4")
    try record(result("ahc", mbps: 750), "https-mib-c4")
    try record(result("fw", mbps: 700), "https-big-streamed")
    try record(result("ahc", mbps: 1000), "https-big-streamed")
    try record(result("fw", rps: 400), "https-new-rsa-full")
    try record(result("curl", rps: 100), "https-new-rsa-full")
    try record(result("ahc", rps: 500), "https-new-rsa-full")
    try record(result("fw", rps: 900), "https-new-ecdsa-resumed")
    try record(result("curl", rps: 800), "https-new-ecdsa-resumed")
    try record(result("fw", mbps: 1200, rssKiB: 31_249), "file-download")
    try record(result("curl", mbps: 1000), "file-download")
    try record(result("fw", mbps: 800, rssKiB: 31_250), "file-upload")
    let checks = Dictionary(uniqueKeysWithValues: results.targets().map { ($0.target, $0) })
    #expect(checks["HTTPS GET 64 B, keep-alive, c=32: requests/s ≥ 1.0× libcurl"]?.met == true)
    #expect(checks["HTTPS GET 1 MiB, keep-alive, c=4: MB/s ≥ 1.0× libcurl"]?.met == false)
    #expect(checks["HTTPS GET 1 MiB, keep-alive, c=4: MB/s ≥ 1.0× AsyncHTTPClient"]?.measured == "FW/AHC 1.20×")
    #expect(checks["HTTPS GET 100 MiB, streamed, c=1: MB/s ≥ 1.0× AsyncHTTPClient"]?.met == false)
    #expect(checks["HTTPS GET 100 MiB, streamed, c=1: MB/s ≥ 1.0× libcurl"]?.met == nil)
    let full = checks["HTTPS GET 64 B, new TLS connection each, RSA 2048, full handshake: requests/s ≥ 1.0× "
                      + "AsyncHTTPClient"]
    #expect(full?.met == false)
    #expect(full?.measured == "FW/AHC 0.80×")
    #expect(checks["HTTPS GET 64 B, new TLS connection each, ECDSA P-256, full handshake: requests/s ≥ 1.0× "
                   + "AsyncHTTPClient"]?.met == nil)
    #expect(checks["HTTPS GET 64 B, new TLS connection each, ECDSA P-256, resumed session: requests/s ≥ 1.0× "
                   + "libcurl"]?.met == true)
    #expect(checks["GET 1 GiB to a file (curl: `curl -o`): MB/s ≥ 1.0× `curl -o`"]?.measured == "FW/curl 1.20×")
    #expect(checks["GET 1 GiB to a file (curl: `curl -o`): peak RSS < 32 MB"]?.met == true)
    #expect(checks["PUT 1 GiB from a file (curl: `curl -T`): peak RSS < 32 MB"]?.met == false)
}

@Test func memoryTableShowsGrowthOverTheBaseline() throws {
    let baseline = try row("mem-baseline")
    let one = try row("mem-one")
    var results = SuiteResults(rows: [baseline, one])
    var idle = result("fw", rssKiB: 19_531)
    idle.api = "none"
    results.record(idle, problem: nil, row: baseline, round: 0, client: "fw")
    results.record(result("fw", rssKiB: 21_484), problem: nil, row: one, round: 0, client: "fw")
    let report = results.markdown(header: [])
    #expect(report.contains("| baseline: libraries loaded, no request | 20.0 | – | – | – | – | – |"))
    #expect(report.contains("| … growth over the client's baseline | 2.0 | – | – | – |  |  |"))
    #expect(report.contains("- APIs driven: fw (x)\n"))
}

@Test func reportHasEveryTableAndTheProblems() throws {
    let small = try row("small-c1")
    let memory = try row("mem-one")
    var results = SuiteResults(rows: [small, memory])
    results.record(result("fw", rps: 12345), problem: nil, row: small, round: 0, client: "fw")
    results.record(result("curl", rps: 10000), problem: nil, row: small, round: 0, client: "curl")
    results.record(result("fw", rssKiB: 9766), problem: "2 failed requests", row: memory, round: 0, client: "fw")
    let report = results.markdown(header: ["## Title"])
    #expect(report.hasPrefix("## Title\n- APIs driven: fw (x); curl (x)\n"))
    #expect(report.contains("| GET 64 B, keep-alive, c=1 | req/s | 12,345 | 10,000 | – | – | – | 1.23× | – |"))
    #expect(report.contains("### Client CPU per request"))
    #expect(report.contains("| one GET 64 B | 10.0 | – | – | – | – | – |"))
    #expect(report.contains("| GET 64 B, keep-alive, c=1: requests/s ≥ 1.0× libcurl | FW/curl 1.23× | yes |"))
    #expect(report.contains("- mem-one, round 1, fw: 2 failed requests"))
    #expect(!report.contains("1000 GET 64 B queued"))
}

@Test func reportShowsNotApplicableCellsAndTLSSessions() throws {
    let full = try row("https-new-ecdsa-full")
    let resumed = try row("https-new-ecdsa-resumed")
    var results = SuiteResults(rows: [full, resumed])
    results.record(result("fw", rps: 500), problem: nil, row: full, round: 0, client: "fw")
    results.recordSessions(SessionTally(resumed: 0, total: 1000), row: full, round: 0, client: "fw")
    results.record(result("ahc", rps: 400), problem: nil, row: full, round: 0, client: "ahc")
    results.record(result("fw", rps: 1500), problem: nil, row: resumed, round: 0, client: "fw")
    results.recordSessions(SessionTally(resumed: 2999, total: 3000), row: resumed, round: 0, client: "fw")
    results.recordNotApplicable("no resumption", row: resumed, client: "ahc")
    results.recordNotApplicable("a later reason", row: resumed, client: "ahc")
    results.recordNotApplicable("untrusted", row: full, client: "foundation")
    results.recordNotApplicable("untrusted", row: resumed, client: "foundation")
    let report = results.markdown(header: [])
    let title = "HTTPS GET 64 B, new TLS connection each, ECDSA P-256"
    #expect(report.contains("| \(title), resumed session | req/s | 1,500 | – | n/a | n/a | – | – | – |"))
    #expect(report.contains("| \(title), full handshake | req/s | 500 | – | 400 | n/a |  | – | 1.25× |"))
    #expect(report.contains("| \(title), full handshake | 0 % of 1,000 | – | – | – |  |"))
    #expect(report.contains("| \(title), resumed session | 100 % of 3,000 | – | – | – | – |"))
    #expect(report.contains("\(title), resumed session: fw 1,500 req/s (3.00× its full handshakes)"))
    #expect(report.contains("- foundation (https-new-ecdsa-full, https-new-ecdsa-resumed): untrusted"))
    #expect(report.contains("- ahc (https-new-ecdsa-resumed): no resumption"))
    #expect(!report.contains("a later reason"))
    #expect(report.contains("| \(title), full handshake: requests/s ≥ 1.0× AsyncHTTPClient | FW/AHC 1.25× | yes |"))
}

@Test func fileRowsAreInTheMemoryTableWithoutABodyFactor() throws {
    let download = try row("file-download")
    var results = SuiteResults(rows: [download])
    results.record(result("fw", mbps: 1000, rssKiB: 20_000), problem: nil, row: download, round: 0, client: "fw")
    let report = results.markdown(header: [])
    #expect(report.contains("| GET 1 GiB to a file (curl: `curl -o`) | 20.5 | – |  | – | – | – |"))
    #expect(!report.contains("multiple of the body size"))
}
