import Foundation
import FWNetworking

// MARK: - Conformance options
//
// Flags for people who test servers with fwcurl:
//
//   --strict   refuse every named deviation from RFC 9112 (bare LF, obs-fold, a missing reason phrase, ...;
//              the table is in the DocC article Conformance): such a response fails with exit 8 and a
//              message that names the deviation. Without it the response is accepted and `--json` lists
//              the names in `violations`.

/// What the conformance flags ask for.
struct ConformanceOptions: Sendable {
    /// `--strict`: the session refuses every named deviation.
    var strict = false

    /// The usage lines of these flags.
    static let usage = """
          --strict         refuse every named deviation from RFC 9112 (bare-lf, obs-fold, ...): exit 8,
                           the message names it; without it --json lists them in "violations"
        """

    /// Applies the flags to the session's configuration.
    func apply(to configuration: URLSessionConfiguration) {
        configuration.httpRefusesDeviations = strict
    }
}

extension Options {
    /// Parses a conformance flag into `conformance`; false when `argument` is none of them.
    mutating func parseConformance(_ argument: String, value: (String) throws(UsageError) -> String)
        throws(UsageError) -> Bool {
        switch argument {
        case "--strict":
            conformance.strict = true
        default:
            return false
        }
        return true
    }
}
