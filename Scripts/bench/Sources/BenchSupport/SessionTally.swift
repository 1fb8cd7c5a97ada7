// MARK: - SessionTally

/// How many of a client run's HTTPS requests came on a resumed TLS session, as nginx saw them.
///
/// The new-connection HTTPS servers log `$ssl_session_reused $ssl_protocol $ssl_cipher` per request
/// (`r` or `.` first); the suite reads the lines each client run added. With one request per
/// connection, a line is a handshake. The count is how the suite knows a "full handshake" row did no
/// resumption and a "resumed" row really resumed, whatever the client believes it asked for.
public struct SessionTally: Equatable, Sendable {
    /// Requests on a resumed session.
    public var resumed: Int
    /// Requests logged.
    public var total: Int

    /// Creates a tally from its counts.
    public init(resumed: Int, total: Int) {
        self.resumed = resumed
        self.total = total
    }

    /// Counts the access-log lines in `log` (blank lines are ignored).
    public init(log: String) {
        var resumed = 0
        var total = 0
        for line in log.split(separator: "\n") {
            guard let flag = line.split(separator: " ").first else { continue }
            total += 1
            if flag == "r" { resumed += 1 }
        }
        self.init(resumed: resumed, total: total)
    }

    /// The resumed share as a percentage, e.g. `100 %`; `–` when nothing was logged.
    public var percentage: String {
        guard total > 0 else { return "–" }
        return "\(Int((Double(resumed) * 100 / Double(total)).rounded())) %"
    }

    /// Why the tally contradicts the row, or nil when it matches: a row that forbids resumption allows at
    /// most 5 % resumed sessions (a stray line of the previous run), one that requires it at least 90 %
    /// (a client's first connection is a full handshake).
    public func mismatch(expectingResumption: Bool) -> String? {
        guard total > 0 else { return "nginx logged no request" }
        if expectingResumption, resumed * 10 < total * 9 {
            return "does not resume TLS sessions: nginx saw \(resumed) resumed of \(total)"
        }
        if !expectingResumption, resumed * 20 > total {
            return "resumed TLS sessions where full handshakes were asked: nginx saw \(resumed) of \(total)"
        }
        return nil
    }
}
