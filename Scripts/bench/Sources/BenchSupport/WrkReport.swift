// MARK: - WrkReport

/// The numbers the suite reads from wrk's text report.
///
/// wrk prints `N requests in 2.00s, 17.48MB read` (binary units: 1 MB = 2^20 bytes), then optionally
/// `Socket errors: connect C, read R, write W, timeout T` and `Non-2xx or 3xx responses: N`.
public struct WrkReport: Equatable, Sendable {
    /// Completed requests.
    public var requests: Int
    /// The test's duration in seconds.
    public var seconds: Double
    /// Bytes read, heads included.
    public var bytesRead: Double
    /// Socket errors plus non-2xx/3xx responses.
    public var errors: Int

    /// Creates a report from its values.
    public init(requests: Int, seconds: Double, bytesRead: Double, errors: Int) {
        self.requests = requests
        self.seconds = seconds
        self.bytesRead = bytesRead
        self.errors = errors
    }

    /// Reads wrk's output; nil when the summary line is missing.
    public init?(parsing output: String) {
        var summary: (Int, Double, Double)?
        var errors = 0
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 6, words[1] == "requests", words[2] == "in", words[5] == "read",
               let requests = Int(words[0]), let seconds = Self.seconds(words[3].dropLast()),
               let bytes = Self.bytes(words[4]) {
                summary = (requests, seconds, bytes)
            } else if line.contains("Socket errors:") {
                errors += words.compactMap { Int($0.filter(\.isNumber)) }.reduce(0, +)
            } else if line.contains("Non-2xx or 3xx responses:"), let count = words.last.flatMap({ Int($0) }) {
                errors += count
            }
        }
        guard let (requests, seconds, bytes) = summary else { return nil }
        self.init(requests: requests, seconds: seconds, bytesRead: bytes, errors: errors)
    }

    /// `2.00s`, `500.00ms`, `1.00m` (the trailing comma already dropped).
    private static func seconds(_ text: Substring) -> Double? {
        let units: [(String, Double)] = [("us", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)) { return value * scale }
        }
        return nil
    }

    /// `17.48MB`, `512.00B`, `1.02GB` (binary units).
    private static func bytes(_ text: Substring) -> Double? {
        let units: [(String, Double)] = [("KB", 0x1p10), ("MB", 0x1p20), ("GB", 0x1p30), ("TB", 0x1p40), ("B", 1)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)) { return value * scale }
        }
        return nil
    }
}
