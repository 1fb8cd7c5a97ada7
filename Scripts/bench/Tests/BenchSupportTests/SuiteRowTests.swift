import BenchSupport
import Testing

// MARK: - The standard rows

@Test func standardRowsAreUniqueAndCoverEveryTarget() {
    let ids = SuiteRow.standard.map(\.id)
    #expect(Set(ids).count == ids.count)
    let named = ["small-c1", "small-c32", "close-c1", "mib-c4", "big-buffered", "big-streamed", "mem-baseline", "mem-one",
                 "mem-queued", "https-small-c1", "https-small-c32", "https-mib-c4", "https-big-streamed", "https-new-rsa-full",
                 "https-new-rsa-resumed", "https-new-ecdsa-full", "https-new-ecdsa-resumed", "file-download",
                 "file-upload"]
    #expect(Set(named).isSubset(of: Set(ids)))
    for row in SuiteRow.standard {
        #expect(row.clients.first == "fw")
        // Scripts/bench.sh writes these files.
        #expect(["64.bin": 64, "1m.bin": 1 << 20, "100m.bin": 100 << 20, "1g.bin": 1 << 30][row.path] == row.bodySize)
    }
}

@Test func newConnectionHTTPSRowsAskForResumptionOrNot() {
    let rows = SuiteRow.standard.filter(\.server.logsSessions)
    #expect(rows.count == 4)
    for row in rows {
        #expect(row.mode == .close)
        #expect(row.tlsResumption == row.id.hasSuffix("-resumed"))
        // wrk always resumes: it has no full-handshake run.
        #expect(row.clients.contains("wrk") == row.tlsResumption)
    }
    #expect(SuiteRow.standard.filter { !$0.server.logsSessions }.allSatisfy { $0.tlsResumption == nil })
}

@Test func groupsFollowServerAndMode() {
    let groups = Dictionary(grouping: SuiteRow.standard, by: \.group).mapValues { $0.map(\.id) }
    #expect(Set(groups.keys) == Set(SuiteRow.groups))
    #expect(groups["files"] == ["file-download", "file-upload"])
    #expect(groups["https"]?.count == 8)
    #expect(groups["http"]?.first == "small-c1")
    // The suite runs the groups one after another, in `groups` order.
    let ranks = SuiteRow.standard.map { SuiteRow.groups.firstIndex(of: $0.group) ?? -1 }
    #expect(ranks == ranks.sorted())
    #expect(!ranks.contains(-1))
}

// MARK: - Selection

@Test(arguments: [
    ("all", 19),
    ("https", 8),
    ("files", 2),
    ("http,files", 11),
    ("small-c1,https-new-rsa-full", 2),
    ("https,https-small-c1", 8),
])
func selectTakesIdsAndGroups(list: String, count: Int) throws {
    let rows = try SuiteRow.select(list)
    #expect(rows.count == count)
    // The suite's order, whatever the list's.
    let order = SuiteRow.standard.map(\.id)
    #expect(rows.map(\.id) == order.filter { id in rows.contains { $0.id == id } })
}

@Test func selectNamesWhatMatchesNothing() {
    #expect(throws: UsageError.self) { try SuiteRow.select("https,nope") }
    let error = #expect(throws: UsageError.self) { try SuiteRow.select("zzz,nope") }
    #expect(error?.message.hasPrefix("unknown rows nope, zzz; groups: http, https, files, all; rows: small-c1") == true)
}

@Test func serversKnowWhetherTheySpeakTLS() {
    #expect(SuiteRow.Server.all.map(\.name) == ["http", "https", "https-rsa", "https-ecdsa"])
    #expect(SuiteRow.Server.all.filter(\.isTLS) == [.https, .httpsRSA, .httpsECDSA])
    #expect(SuiteRow.Server.all.filter(\.logsSessions) == [.httpsRSA, .httpsECDSA])
}
