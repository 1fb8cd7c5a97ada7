// bench-suite: runs the suite's rows (BenchSupport/SuiteRow+Standard.swift) against running servers, clients
// interleaved within each round (fw, curl, ahc, foundation, wrk, fw, curl, ...), and prints the
// Markdown report (medians of the rounds, ratios per round then median). Scripts/bench.sh builds the
// clients, starts nginx and calls this; run it directly to repeat a few rows (`--rows` takes row ids
// and the groups http, https and files; SuiteOptions.swift has the whole command line):
//
//   bench-suite --server http=http://127.0.0.1:PORT --bin DIR --curl PATH --wrk PATH [--rounds 5]
//               [--seconds 2] [--rows id,group] [--api fw=async|ahc=async|foundation=async]... [--out FILE]
//               [--note LINE]... plus, for the HTTPS and file rows, the servers, files and directories
//               Scripts/bench.sh passes (--server https...=URL, --cacert, --session-log, --docroot,
//               --put-dir, --scratch, --curl-tool)

import BenchSupport
import Foundation

let options: SuiteOptions
do {
    options = try SuiteOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("bench-suite", "\(error.message)\n\(SuiteOptions.usage)")
}
let rows = options.rows
let runner = ClientRunner(options: options)

func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

// MARK: The suite

func unit(_ row: SuiteRow) -> String {
    switch row.metric {
    case .requestsPerSecond: "req/s"
    case .megabytesPerSecond: "MB/s"
    case .peakRSS: "peak RSS KiB"
    }
}

var results = SuiteResults(rows: rows)
let started = Date()
for group in SuiteRow.groups where rows.contains(where: { $0.group == group }) {
    switch group {
    case "http":
        log("warm-up: every client, GET 64 B for 0.5 s; the 100 MiB file once")
        for client in SuiteRow.allClients {
            _ = runner.run(client, SuiteRow.standard[0], seconds: 0.5)
        }
        _ = runner.run("curl", SuiteRow(id: "warm", title: "warm", path: "100m.bin", bodySize: 100 << 20,
                                        concurrency: 1, requests: 1, mode: .stream, metric: .megabytesPerSecond),
                       seconds: 1)
    case "https":
        log("warm-up: every client, HTTPS GET 64 B for 0.5 s")
        if let https = SuiteRow.standard.first(where: { $0.server == .https }) {
            for client in SuiteRow.allClients {
                _ = runner.run(client, https, seconds: 0.5)
            }
        }
    default:
        break
    }
}
for row in rows {
    for round in 0..<options.rounds {
        var line = "\(row.id) round \(round + 1)/\(options.rounds) (\(unit(row))):"
        for client in row.clients {
            let outcome = runner.run(client, row, seconds: options.seconds)
            results.record(outcome.result, problem: outcome.problem, row: row, round: round, client: client)
            if let reason = outcome.notApplicable { results.recordNotApplicable(reason, row: row, client: client) }
            if let tally = outcome.sessions { results.recordSessions(tally, row: row, round: round, client: client) }
            let shown = outcome.result.map { Format.quantity(SuiteResults.value(of: row, $0)) }
                ?? (outcome.notApplicable == nil ? "failed" : "n/a")
            let resumed = outcome.sessions.map { " (resumed \($0.percentage))" } ?? ""
            line += " \(client) \(shown)\(resumed)"
        }
        log(line)
    }
}
let minutes = Date().timeIntervalSince(started) / 60
var header = ["## Client benchmark: FWNetworking vs libcurl, AsyncHTTPClient, FoundationNetworking, wrk", ""]
header += options.notes.map { "- \($0)" }
header.append("- Closed loops: N requests in flight, each completion starts the next; CPU: the client's getrusage "
              + "over the measured interval (wrk, curl tool: wait4); peak RSS: the client's ru_maxrss, started from "
              + "a fresh shell; libcurl reads in 64 KiB slices (FWNetworking's read size) on the MB/s rows")
if rows.contains(where: { $0.server.isTLS }) {
    header.append("- HTTPS: TLS 1.2 and 1.3 with session cache and tickets; keep-alive rows on the ECDSA P-256 leaf; "
                  + "clients trust only the fixtures' root (Fixtures/tls); full handshakes: tlsSessionResumption "
                  + "off (fw), CURLOPT_SSL_SESSIONID_CACHE 0 (curl), AsyncHTTPClient as is "
                  + "(swift-nio-ssl never resumes); nginx's log checks every new-connection run")
}
if rows.contains(where: { $0.mode.usesFile }) {
    header.append("- Files: 1 GiB, downloaded into a scratch directory (also the clients' TMPDIR), uploaded from "
                  + "nginx's document root; fw: downloadTask + URLSessionDownloadDelegate (the file moved), "
                  + "uploadTask(with:fromFile:); nginx stores each PUT (WebDAV) and the suite checks the size of what "
                  + "arrived")
}
let loadAtEnd = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first
header.append("- \(options.rounds) rounds of \(Format.quantity(options.seconds)) s per client and row "
              + "(fixed-count rows: the count), clients interleaved; suite time "
              + "\(String(format: "%.1f", minutes)) min, 1-minute load \(loadAtEnd ?? "?") at the end")
let report = results.markdown(header: header)
print(report, terminator: "")
if let path = options.output {
    do {
        try report.write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        fail("bench-suite", "cannot write \(path): \(error)")
    }
}
