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

    /// Which nginx server a row talks to. A struct with static members: new servers may be added.
    public struct Server: Hashable, Sendable, CustomStringConvertible {
        /// The name `bench-suite --server NAME=URL` gives it.
        public let name: String

        /// Plain HTTP (also the PUT target of the upload row).
        public static let http = Server(name: "http")
        /// HTTPS for keep-alive rows: the ECDSA leaf, no access log.
        public static let https = Server(name: "https")
        /// HTTPS for new-connection rows with the RSA leaf; logs `$ssl_session_reused` per request.
        public static let httpsRSA = Server(name: "https-rsa")
        /// HTTPS for new-connection rows with the ECDSA leaf; logs `$ssl_session_reused` per request.
        public static let httpsECDSA = Server(name: "https-ecdsa")

        /// Every server, in command-line order.
        public static let all: [Server] = [.http, .https, .httpsRSA, .httpsECDSA]

        /// True for the servers that speak TLS.
        public var isTLS: Bool { self != .http }
        /// True for the servers whose access log tells resumed sessions from full handshakes.
        public var logsSessions: Bool { self == .httpsRSA || self == .httpsECDSA }

        /// The server's name.
        public var description: String { name }
    }

    /// A short identifier (`--rows` takes a list of them, or of groups).
    public var id: String
    /// The row's name in the table.
    public var title: String
    /// The file fetched from the server's document root (mode `upload`: the file sent, PUT to
    /// `put/` + path).
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
    /// The server the row talks to.
    public var server: Server
    /// New-connection HTTPS rows: whether every connection after the first must resume the TLS session
    /// (true) or do a full handshake (false); nil elsewhere.
    public var tlsResumption: Bool?

    /// Creates a row.
    public init(id: String, title: String, path: String, bodySize: Int, concurrency: Int, maxConnections: Int? = nil,
                requests: Int? = nil, mode: Mode = .get, metric: Metric, clients: [String] = SuiteRow.allClients,
                server: Server = .http, tlsResumption: Bool? = nil) {
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
        self.server = server
        self.tlsResumption = tlsResumption
    }

    /// The group `--rows` can name instead of single rows: `http`, `https` or `files`.
    public var group: String {
        if mode.usesFile { return "files" }
        return server.isTLS ? "https" : "http"
    }

    /// Every group, in the order the suite runs them.
    public static let groups = ["http", "https", "files"]

    /// The rows `--rows` selects: ids and group names, comma-separated (`all`: every row); the error
    /// names what matched nothing.
    public static func select(_ list: String) throws(UsageError) -> [SuiteRow] {
        let names = Set(list.split(separator: ",").map(String.init))
        if names.contains("all") { return standard }
        let unknown = names.filter { name in !groups.contains(name) && !standard.contains { $0.id == name } }
        guard unknown.isEmpty else {
            throw UsageError("unknown rows \(unknown.sorted().joined(separator: ", ")); groups: "
                             + (groups + ["all"]).joined(separator: ", ") + "; rows: "
                             + standard.map(\.id).joined(separator: ", "))
        }
        return standard.filter { names.contains($0.id) || names.contains($0.group) }
    }

    /// Every client, in interleaving order.
    public static let allClients = ["fw", "curl", "ahc", "foundation", "wrk"]
    /// The clients whose memory use means something (wrk keeps no bodies and queues nothing).
    public static let libraryClients = ["fw", "curl", "ahc", "foundation"]
}
