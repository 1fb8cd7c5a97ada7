import Foundation
import FWNetworking

// MARK: - FetchResult

/// The outcome of one URL.
enum FetchResult: Sendable {
    case response(HTTPURLResponse, body: Data, record: TransferRecord)
    case failure(URLError, record: TransferRecord)

    /// The `--json` object of the contract in the README (`body_base64` is empty when the body went to
    /// an `-o` file).
    var json: JSONValue {
        switch self {
        case .response(let response, let body, let record):
            func pairs(_ fields: [(name: String, value: String)]) -> JSONValue {
                .array(fields.map { .array([.string($0.name), .string($0.value)]) })
            }
            var members: [(String, JSONValue)] = [
                ("status", .int(response.statusCode)),
                ("headers", pairs(response.orderedHeaderFields)),
                ("body_base64", .string(body.base64EncodedString())),
                ("trailers", pairs(record.trailers)),
                ("violations", .array(record.violations.map(JSONValue.string))),
            ]
            if let tls = record.tls {
                members.append(("tls", .object([
                    ("version", .string(tls.version)),
                    ("cipher", .string(tls.cipher)),
                    ("cipher_id", tls.cipherID.map { .int(Int($0)) } ?? .null),
                    ("resumed", .bool(tls.resumed)),
                    ("alpn", tls.alpn.map(JSONValue.string) ?? .null),
                    ("trust", .string(record.trustMode)),
                ] + Self.transparencyMembers(record))))
            }
            return .object(members)
        case .failure(let error, let record):
            var members: [(String, JSONValue)] = [
                ("code", .int(error.code.rawValue)),
                ("message", .string(error.localizedDescription)),
            ]
            if let reason = Self.tlsFailureReason(error, record: record) {
                members.append(("tls", .object([("trust", .string(record.trustMode)), ("reason", .string(reason))]
                    + Self.transparencyMembers(record))))
            }
            return .object([("error", .object(members))])
        }
    }

    /// `"ct": {"scts": [{"log_id", "status", "source", "timestamp_ms"}], "valid_logs", "required_logs",
    /// "policy_met"}` with `--ct-log-list`; nothing otherwise.
    static func transparencyMembers(_ record: TransferRecord) -> [(String, JSONValue)] {
        guard let found = record.transparency else { return [] }
        let timestamps = found.timestamps.map { sct -> JSONValue in
            .object([
                ("log_id", .string(sct.logIDBase64)), ("status", .string(sct.status.name)),
                ("source", .string(sct.source)), ("timestamp_ms", .int(Int(sct.timestampMilliseconds))),
            ])
        }
        return [("ct", .object([
            ("scts", .array(timestamps)), ("valid_logs", .int(found.validLogCount)),
            ("required_logs", .int(found.minimumLogs)), ("policy_met", .bool(found.isPolicyMet)),
        ]))]
    }

    /// Why a TLS connection failed (handshake, server trust, pin, client certificate); nil when the
    /// failure was not a TLS one.
    static func tlsFailureReason(_ error: URLError, record: TransferRecord) -> String? {
        if let rejection = record.trustRejection { return rejection.reason }
        let tlsCodes: Set<URLError.Code> = [
            .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired,
        ]
        guard tlsCodes.contains(error.code) else { return nil }
        return error.userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? error.localizedDescription
    }
}

// MARK: - TransferRecord

/// What a transfer learned beyond the response and its body, for `--json` and the failure report.
struct TransferRecord: Sendable {
    /// The policy's trust mode ("default", "pinned", "insecure").
    var trustMode: String
    /// The response's trailer fields, in wire order.
    var trailers: [(name: String, value: String)] = []
    /// What the last hop's TLS connection negotiated; nil for plain HTTP.
    var tls: TLSSummary?
    /// Why the policy refused a server (a pin mismatch, a revoked leaf, a failed `--cert-status`), if it did.
    var trustRejection: TLSPolicy.Rejection?
    /// What the SCTs of the last connection said (`--ct-log-list`): from the transaction metrics, or from
    /// `--require-ct`'s check when it refused the server.
    var transparency: CertificateTransparencyResult?
    /// The named deviations from RFC 9112 the last hop's response needed (`fwResponseDeviations`).
    var violations: [String] = []
}

// MARK: - URLError

extension URLError {
    /// An error of fwcurl's own (a redirect limit, a range the server got wrong, a file it cannot write)
    /// whose `localizedDescription` is `message`.
    init(_ code: Code, message: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
