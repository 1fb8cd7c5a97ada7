import BenchSupport
import Foundation

// MARK: - RunOutcome

/// What one client run produced.
struct RunOutcome {
    /// The client's numbers, unless the run failed, was not applicable or did not do what the row asks.
    var result: ClientResult?
    /// Something that went wrong (request errors, a crash, a short file).
    var problem: String?
    /// Why the client cannot run the row ("n/a" in the report).
    var notApplicable: String?
    /// What nginx saw of the run's TLS sessions (new-connection HTTPS rows).
    var sessions: SessionTally?
}

// MARK: - ClientRunner

/// Runs one client on one row: builds its command line (and environment), runs it from a fresh shell,
/// reads its JSON line (or, for wrk and the curl tool, their own output), then checks what only the
/// server side can tell: the TLS sessions nginx logged, the size of the file that arrived.
struct ClientRunner {
    let options: SuiteOptions

    func run(_ client: String, _ row: SuiteRow, seconds: Double) -> RunOutcome {
        let log = row.server.logsSessions ? options.sessionLog : nil
        let logStart = log.map(Self.size)
        var outcome = launch(client, row, seconds: seconds)
        if let log, let logStart, outcome.notApplicable == nil {
            let tally = SessionTally(log: Self.text(of: log, from: logStart))
            outcome.sessions = tally
            if outcome.result != nil, let expected = row.tlsResumption,
               let mismatch = tally.mismatch(expectingResumption: expected) {
                outcome.result = nil
                outcome.notApplicable = mismatch
                if client == "fw" { outcome.problem = mismatch }
            }
        }
        if row.mode.usesFile { checkFiles(client, row, &outcome) }
        return outcome
    }

    // MARK: Launching

    private func launch(_ client: String, _ row: SuiteRow, seconds: Double) -> RunOutcome {
        let base = options.servers[row.server] ?? ""
        let url = row.mode == .upload ? "\(base)/put/\(row.path)" : "\(base)/\(row.path)"
        let timeout = (row.requests == nil ? seconds : 0) + 120
        if client == "wrk" { return wrk(row, url: url, seconds: seconds, timeout: timeout) }
        if client == "curl", row.mode.usesFile { return curlTool(row, url: url, timeout: timeout) }
        let program = client == "curl" ? options.curl : "\(options.binaries)/bench-\(client)"
        var arguments = [program, url, "\(row.concurrency)", row.requests.map(String.init) ?? "\(seconds)s",
                         row.mode.name, "--max-conns", "\(row.maxConnections)"]
        if let api = options.apis[client] { arguments += ["--api", api] }
        // libcurl reads in FWNetworking's 64 KiB slices on the bulk rows (see curl/bench-curl.c).
        if client == "curl", row.metric == .megabytesPerSecond { arguments += ["--buffer-size", "65536"] }
        var environment: [String] = []
        if row.server.isTLS, let ca = options.caCertificates {
            arguments += ["--cacert", ca]
            // FoundationNetworking has no API for trust anchors; these are the variables OpenSSL and the
            // curl tool read (bench-foundation reports "n/a" when they do not help).
            if client == "foundation" { environment += ["SSL_CERT_FILE=\(ca)", "CURL_CA_BUNDLE=\(ca)"] }
        }
        if let resumption = row.tlsResumption { arguments += ["--tls-resumption", resumption ? "on" : "off"] }
        if row.mode.usesFile {
            arguments += ["--file", file(for: client, row)]
            environment.append("TMPDIR=\(options.scratchDirectory ?? "")")
        }
        let command = environment.isEmpty ? arguments : ["/usr/bin/env"] + environment + arguments
        guard let outcome = ChildProcess(arguments: command, timeout: timeout).run() else {
            return RunOutcome(problem: "\(program) could not be started")
        }
        if outcome.status == NotApplicable.exitStatus, let skipped = NotApplicable.parse(outcome.output) {
            return RunOutcome(notApplicable: skipped.reason)
        }
        let result = ClientResult.parse(outcome.output)
        if outcome.timedOut { return RunOutcome(result: result, problem: "killed after \(Int(timeout)) s") }
        guard let result else { return RunOutcome(problem: "exited with \(outcome.status) and no result") }
        if result.errors > 0 {
            return RunOutcome(result: result,
                              problem: "\(result.errors) failed requests, first: \(result.firstError ?? "?")")
        }
        return RunOutcome(result: result, problem: outcome.status == 0 ? nil : "exited with \(outcome.status)")
    }

