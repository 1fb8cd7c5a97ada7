import BenchSupport

// MARK: - SuiteOptions

/// bench-suite's command line (see main.swift for the usage).
struct SuiteOptions {
    /// Base URL per server (`--server https=https://127.0.0.1:PORT`).
    var servers: [SuiteRow.Server: String] = [:]
    var binaries = ""
    var curl = ""
    var curlTool = ""
    var wrk = ""
    /// The CA file HTTPS clients trust (the fixtures' root).
    var caCertificates: String?
    /// The access log of the new-connection HTTPS servers (`$ssl_session_reused` first on each line).
    var sessionLog: String?
    /// nginx's document root: the upload row sends a file from it.
    var documentRoot: String?
    /// Where nginx stores PUT bodies; the suite checks each upload's size there and deletes it.
    var putDirectory: String?
    /// Where downloads go (the clients' TMPDIR on the file rows).
    var scratchDirectory: String?
    var rounds = 5
    var seconds = 2.0
    var rows = SuiteRow.standard
    var output: String?
    var notes: [String] = []
    /// A non-default API per Swift client (`--api fw=async`).
    var apis: [String: String] = [:]

    static let usage = """
        usage: bench-suite --server http=URL [--server https=URL --server https-rsa=URL --server https-ecdsa=URL] \
        --bin DIR --curl PATH --wrk PATH [--curl-tool PATH] [--cacert FILE] [--session-log FILE] \
        [--docroot DIR --put-dir DIR --scratch DIR] [--rounds N] [--seconds S] [--rows id|group,...] \
        [--api CLIENT=NAME]... [--out FILE] [--note LINE]...
        """

    init(_ arguments: [String]) throws(UsageError) {
        var index = 0
        func value() throws(UsageError) -> String {
            guard index + 1 < arguments.count else { throw UsageError("\(arguments[index]) needs a value") }
            index += 1
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--server":
                let pair = try value().split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2, let server = SuiteRow.Server.all.first(where: { $0.name == pair[0] }) else {
                    throw UsageError("--server takes NAME=URL, NAME one of "
                                     + SuiteRow.Server.all.map(\.name).joined(separator: ", "))
                }
                let scheme = server.isTLS ? "https" : "http"
                guard pair[1].hasPrefix("\(scheme)://127.0.0.1:") else {
                    throw UsageError("--server \(server) must be \(scheme)://127.0.0.1:PORT")
                }
                servers[server] = pair[1]
            case "--bin": binaries = try value()
            case "--curl": curl = try value()
            case "--curl-tool": curlTool = try value()
            case "--wrk": wrk = try value()
            case "--cacert": caCertificates = try value()
            case "--session-log": sessionLog = try value()
            case "--docroot": documentRoot = try value()
            case "--put-dir": putDirectory = try value()
            case "--scratch": scratchDirectory = try value()
            case "--rounds": rounds = Int(try value()) ?? 0
            case "--seconds": seconds = Double(try value()) ?? 0
            case "--rows": rows = try SuiteRow.select(try value())
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
        guard !binaries.isEmpty, !curl.isEmpty, !wrk.isEmpty else { throw UsageError("--bin, --curl and --wrk") }
        guard rounds > 0, seconds > 0 else { throw UsageError("--rounds and --seconds must be positive") }
        guard !rows.isEmpty else { throw UsageError("--rows selects no row") }
        try checkRowsCanRun()
    }

    /// Every selected row has its server and, where it needs them, the CA file, the session log and the
    /// file-transfer directories.
    private func checkRowsCanRun() throws(UsageError) {
        for server in Set(rows.map(\.server)) where servers[server] == nil {
            throw UsageError("rows \(rows.filter { $0.server == server }.map(\.id).joined(separator: ",")) "
                             + "need --server \(server)=URL")
        }
        if rows.contains(where: \.server.isTLS), caCertificates == nil {
            throw UsageError("the HTTPS rows need --cacert")
        }
        if rows.contains(where: \.server.logsSessions), sessionLog == nil {
            throw UsageError("the new-connection HTTPS rows need --session-log")
        }
        if rows.contains(where: \.mode.usesFile),
           documentRoot == nil || putDirectory == nil || scratchDirectory == nil || curlTool.isEmpty {
            throw UsageError("the file rows need --docroot, --put-dir, --scratch and --curl-tool")
        }
    }
}
