// bench-suite: runs the suite's rows (BenchSupport/SuiteRow.swift) against a running server, clients
// interleaved within each round (fw, curl, ahc, foundation, wrk, fw, curl, ...), and prints the
// Markdown report (medians of the rounds, ratios per round then median). Scripts/bench.sh builds the
// clients, starts nginx and calls this; run it directly to repeat a few rows:
//
//   bench-suite --base http://127.0.0.1:PORT --bin DIR --curl PATH --wrk PATH [--rounds 5] [--seconds 2]
//               [--rows id,id] [--api fw=async|ahc=async|foundation=async]... [--out FILE] [--note LINE]...

import BenchSupport
import Foundation

struct Options {
    var base = ""
    var binaries = ""
    var curl = ""
    var wrk = ""
    var rounds = 5
    var seconds = 2.0
    var rowIDs: [String]?
    var output: String?
    var notes: [String] = []
    /// A non-default API per Swift client (`--api fw=async`).
    var apis: [String: String] = [:]

    init(_ arguments: [String]) throws(UsageError) {
        var index = 0
        func value() throws(UsageError) -> String {
            guard index + 1 < arguments.count else { throw UsageError("\(arguments[index]) needs a value") }
            index += 1
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--base": base = try value()
            case "--bin": binaries = try value()
            case "--curl": curl = try value()
            case "--wrk": wrk = try value()
            case "--rounds": rounds = Int(try value()) ?? 0
            case "--seconds": seconds = Double(try value()) ?? 0
            case "--rows": rowIDs = try value().split(separator: ",").map(String.init)
            case "--out": output = try value()
            case "--note": notes.append(try value())
            case "--api":
                let pair = try value().split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2, ["fw", "ahc", "foundation"].contains(pair[0]) else {
                    throw UsageError("--api takes fw=NAME, ahc=NAME or foundation=NAME")
                }
                apis[pair[0]] = pair[1]
            default: throw UsageError("unknown option \(arguments[index])")
            }
            index += 1
        }
        guard base.hasPrefix("http://127.0.0.1:") else { throw UsageError("--base must be http://127.0.0.1:PORT") }
        guard !binaries.isEmpty, !curl.isEmpty, !wrk.isEmpty else { throw UsageError("--bin, --curl and --wrk") }
        guard rounds > 0, seconds > 0 else { throw UsageError("--rounds and --seconds must be positive") }
    }
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("bench-suite", "\(error.message)\nusage: bench-suite --base URL --bin DIR --curl PATH --wrk PATH "
         + "[--rounds N] [--seconds S] [--rows id,id] [--api CLIENT=NAME]... [--out FILE] [--note LINE]...")
}
let rows = options.rowIDs.map { ids in SuiteRow.standard.filter { ids.contains($0.id) } } ?? SuiteRow.standard

// MARK: Running one client

func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Runs `client` once on `row`; returns its result (nil when there is none) and a problem, if any.
func run(_ client: String, _ row: SuiteRow, seconds: Double) -> (ClientResult?, String?) {
    let url = "\(options.base)/\(row.path)"
    let amount = row.requests.map(String.init) ?? "\(seconds)s"
    let timeout = (row.requests == nil ? seconds : 0) + 120
    if client == "wrk" {
        var arguments = [options.wrk, "-t1", "-c\(row.maxConnections)", "-d\(Int(seconds.rounded(.up)))s"]
        if row.mode == .close { arguments += ["-H", "Connection: close"] }
        guard let outcome = ChildProcess(arguments: arguments + [url], timeout: timeout).run() else {
            return (nil, "wrk could not be started")
        }
        guard outcome.status == 0, let report = WrkReport(parsing: outcome.output) else {
            return (nil, "wrk exited with \(outcome.status): \(outcome.output.suffix(300))")
        }
        return (ClientResult(wrk: report, row: row, usage: outcome.usage), report.errors > 0
                ? "wrk reported \(report.errors) socket errors or non-2xx responses" : nil)
    }
    let program = client == "curl" ? options.curl : "\(options.binaries)/bench-\(client)"
    var arguments = [program, url, "\(row.concurrency)", amount, row.mode.name]
    arguments += ["--max-conns", "\(row.maxConnections)"]
    if let api = options.apis[client] { arguments += ["--api", api] }
    // libcurl reads in FWNetworking's 64 KiB slices on the bulk rows (see curl/bench-curl.c).
    if client == "curl", row.metric == .megabytesPerSecond { arguments += ["--buffer-size", "65536"] }
    guard let outcome = ChildProcess(arguments: arguments, timeout: timeout).run() else {
        return (nil, "\(program) could not be started")
    }
    let result = ClientResult.parse(outcome.output)
    if outcome.timedOut { return (result, "killed after \(Int(timeout)) s") }
    guard let result else { return (nil, "exited with \(outcome.status) and no result") }
    if result.errors > 0 { return (result, "\(result.errors) failed requests, first: \(result.firstError ?? "?")") }
    return (result, outcome.status == 0 ? nil : "exited with \(outcome.status)")
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
log("warm-up: every client, GET 64 B for 0.5 s; the 100 MiB file once")
for client in SuiteRow.allClients {
    _ = run(client, SuiteRow.standard[0], seconds: 0.5)
}
_ = run("curl", SuiteRow(id: "warm", title: "warm", path: "100m.bin", bodySize: 100 << 20, concurrency: 1,
                         requests: 1, mode: .stream, metric: .megabytesPerSecond), seconds: 1)
for row in rows {
    for round in 0..<options.rounds {
        var line = "\(row.id) round \(round + 1)/\(options.rounds) (\(unit(row))):"
        for client in row.clients {
            let (result, problem) = run(client, row, seconds: options.seconds)
            results.record(result, problem: problem, row: row, round: round, client: client)
            let shown = result.map { Format.quantity(SuiteResults.value(of: row, $0)) } ?? "failed"
            line += " \(client) \(shown)"
        }
        log(line)
    }
}
let minutes = Date().timeIntervalSince(started) / 60
var header = ["## Client benchmark: FWNetworking vs libcurl, AsyncHTTPClient, FoundationNetworking, wrk", ""]
header += options.notes.map { "- \($0)" }
header.append("- Closed loops: N requests in flight, each completion starts the next; CPU: the client's getrusage "
              + "over the measured interval (wrk: wait4); peak RSS: the client's ru_maxrss, started from a fresh "
              + "shell; libcurl reads in 64 KiB slices (FWNetworking's read size) on the MB/s rows")
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