    private func wrk(_ row: SuiteRow, url: String, seconds: Double, timeout: Double) -> RunOutcome {
        var arguments = [options.wrk, "-t1", "-c\(row.maxConnections)", "-d\(Int(seconds.rounded(.up)))s"]
        if row.mode == .close { arguments += ["-H", "Connection: close"] }
        guard let outcome = ChildProcess(arguments: arguments + [url], timeout: timeout).run() else {
            return RunOutcome(problem: "wrk could not be started")
        }
        guard outcome.status == 0, let report = WrkReport(parsing: outcome.output) else {
            return RunOutcome(problem: "wrk exited with \(outcome.status): \(outcome.output.suffix(300))")
        }
        return RunOutcome(result: ClientResult(wrk: report, row: row, usage: outcome.usage), problem: report.errors > 0
                          ? "wrk reported \(report.errors) socket errors or non-2xx responses" : nil)
    }

    /// The curl tool on a file row: `curl -o FILE URL` or `curl -T FILE URL`.
    private func curlTool(_ row: SuiteRow, url: String, timeout: Double) -> RunOutcome {
        let file = file(for: "curl", row)
        let transfer = row.mode == .upload ? ["-T", file, "-o", "/dev/null"] : ["-o", file]
        let arguments = [options.curlTool, "-sS"] + transfer + ["-w", CurlCLIReport.writeOut, url]
        guard let outcome = ChildProcess(arguments: arguments, timeout: timeout).run() else {
            return RunOutcome(problem: "\(options.curlTool) could not be started")
        }
        guard let report = CurlCLIReport(parsing: outcome.output) else {
            return RunOutcome(problem: "curl exited with \(outcome.status): \(outcome.output.suffix(300))")
        }
        let bytes = row.mode == .upload ? report.uploaded : report.downloaded
        let failure = report.succeeded && outcome.status == 0 ? nil : "status \(report.status), exit \(outcome.status)"
        let totals = LoopTotals(completed: failure == nil ? 1 : 0, failed: failure == nil ? 0 : 1, bytes: bytes,
                                seconds: report.seconds, firstError: failure)
        let result = ClientResult(client: "curl", api: row.mode == .upload ? "curl -T" : "curl -o", mode: row.mode,
                                  concurrency: 1, maxConnections: 1, totals: totals,
                                  cpuSeconds: outcome.usage.cpuSeconds, peakRSSKiB: outcome.usage.peakRSSKiB)
        return RunOutcome(result: result, problem: failure.map { "curl failed: \($0)" })
    }

    // MARK: Files

    /// Mode `download`: where `client` leaves the body; mode `upload`: the file it sends.
    private func file(for client: String, _ row: SuiteRow) -> String {
        row.mode == .upload ? "\(options.documentRoot ?? "")/\(row.path)"
            : "\(options.scratchDirectory ?? "")/\(client)-\(row.path)"
    }

    /// The body that arrived (the client's download, nginx's copy of an upload) must have the row's size;
    /// it is deleted, and so is anything the client left in its TMPDIR (reported).
    private func checkFiles(_ client: String, _ row: SuiteRow, _ outcome: inout RunOutcome) {
        let arrived = row.mode == .upload ? "\(options.putDirectory ?? "")/\(row.path)" : file(for: client, row)
        let size = Self.size(arrived)
        try? FileManager.default.removeItem(atPath: arrived)
        if outcome.result != nil, size != row.bodySize {
            let place = row.mode == .upload ? "nginx stored" : "the downloaded file has"
            outcome.problem = "\(place) \(size) bytes, not \(row.bodySize)"
            outcome.result = nil
        }
        let scratch = options.scratchDirectory ?? ""
        let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []
        for name in left {
            try? FileManager.default.removeItem(atPath: "\(scratch)/\(name)")
        }
        if !left.isEmpty, outcome.problem == nil {
            outcome.problem = "left \(left.count) file(s) in TMPDIR: \(left.sorted().prefix(3).joined(separator: ", "))"
        }
    }

    private static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    private static func text(of path: String, from offset: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(offset))
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }
}

extension ClientResult {
    /// wrk's report in the clients' terms: CPU from `wait4` (peak RSS is not measured: wrk is in no
    /// memory row), MB/s counts every byte read (heads too: negligible for the bulk rows).
    init(wrk report: WrkReport, row: SuiteRow, usage: ResourceUsage) {
        let totals = LoopTotals(completed: report.requests, failed: report.errors, bytes: Int(report.bytesRead),
                                seconds: report.seconds, firstError: nil)
        self.init(client: "wrk", api: "wrk -t1", mode: row.mode, concurrency: row.maxConnections,
                  maxConnections: row.maxConnections, totals: totals, cpuSeconds: usage.cpuSeconds, peakRSSKiB: 0)
    }
}
