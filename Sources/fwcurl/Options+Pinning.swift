import Foundation
import FWNetworking

// MARK: - Pinning-lab options
//
//   --pin-report-only    with --pinnedpubkey: a key that matches no pin is reported, the transfer goes on
//                        (exit 0); without it a mismatch refuses the server (exit 90)
//   --pin-report FILE|-  write each pin violation report (RFC 7469 §3 JSON, one line each) to FILE
//                        (appended) or standard output
//   --show-pins          print every certificate of the served chain with its subject and SPKI pin
//   --crlfile FILE       check the server's certificate against the CRLs in FILE (PEM or DER); a revoked
//                        or uncovered leaf fails (exit 60), as curl's --crlfile does
//   --crl-fetch          fetch the CRLs the leaf's distribution points name (http:// only; through the
//                        http proxy, as any plain request) and refuse a revoked leaf (exit 60); a fetch
//                        that fails goes on with a warning (soft-fail). curl has no such flag
//   --crl-fetch-hard-fail  --crl-fetch, and a leaf no fetched list covers fails (exit 60)
//   --crl-max-size N     the largest CRL --crl-fetch accepts, in bytes (k, M suffixes; default 1M)
//   --cert-status        ask for a stapled OCSP response and require a good one (curl's name): a missing,
//                        unusable or revoked staple fails with exit 91
//   --ct-log-list FILE   ask for Certificate Transparency SCTs and validate them against the log list
//                        FILE (OpenSSL's format); what was found is in --json's `tls.ct`
//   --require-ct         with --ct-log-list FILE: also require valid SCTs from at least --ct-min-logs N
//                        distinct logs of the list (default 2); fewer: exit 60

/// What the pinning-lab flags ask for.
struct PinningOptions: Sendable {
    /// `--pin-report-only`.
    var reportOnly = false
    /// `--pin-report FILE|-`.
    var reportFile: String?
    /// `--show-pins`.
    var showPins = false
    /// `--crlfile FILE`.
    var crlFile: String?
    /// `--crl-fetch` (soft-fail) or `--crl-fetch-hard-fail`; nil without either.
    var crlFetch: RevocationListFetching.FailurePolicy?
    /// `--crl-max-size N`.
    var crlMaximumSize = 1 << 20
    /// `--cert-status`.
    var certStatus = false
    /// `--require-ct`.
    var requireCT = false
    /// `--ct-log-list FILE`.
    var ctLogList: String?
    /// `--ct-min-logs N`.
    var ctMinimumLogs = 2
}

extension Options {
    /// Parses a pinning-lab flag into `pinning`; false when `argument` is none of them.
    mutating func parsePinning(_ argument: String, value: (String) throws(UsageError) -> String)
        throws(UsageError) -> Bool {
        switch argument {
        case "--pin-report-only":
            pinning.reportOnly = true
        case "--pin-report":
            pinning.reportFile = try value(argument)
        case "--show-pins":
            pinning.showPins = true
        case "--crlfile":
            pinning.crlFile = try value(argument)
        case "--crl-fetch":
            pinning.crlFetch = pinning.crlFetch ?? .softFail
        case "--crl-fetch-hard-fail":
            pinning.crlFetch = .hardFail
        case "--crl-max-size":
            let text = try value(argument)
            let multipliers: [Character: Int] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20]
            let multiplier = text.last.flatMap { multipliers[$0] }
            guard let number = Int(multiplier == nil ? text : String(text.dropLast())), number >= 1,
                  number <= Int(Int32.max) / (multiplier ?? 1) else {
                throw UsageError(description: "--crl-max-size needs a size in bytes (k, M suffixes), not '\(text)'")
            }
            pinning.crlMaximumSize = number * (multiplier ?? 1)
        case "--cert-status":
            pinning.certStatus = true
        case "--require-ct":
            pinning.requireCT = true
        case "--ct-log-list":
            pinning.ctLogList = try value(argument)
        case "--ct-min-logs":
            let text = try value(argument)
            guard let count = Int(text), count >= 1 else {
                throw UsageError(description: "--ct-min-logs needs a number of logs (1 or more), not '\(text)'")
            }
            pinning.ctMinimumLogs = count
        default:
            return false
        }
        return true
    }

    /// The combinations the pinning flags cannot express, and the files they name.
    func validatePinning() throws(UsageError) {
        if pinning.reportOnly, pinnedPublicKeys == nil {
            throw UsageError(description: "--pin-report-only needs --pinnedpubkey")
        }
        if pinning.requireCT, pinning.ctLogList == nil {
            throw UsageError(description: "--require-ct needs --ct-log-list FILE")
        }
        if let file = pinning.crlFile, !FileManager.default.isReadableFile(atPath: file) {
            throw UsageError(description: "--crlfile: cannot read \(file)")
        }
    }

    /// What `--crl-fetch` asks of the session, nil without it (or with `-k`, which checks no chain, as
    /// `--crlfile` does not either): a failed fetch is said on stderr, and with `--crl-fetch-hard-fail` it
    /// refuses a leaf it leaves uncovered.
    var revocationListFetching: RevocationListFetching? {
        guard let policy = pinning.crlFetch, !insecure else { return nil }
        return RevocationListFetching(failurePolicy: policy, maximumSize: pinning.crlMaximumSize) { failure in
            Terminal.error("fwcurl: --crl-fetch: \(failure)"
                + (policy == .hardFail ? "" : "; going on without that list (soft-fail)"))
        }
    }

    /// The logs of `--ct-log-list`, nil without it; a usage error when the file is not a log list.
    func transparencyLogs() throws(UsageError) -> CertificateTransparencyLogs? {
        guard let file = pinning.ctLogList else { return nil }
        do throws(TLSError) {
            return try CertificateTransparencyLogs(file: file)
        } catch {
            throw UsageError(description: "--ct-log-list: \(error.reason)")
        }
    }

    /// The lists of `--crlfile`, nil without it; a usage error when the file holds no CRL.
    func revocationLists() throws(UsageError) -> CertificateRevocationLists? {
        guard let file = pinning.crlFile else { return nil }
        do throws(TLSError) {
            return try CertificateRevocationLists(file: file)
        } catch {
            throw UsageError(description: "--crlfile: \(error.reason)")
        }
    }
}

// MARK: - PinReportSink

/// Where `--pin-report` writes: one JSON line per report, to standard output ("-") or appended to a file.
final class PinReportSink: Sendable {
    private let path: String

    init(path: String) {
        self.path = path
    }

    /// Writes `report` as one line; a file that cannot be written is said once per report on stderr.
    func write(_ report: PinViolationReport) {
        let line = Data((report.jsonText + "\n").utf8)
        if path == "-" {
            FileHandle.standardOutput.write(line)
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil) // a failure shows just below
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            Terminal.error("fwcurl: --pin-report: cannot write \(path)")
            return
        }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: line)
    }
}
