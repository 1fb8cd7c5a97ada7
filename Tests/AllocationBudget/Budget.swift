import Foundation

// MARK: - Budget

/// The checked-in allocation budgets: lines of `SCENARIO.CONFIGURATION ALLOCATIONS-PER-REQUEST`, `#` starts
/// a comment (see budget.txt for how to lower them).
struct Budget {
    /// Budgets by "scenario.configuration".
    let limits: [String: Double]

    /// Reads `path`; throws on a line that is neither a comment nor `NAME NUMBER`.
    init(contentsOf path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var limits: [String: Double] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            let fields = content.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, let limit = Double(fields[1]) else {
                throw BudgetError(description: "\(path):\(number + 1): expected `NAME NUMBER`, found `\(content)`")
            }
            limits[String(fields[0])] = limit
        }
        self.limits = limits
    }

    /// The budget file next to this source file.
    static let defaultPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("budget.txt").path
}

/// A malformed budget file.
struct BudgetError: Error, CustomStringConvertible {
    let description: String
}
