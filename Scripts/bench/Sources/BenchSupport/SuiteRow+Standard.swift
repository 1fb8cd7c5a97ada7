// MARK: - The standard suite

extension SuiteRow {
    /// The clients of the file-transfer rows: there `curl` is the curl tool (`curl -o`, `curl -T`), the
    /// baseline issue 6 names.
    public static let fileClients = ["fw", "curl", "foundation"]

    /// The suite, in the order it runs: HTTP (issue 4), HTTPS (issue 5), file transfers (issue 6).
    public static let standard: [SuiteRow] = httpRows + httpsRows + fileRows

    /// Plain HTTP against the keep-alive server.
    static let httpRows: [SuiteRow] = [
        SuiteRow(id: "small-c1", title: "GET 64 B, keep-alive, c=1", path: "64.bin", bodySize: 64, concurrency: 1,
                 metric: .requestsPerSecond),
        SuiteRow(id: "small-c32", title: "GET 64 B, keep-alive, c=32", path: "64.bin", bodySize: 64, concurrency: 32,
                 metric: .requestsPerSecond),
        SuiteRow(id: "mib-c4", title: "GET 1 MiB, keep-alive, c=4", path: "1m.bin", bodySize: 1 << 20,
                 concurrency: 4, metric: .megabytesPerSecond),
        SuiteRow(id: "big-buffered", title: "GET 100 MiB once, buffered", path: "100m.bin", bodySize: 100 << 20,
                 concurrency: 1, requests: 1, metric: .megabytesPerSecond, clients: libraryClients),
        SuiteRow(id: "big-streamed", title: "GET 100 MiB, streamed, c=1", path: "100m.bin", bodySize: 100 << 20,
                 concurrency: 1, mode: .stream, metric: .megabytesPerSecond),
        SuiteRow(id: "close-c1", title: "GET 64 B, new connection each, c=1", path: "64.bin", bodySize: 64,
                 concurrency: 1, mode: .close, metric: .requestsPerSecond),
        SuiteRow(id: "mem-baseline", title: "baseline: libraries loaded, no request", path: "64.bin", bodySize: 64,
                 concurrency: 1, requests: 1, mode: .idle, metric: .peakRSS, clients: libraryClients),
        SuiteRow(id: "mem-one", title: "one GET 64 B", path: "64.bin", bodySize: 64, concurrency: 1, requests: 1,
                 metric: .peakRSS, clients: libraryClients),
        SuiteRow(id: "mem-queued", title: "1000 GET 64 B queued, limit 8", path: "64.bin", bodySize: 64,
                 concurrency: 1000, maxConnections: 8, requests: 1000, metric: .peakRSS, clients: libraryClients),
    ]

    /// The clients of the full-handshake rows: wrk has no way to turn resumption off (a reconnecting wrk
    /// connection offers its last session, and nginx resumes it).
    public static let fullHandshakeClients = ["fw", "curl", "ahc", "foundation"]

    /// HTTPS: keep-alive rows on the ECDSA server, then a new TLS connection per request on the RSA and
    /// ECDSA servers, full handshakes and resumed.
    static let httpsRows: [SuiteRow] = [
        SuiteRow(id: "https-small-c1", title: "HTTPS GET 64 B, keep-alive, c=1", path: "64.bin", bodySize: 64,
                 concurrency: 1, metric: .requestsPerSecond, server: .https),
        SuiteRow(id: "https-small-c32", title: "HTTPS GET 64 B, keep-alive, c=32", path: "64.bin", bodySize: 64,
                 concurrency: 32, metric: .requestsPerSecond, server: .https),
        SuiteRow(id: "https-mib-c4", title: "HTTPS GET 1 MiB, keep-alive, c=4", path: "1m.bin", bodySize: 1 << 20,
                 concurrency: 4, metric: .megabytesPerSecond, server: .https),
        SuiteRow(id: "https-big-streamed", title: "HTTPS GET 100 MiB, streamed, c=1", path: "100m.bin",
                 bodySize: 100 << 20, concurrency: 1, mode: .stream, metric: .megabytesPerSecond, server: .https),
    ] + [(Server.httpsRSA, "rsa", "RSA 2048"), (.httpsECDSA, "ecdsa", "ECDSA P-256")].flatMap { server, id, key in
        [(false, "full", "full handshake"), (true, "resumed", "resumed session")].map { resumption, suffix, what in
            SuiteRow(id: "https-new-\(id)-\(suffix)", title: "HTTPS GET 64 B, new TLS connection each, \(key), \(what)",
                     path: "64.bin", bodySize: 64, concurrency: 1, mode: .close, metric: .requestsPerSecond,
                     clients: resumption ? allClients : fullHandshakeClients, server: server, tlsResumption: resumption)
        }
    }

    /// One 1 GiB file each way, against the curl tool.
    static let fileRows: [SuiteRow] = [
        SuiteRow(id: "file-download", title: "GET 1 GiB to a file (curl: `curl -o`)", path: "1g.bin",
                 bodySize: 1 << 30, concurrency: 1, requests: 1, mode: .download, metric: .megabytesPerSecond,
                 clients: fileClients),
        SuiteRow(id: "file-upload", title: "PUT 1 GiB from a file (curl: `curl -T`)", path: "1g.bin",
                 bodySize: 1 << 30, concurrency: 1, requests: 1, mode: .upload, metric: .megabytesPerSecond,
                 clients: fileClients),
    ]
}
