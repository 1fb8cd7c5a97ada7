import Foundation

// MARK: - ProgressMeter

/// The progress line fwcurl keeps redrawing on a terminal's stderr: percent (when the total is known),
/// bytes so far and the total in binary units, and the current rate, e.g.
/// ` 42%  12.3 MiB / 29.2 MiB  4.1 MiB/s`. Pure: the caller passes the clock (seconds, monotonic) and
/// writes the text it gets back; `update` returns nil between redraws (at most ten a second).
struct ProgressMeter {
    /// The shortest time between two redraws.
    static let redrawInterval = 0.1
    /// The current rate is measured over about this many seconds.
    static let rateWindow = 2.0

    private let start: Double
    private var lastDraw: Double?
    /// (time, bytes) at each redraw within the rate window, oldest first.
    private var samples: [(time: Double, bytes: Int64)] = []
    /// The widest line drawn so far: a shorter one is padded with spaces to cover it.
    private var width = 0

    /// A meter for a transfer that starts at `now`.
    init(now: Double) {
        start = now
    }

    /// The text that redraws the line (`\r` first), or nil when the last redraw was too recent.
    /// `total` < 0 means unknown.
    mutating func update(bytes: Int64, total: Int64, now: Double) -> String? {
        if let lastDraw, now - lastDraw < Self.redrawInterval { return nil }
        lastDraw = now
        samples.removeAll { now - $0.time > Self.rateWindow }
        let oldest = samples.first ?? (time: start, bytes: 0)
        samples.append((now, bytes))
        return draw(Self.line(bytes: bytes, total: total, rate: Self.rate(from: oldest, to: (now, bytes))))
    }

    /// The final line with the average rate, and a newline.
    mutating func finish(bytes: Int64, total: Int64, now: Double) -> String {
        draw(Self.line(bytes: bytes, total: total, rate: Self.rate(from: (start, 0), to: (now, bytes)))) + "\n"
    }

    private mutating func draw(_ line: String) -> String {
        let padding = String(repeating: " ", count: max(0, width - line.count))
        width = max(width, line.count)
        return "\r" + line + padding
    }

    // MARK: Formatting

    /// One line: ` 42%  12.3 MiB / 29.2 MiB  4.1 MiB/s`, or `12.3 MiB  4.1 MiB/s` without a total.
    static func line(bytes: Int64, total: Int64, rate: Double) -> String {
        let speed = size(Int64(rate.rounded())) + "/s"
        guard total > 0 else { return "\(size(bytes))  \(speed)" }
        let percent = min(100, bytes * 100 / total)
        let column = String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
        return "\(column)  \(size(bytes)) / \(size(total))  \(speed)"
    }

    /// `512 B`, `1.0 KiB`, `12.3 MiB`, `2.0 GiB` (binary units, one decimal).
    static func size(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(max(0, bytes)) B" }
        var value = Double(bytes) / 1024
        var units = ["KiB", "MiB", "GiB", "TiB"][...]
        while value >= 1024, units.count > 1 {
            value /= 1024
            units = units.dropFirst()
        }
        return String(format: "%.1f ", value) + units[units.startIndex]
    }

    /// Bytes per second between two samples (0 when no time passed).
    private static func rate(from earlier: (time: Double, bytes: Int64), to later: (time: Double, bytes: Int64))
        -> Double {
        let seconds = later.time - earlier.time
        return seconds > 0 ? Double(max(0, later.bytes - earlier.bytes)) / seconds : 0
    }
}
