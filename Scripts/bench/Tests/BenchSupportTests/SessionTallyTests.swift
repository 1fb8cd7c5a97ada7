import BenchSupport
import Testing

@Test func countsResumedLinesOfTheLog() {
    let log = """
        . TLSv1.3 TLS_AES_256_GCM_SHA384
        r TLSv1.3 TLS_AES_256_GCM_SHA384

        r TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256
        """
    let tally = SessionTally(log: log)
    #expect(tally == SessionTally(resumed: 2, total: 3))
    #expect(tally.percentage == "67 %")
    #expect(SessionTally(log: "").percentage == "–")
}

@Test(arguments: [
    // (resumed, total, expecting resumption, mismatch?)
    (0, 500, false, false),
    (25, 500, false, false),
    (26, 500, false, true),
    (499, 500, true, false),
    (450, 500, true, false),
    (449, 500, true, true),
    (0, 500, true, true),
    (0, 0, false, true),
    (0, 0, true, true),
])
func mismatchThresholds(resumed: Int, total: Int, expecting: Bool, mismatch: Bool) {
    let reason = SessionTally(resumed: resumed, total: total).mismatch(expectingResumption: expecting)
    #expect((reason != nil) == mismatch)
}
