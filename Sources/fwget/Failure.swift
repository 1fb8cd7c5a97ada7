import FWHTTP

// MARK: - Failure

/// How a failed transfer is reported: fwcurl's exit code (curl's), the URLError code fwcurl's `--json`
/// names, and whether it was a TLS failure (then `--json` adds the trust mode and the reason).
struct Failure {
    var exitCode: Int32
    var urlErrorCode: Int
    var message: String
    var tlsReason: String?

    /// fwget's own failures.
    static func cannotWrite(_ path: String) -> Failure {
        Failure(exitCode: 23, urlErrorCode: -3003, message: "cannot write to \(path)")
    }

    /// The report for a client error.
    init(_ error: HTTPClientError) {
        message = error.description
        if error.isInvalidURL { (exitCode, urlErrorCode) = (3, -1000); return }
        if error.isUnsupportedScheme { (exitCode, urlErrorCode) = (1, -1002); return }
        if error.isTooManyRedirects { (exitCode, urlErrorCode) = (47, -1007); return }
        if error.isTimedOut { (exitCode, urlErrorCode) = (28, -1001); return }
        if error.isBodyTooLarge { (exitCode, urlErrorCode) = (63, -1103); return }
        if error.isCancelled { (exitCode, urlErrorCode) = (42, -999); return }
        guard let transport = error.transportError else { (exitCode, urlErrorCode) = (1, -1); return }
        if let trust = error.trustError {
            tlsReason = trust.reason
            switch true {
            case trust.isPinMismatch: (exitCode, urlErrorCode) = (90, -1202)
            case trust.isExpired: (exitCode, urlErrorCode) = (60, -1201)
            case trust.isNotYetValid: (exitCode, urlErrorCode) = (60, -1204)
            case trust.isUnknownRoot: (exitCode, urlErrorCode) = (60, -1203)
            default: (exitCode, urlErrorCode) = (60, -1202)
            }
            return
        }
        switch true {
        case transport.isCannotFindHost: (exitCode, urlErrorCode) = (6, -1003)
        case transport.isCannotConnectToHost, transport.isNoRoute: (exitCode, urlErrorCode) = (7, -1004)
        case transport.isConnectionLost: (exitCode, urlErrorCode) = (56, -1005)
        case transport.isBadResponse: (exitCode, urlErrorCode) = (8, -1011)
        case transport.isCannotDecodeContent: (exitCode, urlErrorCode) = (61, -1016)
        case transport.isInvalidRequest: (exitCode, urlErrorCode) = (3, -1000)
        case transport.isBodyStreamFailed: (exitCode, urlErrorCode) = (26, -1021)
        case transport.isSecureConnectionFailed:
            (exitCode, urlErrorCode) = (35, -1200)
            tlsReason = transport.description
        default: (exitCode, urlErrorCode) = (1, -1)
        }
    }

    private init(exitCode: Int32, urlErrorCode: Int, message: String) {
        self.exitCode = exitCode
        self.urlErrorCode = urlErrorCode
        self.message = message
    }

    /// fwcurl's `--json` error object.
    func json(trustMode: String) -> JSONValue {
        var members: [(String, JSONValue)] = [("code", .int(urlErrorCode)), ("message", .string(message))]
        if let tlsReason {
            members.append(("tls", .object([("trust", .string(trustMode)), ("reason", .string(tlsReason))])))
        }
        return .object([("error", .object(members))])
    }
}
