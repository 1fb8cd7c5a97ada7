// MARK: - SuiteRow

/// One row of the suite: what every client fetches, how, and which number the row is about.
public struct SuiteRow: Equatable, Sendable {
    /// The number a row compares.
    public enum Metric: Equatable, Sendable {
        /// Successful requests per second.
        case requestsPerSecond
        /// Body megabytes per second.
        case megabytesPerSecond
        /// Peak resident set size.
        case peakRSS
    }

    /// A short identifier (`--rows` takes a list of them).
    public var id: String
    /// The row's name in the table.
    public var title: String
    /// The file fetched from the server's document root.
    public var path: String
    /// Its size in bytes.
    public var bodySize: Int
    /// Requests in flight at once.
    public var concurrency: Int
    /// The per-host connection limit (and wrk's connection count).
    public var maxConnections: Int
    /// Requests per client run; nil: the round's duration (`Amount.seconds`).
    public var requests: Int?
    /// What each client does with a response.
    public var mode: Mode
    /// The number the row compares.
    public var metric: Metric
    /// The clients that run the row, in interleaving order.
    public var clients: [String]

    /// Creates a row.
    public init(id: String, title: String, path: String, bodySize: Int, concurrency: Int, maxConnections: Int? = nil,
                requests: Int? = nil, mode: Mode = .get, metric: Metric, clients: [String] = SuiteRow.allClients) {
        self.id = id
        self.title = title
        self.path = path
        self.bodySize = bodySize
        self.concurrency = concurrency
        self.maxConnections = maxConnections ?? concurrency
        self.requests = requests
        self.mode = mode
        self.metric = metric
        self.clients = clients
    }

    /// Every client, in interleaving order.
    public static let allClients = ["fw", "curl", "ahc", "foundation", "wrk"]
    /// The clients whose memory use means something (wrk keeps no bodies and queues nothing).
    public static let libraryClients = ["fw", "curl", "ahc", "foundation"]

    /// The suite, in the order it runs.
    public static let standard: [SuiteRow] = [
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
        SuiteRow(id: "mem-one", title: "one GET 64 B", path: "64.bin", bodySize: 64, concurrency: 1, requests: 1,
                 metric: .peakRSS, clients: libraryClients),
        SuiteRow(id: "mem-queued", title: "1000 GET 64 B queued, limit 8", path: "64.bin", bodySize: 64,
                 concurrency: 1000, maxConnections: 8, requests: 1000, metric: .peakRSS, clients: libraryClients),
    ]
}
