// MARK: - Targets (issue 4 item 7, issue 5 item 9, issue 6 "Performance and memory")

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
    /// Rows whose requests/s must be at least libcurl's (HTTPS: the keep-alive rows).
    static let smallRows = ["small-c1", "small-c32", "close-c1", "https-small-c1", "https-small-c32"]
    /// Rows whose MB/s must be at least libcurl's.
    static let bulkRows = ["mib-c4", "big-buffered", "big-streamed", "https-mib-c4"]
    /// Rows whose requests/s must be at least AsyncHTTPClient's: full TLS handshakes.
    static let fullHandshakeRows = ["https-new-rsa-full", "https-new-ecdsa-full"]
    /// Rows whose peak RSS must stay below 32 MB: 1 GiB through a file.
    static let fileTransferRows = ["file-download", "file-upload"]
    /// The peak RSS allowed for a 1 GiB file transfer: below 32 MB (10^6 bytes), in KiB.
    static let fileTransferRSSLimitKiB = 32_000_000.0 / 1024
    /// Keep-alive rows whose CPU per request must be at most libcurl's.
    static let keepAliveRows = ["small-c1", "small-c32", "mib-c4"]
    /// The peak RSS allowed for one request: 12 MB (10^6 bytes), in KiB.
    static let oneRequestRSSLimitKiB = 12_000_000.0 / 1024
    /// The peak RSS allowed for the 100 MiB buffered download, as a multiple of the body size.
    static let bufferedBodyFactorLimit = 1.15

    /// The targets, as ratios within this run (medians of per-round ratios).
    public func targets() -> [TargetCheck] {
        var checks: [TargetCheck] = []
        for id in Self.smallRows {
            checks.append(ratioCheck(id, "requests/s ≥ 1.0× libcurl", \.requestsPerSecond, atLeast: true))
        }
        for id in Self.bulkRows {
            checks.append(ratioCheck(id, "MB/s ≥ 1.0× libcurl", \.megabytesPerSecond, atLeast: true))
        }
        checks.append(ratioCheck("file-download", "MB/s ≥ 1.0× `curl -o`", \.megabytesPerSecond, atLeast: true))
        for id in Self.fullHandshakeRows {
            checks.append(ratioCheck(id, "requests/s ≥ 1.0× AsyncHTTPClient", \.requestsPerSecond, over: "ahc",
                                     atLeast: true))
        }
        for id in Self.keepAliveRows {
            checks.append(ratioCheck(id, "CPU per request ≤ libcurl's", \.cpuMicrosecondsPerRequest, atLeast: false))
        }
        let rss = { (result: ClientResult) in Double(result.peakRSSKiB) }
        let one = row("mem-one").flatMap { median($0, "fw", rss) }
        checks.append(TargetCheck(target: "one GET 64 B: peak RSS ≤ 12 MB",
                                  measured: one.map { "\(Format.megabytes(kib: $0)) MB" } ?? "not run",
                                  met: one.map { $0 <= Self.oneRequestRSSLimitKiB }))
        checks.append(ratioCheck("mem-queued", "peak RSS ≤ libcurl's", rss, atLeast: false))
        let buffered = row("big-buffered")
        let factor = buffered.flatMap { row in median(row, "fw", rss).map { $0 * 1024 / Double(row.bodySize) } }
        checks.append(TargetCheck(target: "GET 100 MiB once, buffered: peak RSS ≤ 1.15× body",
                                  measured: factor.map { Format.factor($0) } ?? "not run",
                                  met: factor.map { $0 <= Self.bufferedBodyFactorLimit }))
        for id in Self.fileTransferRows {
            let title = row(id)?.title ?? id
            let peak = row(id).flatMap { median($0, "fw", rss) }
            checks.append(TargetCheck(target: "\(title): peak RSS < 32 MB",
                                      measured: peak.map { "\(Format.megabytes(kib: $0)) MB" } ?? "not run",
                                      met: peak.map { $0 < Self.fileTransferRSSLimitKiB }))
        }
        return checks
    }

    private func ratioCheck(_ id: String, _ requirement: String, _ value: (ClientResult) -> Double,
                            over other: String = "curl", atLeast: Bool) -> TargetCheck {
        let title = row(id)?.title ?? id
        guard let row = row(id), let ratio = medianRatio(row, "fw", over: other, value) else {
            return TargetCheck(target: "\(title): \(requirement)", measured: "not run", met: nil)
        }
        let name = other == "ahc" ? "AHC" : other
        return TargetCheck(target: "\(title): \(requirement)", measured: "FW/\(name) \(Format.factor(ratio))",
                           met: atLeast ? ratio >= 1 : ratio <= 1)
    }
}
