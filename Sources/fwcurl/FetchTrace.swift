import Foundation
import FWNetworking

// MARK: - FetchTrace

/// What one URL's task reports beyond its body, printed at once for `-v` and `--trace-ascii`; also the
/// `TLSPolicy` answer to its connection-level challenges, and the TLS outcome of its metrics (which
/// `Transfer` keeps for `--json`). `Transfer` (the task's delegate) hands each message here: composed
/// rather than inherited, because a subclass cannot take over a protocol requirement that its base class
/// got from a protocol extension's default (the base class's conformance fixes the witness), so a
/// data-delegate subclass of a trace delegate would silently miss messages such as `didCompleteWithError`.
/// It keeps no state of its own: what the transfer learns lives in the `Transfer`.
final class FetchTrace: Sendable {
    private let verbose: Bool
    private let traceLog: TraceLog?
    private let policy: TLSPolicy
    /// `--trace-json`'s output.
    private let eventLog: JSONTraceLog?

    init(verbose: Bool, traceLog: TraceLog?, policy: TLSPolicy, eventLog: JSONTraceLog? = nil) {
        self.verbose = verbose
        self.traceLog = traceLog
        self.policy = policy
        self.eventLog = eventLog
    }

    /// Whether `--trace-json` writes an event trace (only then does it name each chunk of a chunked body).
    var writesEventTrace: Bool { eventLog != nil }

    /// The policy's trust mode ("default", "pinned", "insecure").
    var trustMode: String { policy.trustMode }

    // MARK: Challenges and metrics

    /// The answer to a connection-level challenge (server trust, client certificate); `rejected` hears
    /// why the policy refused a server (a pin mismatch, a revoked leaf, a failed `--cert-status`).
    func answer(_ challenge: URLAuthenticationChallenge, found: (TLSPolicy.Finding) -> Void)
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        policy.answer(challenge, found: found)
    }

    /// The last transaction's TLS outcome (printed for `-v`); nil for plain HTTP.
    func collected(_ metrics: URLSessionTaskMetrics) -> TLSSummary? {
        guard let summary = metrics.transactionMetrics.last.flatMap(TLSSummary.init) else { return nil }
        guard verbose else { return summary }
        var lines = ["* SSL connection using \(summary.version) / \(summary.cipher)"]
        lines.append("* ALPN: \(summary.alpn.map { "server accepted \($0)" } ?? "server did not agree on a protocol")")
        if summary.resumed { lines.append("* SSL session resumed") }
        lines.append("* Server certificate: \(TLSSummary.describe(trustMode: policy.trustMode))")
        Terminal.error(lines.joined(separator: "\n"))
        return summary
    }

    // MARK: Trace

    func connected(to remoteAddress: String?, reused: Bool) {
        let line = "\(reused ? "Re-using connection to" : "Connected to") \(remoteAddress ?? "?")"
        traceLog?.info(line)
        if verbose { Terminal.error("* " + line) }
    }

    func wrote(_ bytes: Data) {
        traceLog?.dump("=> Send data", bytes)
    }

    func read(_ bytes: Data) {
        traceLog?.dump("<= Recv data", bytes)
    }

    func emitted(_ event: URLSessionTaskTraceEvent) {
        eventLog?.write(event)
    }

    func sentRequestHead(_ head: Data) {
        if verbose { Terminal.error(Self.lines(of: head, prefix: "> ")) }
    }

    func receivedResponseHead(_ head: Data) {
        if verbose { Terminal.error(Self.lines(of: head, prefix: "< ")) }
    }

    /// Head bytes as text lines (ISO-8859-1), each with `prefix`, without the final empty line.
    private static func lines(of head: Data, prefix: String) -> String {
        let text = String(head.map { Character(Unicode.Scalar($0)) })
        return text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { prefix + $0 }.joined(separator: "\n")
    }
}

// MARK: - TLSSummary

/// What a TLS connection negotiated, from a transaction's metrics.
struct TLSSummary {
    /// "TLSv1.2", "TLSv1.3".
    var version: String
    /// OpenSSL's name of the cipher suite, as curl prints it.
    var cipher: String
    /// The suite's IANA number, when `tls_ciphersuite_t` has a case for it.
    var cipherID: UInt16?
    var resumed: Bool
    var alpn: String?

    /// nil for a transaction that did not use TLS.
    init?(_ metrics: URLSessionTaskTransactionMetrics) {
        guard let version = metrics.negotiatedTLSProtocolVersion,
              let cipher = metrics.fwNegotiatedTLSCipherSuiteName else { return nil }
        switch version {
        case .TLSv10: self.version = "TLSv1"
        case .TLSv11: self.version = "TLSv1.1"
        case .TLSv12: self.version = "TLSv1.2"
        case .TLSv13: self.version = "TLSv1.3"
        case .DTLSv10: self.version = "DTLSv1"
        case .DTLSv12: self.version = "DTLSv1.2"
        }
        self.cipher = cipher
        self.cipherID = metrics.negotiatedTLSCipherSuite?.rawValue
        self.resumed = metrics.fwIsTLSSessionResumed
        self.alpn = metrics.fwNegotiatedALPNProtocol
    }

    /// The `-v` wording of a trust mode that let the connection through.
    static func describe(trustMode: String) -> String {
        switch trustMode {
        case "insecure": "NOT verified (--insecure)"
        case "pinned": "verified, public key pinned (--pinnedpubkey)"
        case "pin-report-only": "verified, public key pins reported only (--pin-report-only)"
        default: "verified"
        }
    }
}
