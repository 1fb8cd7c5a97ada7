import Foundation
import FWNetworking

// MARK: - Retry options
//
// curl's retry flags, with curl's meaning:
//
//   --retry N            retry a transient failure up to N times: a timeout, or an HTTP 408, 429, 500,
//                        502, 503, 504, 522 or 524 response (an HTTP error need not be -f'd to be retried)
//   --retry-delay S      wait S seconds before each retry; without it the wait starts at 1 s and doubles
//                        up to 10 minutes
//   --retry-max-time S   no retry starts once S seconds have passed since the first attempt started (an
//                        attempt that runs is not cut short)
//   --retry-all-errors   retry every failure (connection refused, DNS, TLS, ...), not only transient ones
//
// A 429 or 503 response's Retry-After wins over the waits above. fwcurl's own refusals (a redirect limit,
// an output file it cannot write) are not retried.

/// What `--retry*` ask for.
struct RetryOptions: Sendable {
    /// `--retry N`: 0 turns retrying off.
    var count = 0
    /// `--retry-delay S`; nil for curl's doubling wait.
    var delay: Double?
    /// `--retry-max-time S`; nil for no limit.
    var maxTime: Double?
    /// `--retry-all-errors`.
    var allErrors = false

    /// The HTTP status codes curl retries.
    static let transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504, 522, 524]

    /// Why an attempt that ended with `response` and `error` should be retried ("timeout", "HTTP error",
    /// "error"), or nil when it should not.
    func problem(response: URLResponse, error: (any Error)?) -> String? {
        if let urlError = error as? URLError {
            if urlError.code == .cancelled { return nil }
            if urlError.code == .timedOut { return "timeout" }
            return allErrors ? "error" : nil
        }
        if let status = (response as? HTTPURLResponse)?.statusCode, Self.transientStatusCodes.contains(status) {
            return "HTTP error"
        }
        return nil
    }

    /// The wait before retry `number` (from 1): `--retry-delay`, else 1 s doubling up to 10 minutes.
    func wait(beforeRetry number: Int) -> Double {
        if let delay { return delay }
        return min(600, pow(2, Double(max(0, number - 1))))
    }
}

extension Options {
    /// Parses a `--retry*` flag into `retry`; false when `argument` is none of them.
    mutating func parseRetry(_ argument: String, value: (String) throws(UsageError) -> String)
        throws(UsageError) -> Bool {
        func seconds(_ flag: String) throws(UsageError) -> Double {
            let text = try value(flag)
            guard let seconds = Double(text), seconds >= 0 else {
                throw UsageError(description: "\(flag) needs a number of seconds, not '\(text)'")
            }
            return seconds
        }
        switch argument {
        case "--retry":
            let text = try value(argument)
            guard let count = Int(text), count >= 0 else {
                throw UsageError(description: "--retry needs a number of retries, not '\(text)'")
            }
            retry.count = count
        case "--retry-delay":
            retry.delay = try seconds(argument)
        case "--retry-max-time":
            retry.maxTime = try seconds(argument)
        case "--retry-all-errors":
            retry.allErrors = true
        default:
            return false
        }
        return true
    }
}
