// MARK: - PinViolationReport

/// What a pin set saw when a server's chain matched none of its pins: the fields of an RFC 7469 §3
/// violation report, plus what was done about it.
///
/// `jsonText` is the report as RFC 7469 POSTs it (its keys, its formats: RFC 3339 times, PEM chains,
/// `pin-sha256="BASE64"` pins), with one FWNetworking key, `fw-disposition`.
public struct PinViolationReport: Sendable, Hashable {
    /// What happened to the connection.
    public struct Disposition: Sendable, Hashable, CustomStringConvertible {
        /// "enforced", "report-only" or "expired".
        public let name: String
        /// The set was enforced: the connection was refused.
        public static let enforced = Disposition(name: "enforced")
        /// The set is report-only: the connection proceeded.
        public static let reportOnly = Disposition(name: "report-only")
        /// The set had expired: reported, not enforced; the connection proceeded.
        public static let expired = Disposition(name: "expired")
        /// The name.
        public var description: String { name }
    }

    /// When the violation was seen, in seconds since 1970 (the evaluation time).
    public let time: Int64
    /// The host the client connected to.
    public let hostname: String
    /// The port it connected to (0 when unknown).
    public let port: Int
    /// The host of the pin set that applied (RFC 7469's noted-hostname).
    public let notedHostname: String
    /// The set's expiration time, if it has one.
    public let effectiveExpirationTime: Int64?
    /// Whether the set covers subdomains.
    public let includesSubdomains: Bool
    /// The chain the server sent, leaf first.
    public let servedCertificateChain: [Certificate]
    /// The chain the verification built, leaf to anchor (empty when verification was not asked for).
    public let validatedCertificateChain: [Certificate]
    /// The set's pins, `sha256//BASE64`.
    public let knownPins: [String]
    /// Refused, or let through (report-only, expired).
    public let disposition: Disposition
    /// The set's report URI, if any.
    public let reportURI: String?

    /// A report of `trust` against `pinSet`, the verified chain being `validatedChain`.
    public init(trust: ServerTrust, pinSet: PinSet, validatedChain: [Certificate]) {
        time = trust.effectiveTime
        hostname = trust.host
        port = trust.port ?? 0
        notedHostname = pinSet.host
        effectiveExpirationTime = pinSet.expirationTime
        includesSubdomains = pinSet.includesSubdomains
        servedCertificateChain = trust.certificateChain
        validatedCertificateChain = validatedChain
        knownPins = pinSet.pinStrings
        reportURI = pinSet.reportURI
        if pinSet.isExpired(at: time) {
            disposition = .expired
        } else {
            disposition = pinSet.mode == .enforce ? .enforced : .reportOnly
        }
    }

    /// Whether the connection was refused.
    public var isEnforced: Bool { disposition == .enforced }

    /// What identifies the same violation again (host, port, noted host, served keys, pins): reporters
    /// send a report once per key.
    public var deduplicationKey: String {
        ([hostname, String(port), notedHostname] + servedCertificateChain.map(\.spkiPin) + knownPins)
            .joined(separator: "|")
    }

    /// The report as RFC 7469 §3 JSON, on one line.
    public var jsonText: String {
        var fields: [(String, String)] = [
            ("date-time", JSONText.string(RFC3339.format(time))),
            ("hostname", JSONText.string(hostname)),
            ("port", String(port)),
        ]
        if let effectiveExpirationTime {
            fields.append(("effective-expiration-date", JSONText.string(RFC3339.format(effectiveExpirationTime))))
        }
        fields += [
            ("include-subdomains", includesSubdomains ? "true" : "false"),
            ("noted-hostname", JSONText.string(notedHostname)),
            ("served-certificate-chain", JSONText.array(servedCertificateChain.map { JSONText.string($0.pemText) })),
            ("validated-certificate-chain",
             JSONText.array(validatedCertificateChain.map { JSONText.string($0.pemText) })),
            ("known-pins", JSONText.array(knownPins.map { JSONText.string(Self.rfc7469Pin($0)) })),
            ("fw-disposition", JSONText.string(disposition.name)),
        ]
        return "{" + fields.map { JSONText.string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// `sha256//BASE64` as RFC 7469 writes it: `pin-sha256="BASE64"`.
    static func rfc7469Pin(_ pin: String) -> String {
        "pin-sha256=\"" + pin.dropFirst("sha256//".count) + "\""
    }
}

// MARK: - PEM

extension Certificate {
    /// The certificate as PEM text (`-----BEGIN CERTIFICATE-----`, base64 in lines of 64).
    public var pemText: String {
        let base64 = Array(Base64.encode(derBytes))
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var start = 0
        while start < base64.count {
            let end = min(start + 64, base64.count)
            lines.append(String(base64[start..<end]))
            start = end
        }
        lines.append("-----END CERTIFICATE-----")
        return lines.joined(separator: "\n") + "\n"
    }
}

// MARK: - Text helpers

/// JSON text for the few shapes a report has (FWTLS has no Foundation).
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }
}

/// RFC 3339 UTC times from seconds since 1970 (the civil-from-days algorithm).
enum RFC3339 {
    static func format(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60))"
            + ":\(two(secondOfDay % 60))Z"
    }
}
