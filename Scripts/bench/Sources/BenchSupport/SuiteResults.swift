// MARK: - SuiteResults

/// Every client result of a suite run, by row and round, and the medians and ratios the report shows.
///
/// Ratios are computed per round (both clients' results of the same round) and the median of those is
/// reported, so a slow round for both clients does not skew the ratio.
public struct SuiteResults: Sendable {
    /// The rows, in the order they ran.
    public let rows: [SuiteRow]
    /// Per row id: one dictionary per round, client name to result (absent when the run failed).
    public private(set) var samples: [String: [[String: ClientResult]]] = [:]
    /// Runs that failed or reported request errors, in the order they happened.
    public private(set) var problems: [String] = []
    /// Per row id: client name to the reason it cannot run the row ("n/a" in the report).
    public private(set) var notApplicable: [String: [String: String]] = [:]
    /// Per row id: one dictionary per round, client name to what nginx saw of its TLS sessions.
    public private(set) var sessions: [String: [[String: SessionTally]]] = [:]

    /// Creates empty results for `rows`.
    public init(rows: [SuiteRow]) {
        self.rows = rows
    }

    /// Records one client run of `row` in round `round` (0-based): its result when it produced one,
    /// and `problem` when something went wrong (both may be present: a result with request errors).
    public mutating func record(_ result: ClientResult?, problem: String?, row: SuiteRow, round: Int,
                                client: String) {
        var rounds = samples[row.id] ?? []
        while rounds.count <= round { rounds.append([:]) }
        rounds[round][client] = result
        samples[row.id] = rounds
        if let problem { problems.append("\(row.id), round \(round + 1), \(client): \(problem)") }
    }

    /// Records that `client` cannot run `row` (the first reason given is kept).
    public mutating func recordNotApplicable(_ reason: String, row: SuiteRow, client: String) {
        notApplicable[row.id, default: [:]][client] = notApplicable[row.id]?[client] ?? reason
    }

    /// Records what nginx saw of the TLS sessions of one client run.
    public mutating func recordSessions(_ tally: SessionTally, row: SuiteRow, round: Int, client: String) {
        var rounds = sessions[row.id] ?? []
        while rounds.count <= round { rounds.append([:]) }
        rounds[round][client] = tally
        sessions[row.id] = rounds
    }

    /// The tallies of `client` in `row`, summed over rounds; nil when none was recorded.
    public func sessionTotal(_ row: SuiteRow, _ client: String) -> SessionTally? {
        let tallies = (sessions[row.id] ?? []).compactMap { $0[client] }
        guard !tallies.isEmpty else { return nil }
        return SessionTally(resumed: tallies.map(\.resumed).reduce(0, +), total: tallies.map(\.total).reduce(0, +))
    }

    // MARK: Values

    /// The row's own number for a result: requests/s, MB/s or peak RSS in KiB.
    public static func value(of row: SuiteRow, _ result: ClientResult) -> Double {
        switch row.metric {
        case .requestsPerSecond: result.requestsPerSecond
        case .megabytesPerSecond: result.megabytesPerSecond
        case .peakRSS: Double(result.peakRSSKiB)
        }
    }

    /// The median over rounds of `value` for `client` in `row`.
    public func median(_ row: SuiteRow, _ client: String, _ value: (ClientResult) -> Double) -> Double? {
        Statistics.median((samples[row.id] ?? []).compactMap { $0[client].map(value) })
    }

    /// The median over rounds of `value(numerator) / value(denominator)`, using only rounds where both ran.
    public func medianRatio(_ row: SuiteRow, _ numerator: String, over denominator: String,
                            _ value: (ClientResult) -> Double) -> Double? {
        let ratios = (samples[row.id] ?? []).compactMap { round -> Double? in
            guard let top = round[numerator], let bottom = round[denominator] else { return nil }
            let divisor = value(bottom)
            return divisor > 0 ? value(top) / divisor : nil
        }
        return Statistics.median(ratios)
    }

    /// The row with identifier `id`, if it ran.
    public func row(_ id: String) -> SuiteRow? {
        rows.first { $0.id == id }
    }
}
