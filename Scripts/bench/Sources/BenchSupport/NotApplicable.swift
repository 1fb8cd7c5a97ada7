import Foundation

// MARK: - NotApplicable

/// The JSON line a client prints instead of a result when it cannot run a row as the row asks: a
/// missing API (bench-fw built without its file-transfer rows), a missing feature (TLS session
/// resumption in swift-nio-ssl), or a server it cannot be made to trust. The report shows "n/a" and
/// the reason; the row's ratios leave the client out.
///
/// `{"client":"ahc","not_applicable":"..."}`; the client exits with status 3.
public struct NotApplicable: Codable, Equatable, Sendable {
    /// The client's name.
    public var client: String
    /// Why the row cannot be run, in one sentence.
    public var reason: String

    enum CodingKeys: String, CodingKey {
        case client
        case reason = "not_applicable"
    }

    /// Creates the report.
    public init(client: String, reason: String) {
        self.client = client
        self.reason = reason
    }

    /// The exit status that goes with the line.
    public static let exitStatus: Int32 = 3

    /// The report as one line of JSON.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self), let line = String(data: data, encoding: .utf8) else {
            return "{\"client\":\"\(client)\",\"not_applicable\":\"(unencodable reason)\"}"
        }
        return line
    }

    /// Decodes the last line of `output` that is such a report.
    public static func parse(_ output: String) -> NotApplicable? {
        let decoder = JSONDecoder()
        for line in output.split(separator: "\n").reversed() where line.hasPrefix("{") {
            if let report = try? decoder.decode(NotApplicable.self, from: Data(line.utf8)) { return report }
        }
        return nil
    }
}

/// Prints the "n/a" line for `client` and exits with `NotApplicable.exitStatus`.
public func notApplicable(_ client: String, _ reason: String) -> Never {
    print(NotApplicable(client: client, reason: reason).jsonLine)
    exit(NotApplicable.exitStatus)
}
