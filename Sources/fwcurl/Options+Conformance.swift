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
//   --request-raw FILE
//              write FILE's bytes exactly as they are (nothing added, no line ending changed) on a new
//              connection to the URL's origin (TLS for https, -k and --cacert as usual) and read the response
//              like any other: -i, -o, --json and its `violations`, --strict. The URL only names the origin.
//              The layering (URLRequest.fwRawRequest -> TransportRequest.rawBytes) is explained in the DocC
//              article Conformance.
//   --trace-json FILE|-
//              every event of every task, one JSON object per line (URLSessionTaskTraceEvent.jsonLine: time,
//              task, hop, attempt, connection, event and its fields), to FILE or stdout.

/// What the conformance flags ask for.
struct ConformanceOptions: Sendable {
    /// `--strict`: the session refuses every named deviation.
    var strict = false
    /// `--request-raw FILE`: the file whose bytes are the whole request.
    var rawRequestFile: String?
    /// `--trace-json FILE|-`: where the JSON event trace goes.
    var traceJSONFile: String?

    /// The usage lines of these flags.
    static let usage = """
          --strict         refuse every named deviation from RFC 9112 (bare-lf, obs-fold, ...): exit 8,
                           the message names it; without it --json lists them in "violations"
          --request-raw FILE
                           send FILE's bytes exactly (no field added, no line ending changed) on a new
                           connection to the URL's origin; the response is read and shown as usual
          --trace-json FILE|-
                           every event of every task as one JSON object per line (time, task, hop,
                           attempt, connection, event: resolve, connect, tls, pool, send, recv, ...)
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
        case "--request-raw":
            let path = try value(argument)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  FileManager.default.isReadableFile(atPath: path) else {
                throw UsageError(description: "--request-raw: cannot read \(path) (it must be a readable file)")
            }
            conformance.rawRequestFile = path
        case "--trace-json":
            conformance.traceJSONFile = try value(argument)
        default:
            return false
        }
        return true
    }
}
