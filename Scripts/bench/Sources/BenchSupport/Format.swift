import Foundation

// MARK: - Format

/// Number formatting for the report.
public enum Format {
    /// `12,345` for large values, `123.4` for small ones.
    public static func quantity(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        if value >= 999.5 {
            let digits = String(Int(value.rounded()))
            var grouped = ""
            for (index, digit) in digits.enumerated() {
                if index > 0, (digits.count - index).isMultiple(of: 3) { grouped.append(",") }
                grouped.append(digit)
            }
            return grouped
        }
        return String(format: value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value)
    }

    /// A ratio such as `0.87×`.
    public static func factor(_ value: Double) -> String {
        String(format: "%.2f×", value)
    }

    /// KiB as decimal megabytes with one decimal, such as `10.4`.
    public static func megabytes(kib: Double) -> String {
        String(format: "%.1f", kib * 1024 / 1_000_000)
    }
}
