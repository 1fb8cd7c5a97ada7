import Foundation
import FWNetworking

// MARK: - Exit codes

/// fwcurl's exit status: curl's codes (`man curl`, EXIT CODES), so that scripts can tell failures apart.
/// With several URLs, the status of the last one that failed.
enum ExitCode {
    /// A usage mistake (fwcurl's own; curl says 2 for "failed to initialize").
    static let usage: Int32 = 2
    /// `-f`: the server answered with a status of 400 or more.
    static let httpError: Int32 = 22
    /// A request body could not be read (`-F @FILE` gone).
    static let readError: Int32 = 26

    /// curl's code for a transfer that failed with `error`.
    static func failure(_ error: URLError, record: TransferRecord) -> Int32 {
        // fwcurl's own refusals (a pin mismatch: 90, a revoked leaf: 60, a failed --cert-status: 91) fail like
        // an untrusted certificate; curl tells them apart.
        if let rejection = record.trustRejection { return rejection.exitCode }
        // Without a route a failed lookup is "not connected" (-1009), as a connect is: curl says 6 for the one
        // ("could not resolve host"), 7 for the other.
        if error.code == .notConnectedToInternet {
            return error.userInfo[NSUnderlyingErrorKey] is ResolverError ? 6 : 7
        }
        return codes[error.code] ?? 1
    }

    /// URLError codes and curl's exit codes for them.
    private static let codes: [URLError.Code: Int32] = [
        .unsupportedURL: 1,
        .badURL: 3,
        .cannotFindHost: 6,
        .dnsLookupFailed: 6,
        .cannotConnectToHost: 7,
        .badServerResponse: 8,
        .cannotParseResponse: 8,
        .cannotCreateFile: 23,
        .cannotWriteToFile: 23,
        .requestBodyStreamExhausted: 26,
        .timedOut: 28,
        .secureConnectionFailed: 35,
        .clientCertificateRequired: 35,
        .clientCertificateRejected: 35,
        .cancelled: 42,
        .httpTooManyRedirects: 47,
        .networkConnectionLost: 56,
        .serverCertificateUntrusted: 60,
        .serverCertificateHasBadDate: 60,
        .serverCertificateHasUnknownRoot: 60,
        .serverCertificateNotYetValid: 60,
        .cannotDecodeContentData: 61,
        .dataLengthExceedsMaximum: 63,
    ]
}
