import Foundation
import FWNetworking

// MARK: - TLSPolicy

/// `-k`, `--pinnedpubkey`, `--show-chain`, `--cert`/`--key` and the pinning-lab flags (`--pin-report-only`,
/// `--pin-report`, `--show-pins`, `--crlfile`, `--cert-status`) as answers to a task's connection-level
/// challenges. As with curl, a pin is checked in addition to the normal verification unless `-k` turns
/// that off; the pins match the leaf's public key, on every connection (every redirect hop too). The
/// checks run in this order, the first refusal wins: the CRLs (exit 60), the stapled OCSP response
/// (exit 91), Certificate Transparency (exit 60), the pins (exit 90; with `--pin-report-only` reported,
/// not refused).
final class TLSPolicy: Sendable {
    private let insecure: Bool
    private let pins: [String]?
    private let showChain: Bool
    private let identity: SecIdentity?
    private let pinning: PinningOptions
    private let revocationLists: CertificateRevocationLists?
    private let reportSink: PinReportSink?
    private let transparencyLogs: CertificateTransparencyLogs?

    init(insecure: Bool, pins: [String]?, showChain: Bool, identity: SecIdentity?,
         pinning: PinningOptions = PinningOptions(), revocationLists: CertificateRevocationLists? = nil,
         transparencyLogs: CertificateTransparencyLogs? = nil) {
        self.transparencyLogs = transparencyLogs
        self.insecure = insecure
        self.pins = pins
        self.showChain = showChain
        self.identity = identity
        self.pinning = pinning
        self.revocationLists = revocationLists
        self.reportSink = pinning.reportFile.map(PinReportSink.init(path:))
    }

    /// How the server's certificate is judged: "insecure" with `-k` (pins still apply), "pinned" with
    /// `--pinnedpubkey` (after the normal verification), "pin-report-only" with `--pin-report-only`, else
    /// "default".
    var trustMode: String {
        if insecure { return "insecure" }
        if pins == nil { return "default" }
        return pinning.reportOnly ? "pin-report-only" : "pinned"
    }

    /// Why the policy refused a server, and curl's exit code for it.
    struct Rejection: Sendable {
        /// The reason, for people.
        var reason: String
        /// 60 revoked (CRL) or too few SCTs, 91 failed `--cert-status`, 90 pin mismatch.
        var exitCode: Int32
    }

    /// What the policy found about a server: a refusal, or the Certificate Transparency result.
    enum Finding: Sendable {
        case rejected(Rejection)
        case transparency(CertificateTransparencyResult)
    }

