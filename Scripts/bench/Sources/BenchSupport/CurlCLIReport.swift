// MARK: - CurlCLIReport

/// What the curl command-line tool reports about one transfer with `CurlCLIReport.writeOut` as its
/// `-w` format: `STATUS DOWNLOADED UPLOADED SECONDS`, e.g. `201 0 1073741824 1.234567`.
///
/// The suite runs the tool (`curl -o FILE`, `curl -T FILE`) on the file-transfer rows, where it is the
/// baseline issue 6 names; CPU and peak RSS come from `wait4`, like wrk's.
public struct CurlCLIReport: Equatable, Sendable {
    /// The `-w` argument that makes curl print the line this type reads.
    public static let writeOut = "%{http_code} %{size_download} %{size_upload} %{time_total}\\n"

    /// The response's status code.
    public var status: Int
    /// Body bytes received.
    public var downloaded: Int
    /// Body bytes sent.
    public var uploaded: Int
    /// The transfer's total time in seconds.
    public var seconds: Double

    /// Creates a report from its values.
    public init(status: Int, downloaded: Int, uploaded: Int, seconds: Double) {
        self.status = status
        self.downloaded = downloaded
        self.uploaded = uploaded
        self.seconds = seconds
    }

    /// Reads the last line of curl's output that has the four fields; nil when there is none.
    public init?(parsing output: String) {
        for line in output.split(separator: "\n").reversed() {
            let fields = line.split(separator: " ")
            guard fields.count == 4, let status = Int(fields[0]), let downloaded = Int(fields[1]),
                  let uploaded = Int(fields[2]), let seconds = Double(fields[3]) else { continue }
            self.init(status: status, downloaded: downloaded, uploaded: uploaded, seconds: seconds)
            return
        }
        return nil
    }

    /// A status curl's transfer counts as done: 2xx.
    public var succeeded: Bool {
        (200..<300).contains(status)
    }
}
