// MARK: - Targets (issue 17; the 1 GiB file rows: issue 6)

/// One of the targets, checked against a suite run.
public struct TargetCheck: Equatable, Sendable {
    /// What is required.
    public var target: String
    /// What was measured (a ratio, megabytes or a factor of the body size).
    public var measured: String
    /// Whether it is met; nil when the rows it needs did not run.
    public var met: Bool?
}

extension SuiteResults {
    /// Keep-alive rows of small requests: requests/s at least libcurl's, CPU per request at most 1.2× its.
    static let smallRows = ["small-c1", "small-c32", "https-small-c1", "https-small-c32"]
    /// The CPU per small request allowed, as a multiple of libcurl's.
    static let smallCPULimit = 1.2
    /// Rows whose MB/s must be at least libcurl's.
    static let bulkRows = ["big-streamed", "mib-c4", "https-big-streamed", "https-mib-c4"]
    /// HTTPS bulk rows, whose MB/s must also be at least AsyncHTTPClient's.
    static let httpsBulkRows = ["https-big-streamed", "https-mib-c4"]
    /// Rows whose requests/s must be at least AsyncHTTPClient's: full TLS handshakes.
    static let fullHandshakeRows = ["https-new-rsa-full", "https-new-ecdsa-full"]
    /// Rows whose requests/s must be at least libcurl's: resumed TLS sessions.
    static let resumedRows = ["https-new-rsa-resumed", "https-new-ecdsa-resumed"]
    /// The row every memory growth is measured from: each client with its libraries loaded and no request.
    static let baselineRowID = "mem-baseline"
    /// The growth allowed for one request over the baseline: 2 MB (10^6 bytes), in KiB.
    static let oneRequestGrowthLimitKiB = 2_000_000.0 / 1024
    /// The 100 MiB buffered download may use the body plus the baseline, and this much more (5 %).
    static let bufferedOverheadLimit = 1.05
    /// Rows whose peak RSS must stay below 32 MB: 1 GiB through a file.
    static let fileTransferRows = ["file-download", "file-upload"]
    /// The peak RSS allowed for a 1 GiB file transfer: below 32 MB (10^6 bytes), in KiB.
    static let fileTransferRSSLimitKiB = 32_000_000.0 / 1024

    /// The targets, as ratios within this run (medians of per-round ratios).
    public func targets() -> [TargetCheck] {
        var checks: [TargetCheck] = []
        for id in Self.smallRows {
            checks.append(ratioCheck(id, "requests/s ≥ 1.0× libcurl", \.requestsPerSecond, limit: 1, atLeast: true))
            checks.append(ratioCheck(id, "CPU per request ≤ 1.2× libcurl's", \.cpuMicrosecondsPerRequest,
                                     limit: Self.smallCPULimit, atLeast: false))
        }
        checks.append(ratioCheck("close-c1", "requests/s ≥ 1.0× libcurl", \.requestsPerSecond, limit: 1,
                                 atLeast: true))
        for id in Self.bulkRows {
            checks.append(ratioCheck(id, "MB/s ≥ 1.0× libcurl", \.megabytesPerSecond, limit: 1, atLeast: true))
        }
        for id in Self.httpsBulkRows {
            checks.append(ratioCheck(id, "MB/s ≥ 1.0× AsyncHTTPClient", \.megabytesPerSecond, over: "ahc", limit: 1,
                                     atLeast: true))
        }
        for id in Self.fullHandshakeRows {
            checks.append(ratioCheck(id, "requests/s ≥ 1.0× AsyncHTTPClient", \.requestsPerSecond, over: "ahc",
                                     limit: 1, atLeast: true))
        }
        for id in Self.resumedRows {
            checks.append(ratioCheck(id, "requests/s ≥ 1.0× libcurl", \.requestsPerSecond, limit: 1, atLeast: true))
        }
        checks += memoryChecks()
        checks.append(ratioCheck("file-download", "MB/s ≥ 1.0× `curl -o`", \.megabytesPerSecond, limit: 1,
                                 atLeast: true))
        let rss = { (result: ClientResult) in Double(result.peakRSSKiB) }
        for id in Self.fileTransferRows {
            let title = row(id)?.title ?? id
            let peak = row(id).flatMap { median($0, "fw", rss) }
            checks.append(TargetCheck(target: "\(title): peak RSS < 32 MB",
                                      measured: peak.map { "\(Format.megabytes(kib: $0)) MB" } ?? "not run",
                                      met: peak.map { $0 < Self.fileTransferRSSLimitKiB }))
        }
        return checks
    }

    /// The median peak RSS of `client` in `row` less its median in the baseline row, in KiB; nil when
    /// either did not run.
    public func growthOverBaseline(_ row: SuiteRow, _ client: String) -> Double? {
        let rss = { (result: ClientResult) in Double(result.peakRSSKiB) }
        guard let baseline = self.row(Self.baselineRowID).flatMap({ median($0, client, rss) }),
              let peak = median(row, client, rss) else { return nil }
        return peak - baseline
    }

    /// Memory, restated against each client's own baseline (issue 17).
    private func memoryChecks() -> [TargetCheck] {
        let megabytes = { (kib: Double) in "\(Format.megabytes(kib: kib)) MB" }
        let one = row("mem-one").flatMap { growthOverBaseline($0, "fw") }
        let queued = row("mem-queued").flatMap { row in
            growthOverBaseline(row, "fw").flatMap { fw in growthOverBaseline(row, "curl").map { (fw, $0) } }
        }
        let rss = { (result: ClientResult) in Double(result.peakRSSKiB) }
        let buffered = row("big-buffered").flatMap { row -> (peak: Double, allowed: Double)? in
            guard let baseline = self.row(Self.baselineRowID).flatMap({ median($0, "fw", rss) }),
                  let peak = median(row, "fw", rss) else { return nil }
            return (peak, (Double(row.bodySize) / 1024 + baseline) * Self.bufferedOverheadLimit)
        }
        return [
            TargetCheck(target: "one GET 64 B: peak RSS growth over the baseline ≤ 2 MB",
                        measured: one.map(megabytes) ?? "not run", met: one.map { $0 <= Self.oneRequestGrowthLimitKiB }),
            TargetCheck(target: "1000 GET 64 B queued, limit 8: growth over the baseline ≤ libcurl's growth",
                        measured: queued.map { "fw \(megabytes($0.0)), curl \(megabytes($0.1))" } ?? "not run",
                        met: queued.map { $0.0 <= $0.1 }),
            TargetCheck(target: "GET 100 MiB once, buffered: peak RSS ≤ (body + baseline) × 1.05",
                        measured: buffered.map { "\(megabytes($0.peak)) of \(megabytes($0.allowed)) allowed" }
                            ?? "not run",
                        met: buffered.map { $0.peak <= $0.allowed }),
        ]
    }

    private func ratioCheck(_ id: String, _ requirement: String, _ value: (ClientResult) -> Double,
                            over other: String = "curl", limit: Double, atLeast: Bool) -> TargetCheck {
        let title = row(id)?.title ?? id
        guard let row = row(id), let ratio = medianRatio(row, "fw", over: other, value) else {
            return TargetCheck(target: "\(title): \(requirement)", measured: "not run", met: nil)
        }
        let name = other == "ahc" ? "AHC" : other
        return TargetCheck(target: "\(title): \(requirement)", measured: "FW/\(name) \(Format.factor(ratio))",
                           met: atLeast ? ratio >= limit : ratio <= limit)
    }
}