    /// The answer to `challenge`. `found` hears why a server was refused here, and what `--require-ct`
    /// found.
    func answer(_ challenge: URLAuthenticationChallenge, found: (Finding) -> Void)
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        switch space.authenticationMethod {
        case NSURLAuthenticationMethodClientCertificate:
            guard let identity else { return (.performDefaultHandling, nil) }
            return (.useCredential, URLCredential(identity: identity, certificates: nil, persistence: .forSession))
        case NSURLAuthenticationMethodServerTrust:
            guard let trust = space.serverTrust else { return (.performDefaultHandling, nil) }
            let serverTrust = trust.serverTrust
            if showChain { Self.print(serverTrust.certificateChain, host: space.host) }
            if pinning.showPins { Self.printPins(serverTrust.certificateChain, host: space.host) }
            if let rejection = check(serverTrust, found: found) {
                Terminal.error("fwcurl: \(rejection.reason)")
                found(.rejected(rejection))
                trust.rejectionReason = rejection.exitCode == 90
                    ? .pinMismatch(reason: rejection.reason) : .untrusted(reason: rejection.reason)
                // A refusal, not a cancellation: the session fails the task with serverCertificateUntrusted
                // and this reason.
                return (.rejectProtectionSpace, nil)
            }
            return insecure ? (.useCredential, URLCredential(trust: trust)) : (.performDefaultHandling, nil)
        default:
            return (.performDefaultHandling, nil)
        }
    }

    /// The first refusal of the CRLs, the staple and the pins, in that order; nil when all pass. A chain
    /// that does not verify is left to the default handling (exit 60), unless `-k`.
    private func check(_ trust: ServerTrust, found: (Finding) -> Void) -> Rejection? {
        if !insecure, let revocationLists {
            do throws(TrustError) {
                try RevocationListTrustEvaluator(revocationLists: revocationLists, validateHost: false).evaluate(trust)
            } catch where error.isRevoked || (try? trust.verifiedChain()) != nil {
                return Rejection(reason: "--crlfile: \(error.reason)", exitCode: 60)
            } catch {}
        }
        if pinning.certStatus {
            do throws(TrustError) {
                try RevocationTrustEvaluator(
                    performDefaultValidation: false, validateHost: false, requiresStapledResponse: true
                ).evaluate(trust)
            } catch {
                return Rejection(reason: "--cert-status: \(error.reason)", exitCode: 91)
            }
        }
        if let transparencyLogs {
            let result = CertificateTransparencyPolicy(logs: transparencyLogs, minimumLogs: pinning.ctMinimumLogs)
                .evaluate(trust)
            found(.transparency(result))
            if !result.isPolicyMet {
                return Rejection(reason: "--require-ct: valid SCTs from \(result.validLogCount) distinct logs of the "
                    + "list, \(result.minimumLogs) required (\(result.timestamps.count) SCTs presented)", exitCode: 60)
            }
        }
        guard let pins else { return nil }
        let set: PinSet
        do throws(TrustError) {
            set = try PinSet(host: trust.host, pins: pins, scope: .leaf,
                             mode: pinning.reportOnly ? .reportOnly : .enforce, allowsSinglePin: true)
        } catch {
            return Rejection(reason: "--pinnedpubkey: \(error.reason)", exitCode: 90)
        }
        let verified = insecure ? nil : try? trust.verifiedChain()
        let evaluator = PinSetTrustEvaluator(pinSets: [set])
        guard let report = evaluator.violation(of: trust, chain: verified ?? trust.certificateChain,
                                               validated: verified != nil) else { return nil }
        reportSink?.write(report)
        let found = trust.certificateChain.first?.spkiPin ?? "missing"
        if !report.isEnforced {
            Terminal.error("fwcurl: the server's public key matches no --pinnedpubkey pin (it is \(found)); "
                + "reported only (--pin-report-only)")
            return nil
        }
        return Rejection(reason: "the server's public key matches no --pinnedpubkey pin (it is \(found))",
                         exitCode: 90)
    }

    private static func printPins(_ chain: [Certificate], host: String) {
        var lines = ["* Pins of the chain \(host) served:"]
        for (index, certificate) in chain.enumerated() {
            lines.append("*  \(index) \(certificate.spkiPin) \(certificate.subjectText)")
        }
        Terminal.error(lines.joined(separator: "\n"))
    }

    private static func print(_ chain: [Certificate], host: String) {
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd"
        format.timeZone = TimeZone(identifier: "UTC")
        func day(_ seconds: Int64) -> String { format.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) }
        var lines = ["* Certificate chain of \(host):"]
        for (index, certificate) in chain.enumerated() {
            lines.append("*  \(index) subject: \(certificate.subjectText)")
            lines.append("*    issuer: \(certificate.issuerText)")
            lines.append("*    valid: \(day(certificate.notBefore)) to \(day(certificate.notAfter))")
            lines.append("*    pin: \(certificate.spkiPin)")
        }
        Terminal.error(lines.joined(separator: "\n"))
    }
}

// MARK: - Client identity

extension TLSPolicy {
    /// Why `--cert` / `--key` could not be used.
    struct IdentityError: Error, CustomStringConvertible {
        var description: String
    }

    /// The identity of `--cert FILE[:PASSWORD]` (PEM, or PKCS#12 for .p12 / .pfx files, read with
    /// `SecPKCS12Import` as Apple code does) and `--key FILE` (PEM; default: the `--cert` file).
    static func identity(certificate path: String, password: String?, key: String?) throws(IdentityError)
        -> SecIdentity {
        let lowered = path.lowercased()
        guard lowered.hasSuffix(".p12") || lowered.hasSuffix(".pfx") else {
            do {
                return SecIdentity(tlsIdentity: try TLSIdentity(certificateChainPEMFile: path,
                                                                privateKeyPEMFile: key ?? path, password: password))
            } catch {
                throw IdentityError(description: "cannot use \(path) and \(key ?? path): \(error)")
            }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw IdentityError(description: "cannot read \(path)")
        }
        var items: CFArray?
        let options = [kSecImportExportPassphrase as String: password ?? ""] as CFDictionary
        let status = SecPKCS12Import(data as CFData, options, &items)
        guard status == errSecSuccess,
              let item = (items as? [[String: Any]])?.first,
              let identity = item[kSecImportItemIdentity as String] as? SecIdentity
        else {
            let why = status == errSecAuthFailed ? "wrong password" : "not a PKCS#12 identity (OSStatus \(status))"
            throw IdentityError(description: "cannot use \(path): \(why)")
        }
        return identity
    }
}
