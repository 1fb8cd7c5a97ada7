// ProcessMemory: the peak resident memory of a stretch of work, from /proc/self/status (Linux).

import Foundation

// MARK: - ProcessMemory

/// The process's resident memory from /proc/self/status.
public enum ProcessMemory {
    /// The peak RSS growth over a stretch of work: the peak (VmHWM) is reset when the kernel allows it
    /// (writing 5 to /proc/self/clear_refs), so growth is the peak during the work minus the RSS before.
    public struct Measurement: Sendable {
        /// The RSS when the measurement started (the old peak when it could not be reset).
        public let baseline: Int
        /// Whether the kernel reset the peak: if not, growth only counts a peak above the old one.
        public let peakWasReset: Bool

        /// Starts measuring now.
        public init() {
            peakWasReset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
            baseline = peakWasReset ? ProcessMemory.field("VmRSS") : ProcessMemory.field("VmHWM")
        }

        /// Bytes the peak rose above the baseline.
        public func growth() -> Int {
            max(0, ProcessMemory.field("VmHWM") - baseline)
        }
    }

    /// A `kB` field of /proc/self/status, in bytes (0 when missing).
    public static func field(_ name: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
