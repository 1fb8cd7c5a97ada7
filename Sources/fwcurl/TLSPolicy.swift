import Foundation
import FWNetworking

// MARK: - TLSPolicy

/// `-k`, `--pinnedpubkey`, `--show-chain` and `--cert`/`--key` as answers to a task's connection-level
/// challenges. As with curl, a pin is checked in addition to the normal verification unless `-k` turns
/// that off; the pins match the leaf's public key, on every connection (every redirect hop too).
final class TLSPolicy: Sendable {
    private let insecure: Bool
    private let pins: [String]?
    private let showChain: Bool
    private let identity: SecIdentity?

    init(insecure: Bool, pins: [String]?, showChain: Bool, identity: SecIdentity?) {
        self.insecure = insecure
        self.pins = pins
        self.showChain = showChain
        self.identity = identity
    }

    /// How the server's certificate is judged: "insecure" with `-k` (pins still apply), "pinned" with
    /// `--pinnedpubkey` (after the normal verification), else "default".
    var trustMode: String {
        if insecure { return "insecure" }
        return pins == nil ? "default" : "pinned"
    }

    /// The answer to `challenge`. `rejected` hears why a server was refused here (a pin mismatch).
    func answer(_ challenge: URLAuthenticationChallenge, rejected: (String) -> Void)
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        switch space.authenticationMethod {
        case NSURLAuthenticationMethodClientCertificate:
            guard let identity else { return (.performDefaultHandling, nil) }
            return (.useCredential, URLCredential(identity: identity, certificates: nil, persistence: .forSession))
        case NSURLAuthenticationMethodServerTrust:
            guard let trust = space.serverTrust else { return (.performDefaultHandling, nil) }
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate] ?? []).map(\.certificate)
            if showChain { Self.print(chain, host: space.host) }
            if let pins, !pins.contains(chain.first?.spkiPin ?? "") {
                let reason = "the server's public key matches no --pinnedpubkey pin "
                    + "(it is \(chain.first?.spkiPin ?? "missing"))"
                Terminal.error("fwcurl: \(reason)")
                rejected(reason)
                trust.rejectionReason = .pinMismatch(reason: reason)
                // A refusal, not a cancellation: the session fails the task with serverCertificateUntrusted
                // and this reason.
                return (.rejectProtectionSpace, nil)
            }
            return insecure ? (.useCredential, URLCredential(trust: trust)) : (.performDefaultHandling, nil)
        default:
            return (.performDefaultHandling, nil)
        }
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
