import Foundation

// MARK: - ClientResult

/// The one JSON line a client prints: what it did, how fast, and what it cost.
///
/// Keys are snake_case (`requests_per_second`, `cpu_us_per_request`, ...); the C client for libcurl
/// prints the same keys, and the driver decodes every client's line with this type.
public struct ClientResult: Codable, Equatable, Sendable {
    /// The client's name: `fw`, `foundation`, `ahc`, `curl` or `wrk`.
    public var client: String
    /// Which of the client's APIs ran the requests.
    public var api: String
    /// The mode's command-line name.
    public var mode: String
    /// Requests in flight at once.
    public var concurrency: Int
    /// The per-host connection limit.
    public var maxConnections: Int
    /// Requests that succeeded.
    public var requests: Int
    /// Requests that failed.
    public var errors: Int
    /// Body bytes received by the successful requests.
    public var bodyBytes: Int
    /// Seconds from the first request's start to the last completion.
    public var seconds: Double
    /// Successful requests per second.
    public var requestsPerSecond: Double
    /// Body megabytes (10^6 bytes) per second.
    public var megabytesPerSecond: Double
    /// CPU seconds (user + system, all threads) spent while the requests ran.
    public var cpuSeconds: Double
    /// `cpuSeconds` per successful request, in microseconds.
    public var cpuMicrosecondsPerRequest: Double
    /// The process's peak resident set size in KiB (`ru_maxrss`).
    public var peakRSSKiB: Int
    /// The first failure, if any.
    public var firstError: String?
    /// URLSession clients: the completion handlers and delegate messages counted, those whose queue was
    /// checked (one in `CallbackPlacement.checkEvery`), and how many of those ran off the session's delegate
    /// queue (must be 0). Nil for other clients.
    public var callbacks: Int?
    public var checkedCallbacks: Int?
    public var offQueueCallbacks: Int?

    enum CodingKeys: String, CodingKey {
        case client, api, mode, concurrency, requests, errors, seconds
        case maxConnections = "max_conns"
        case bodyBytes = "body_bytes"
        case requestsPerSecond = "requests_per_second"
        case megabytesPerSecond = "mb_per_second"
        case cpuSeconds = "cpu_seconds"
        case cpuMicrosecondsPerRequest = "cpu_us_per_request"
        case peakRSSKiB = "peak_rss_kib"
        case firstError = "first_error"
        case callbacks
        case checkedCallbacks = "checked_callbacks"
        case offQueueCallbacks = "off_queue_callbacks"
    }

    /// Derives the rates from a run's totals and the CPU spent during it.
    public init(client: String, api: String, mode: Mode, concurrency: Int, maxConnections: Int, totals: LoopTotals,
                cpuSeconds: Double, peakRSSKiB: Int) {
        self.client = client
        self.api = api
        self.mode = mode.name
        self.concurrency = concurrency
        self.maxConnections = maxConnections
        self.requests = totals.completed
        self.errors = totals.failed
        self.bodyBytes = totals.bytes
        self.seconds = totals.seconds
        let seconds = max(totals.seconds, 1e-9)
        self.requestsPerSecond = Double(totals.completed) / seconds
        self.megabytesPerSecond = Double(totals.bytes) / seconds / 1_000_000
        self.cpuSeconds = cpuSeconds
        self.cpuMicrosecondsPerRequest = totals.completed > 0 ? cpuSeconds * 1_000_000 / Double(totals.completed) : 0
        self.peakRSSKiB = peakRSSKiB
        self.firstError = totals.firstError
    }

    /// The result as one line of JSON.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self), let line = String(data: data, encoding: .utf8) else {
            return "{\"client\":\"\(client)\",\"first_error\":\"could not encode the result\"}"
        }
        return line
    }

    /// Decodes the last line of `output` that holds a JSON object.
    public static func parse(_ output: String) -> ClientResult? {
        let decoder = JSONDecoder()
        for line in output.split(separator: "\n").reversed() where line.hasPrefix("{") {
            if let result = try? decoder.decode(ClientResult.self, from: Data(line.utf8)) { return result }
        }
        return nil
    }
}

// MARK: - Running a client

/// Measures one client run: CPU from just before the first request to the last completion, the peak
/// RSS of the whole process; prints the JSON line and exits non-zero when any request failed.
public func measure(client: String, api: String, arguments: ClientArguments, run: () -> LoopTotals) -> Never {
    let before = ResourceUsage.current()
    let totals = run()
    report(client: client, api: api, arguments: arguments, totals: totals, before: before)
}

/// `measure` for async APIs.
public func measure(client: String, api: String, arguments: ClientArguments, run: () async -> LoopTotals) async
    -> Never {
    let before = ResourceUsage.current()
    let totals = await run()
    report(client: client, api: api, arguments: arguments, totals: totals, before: before)
}

/// Mode `idle`: reports no request and the peak RSS of a process that has loaded its libraries and parsed
/// its arguments, then exits with status 0.
public func reportIdle(client: String, arguments: ClientArguments) -> Never {
    report(client: client, api: "none", arguments: arguments, totals: LoopTotals(completed: 0, seconds: 0),
           before: ResourceUsage.current())
}

private func report(client: String, api: String, arguments: ClientArguments, totals: LoopTotals,
                    before: ResourceUsage) -> Never {
    let after = ResourceUsage.current()
    let result = ClientResult(client: client, api: api, mode: arguments.mode, concurrency: arguments.concurrency,
                              maxConnections: arguments.maxConnections, totals: totals,
                              cpuSeconds: after.cpuSeconds - before.cpuSeconds, peakRSSKiB: after.peakRSSKiB)
    let placement = CallbackPlacement.shared.counts
    var line = result
    if placement.callbacks > 0 {
        line.callbacks = placement.callbacks
        line.checkedCallbacks = placement.checked
        line.offQueueCallbacks = placement.offQueue
        FileHandle.standardError.write(Data(("bench-\(client): \(placement.offQueue) of \(placement.checked) checked "
            + "callbacks (of \(placement.callbacks)) ran off session.delegateQueue\n").utf8))
    }
    print(line.jsonLine)
    exit(totals.failed == 0 ? 0 : 1)
}

/// Prints `message` to standard error and exits with status 1.
public func fail(_ client: String, _ message: String) -> Never {
    FileHandle.standardError.write(Data("\(client): \(message)\n".utf8))
    exit(1)
}
