import Glibc

/// A `getrusage` reading: CPU time and peak resident set size.
public struct ResourceUsage: Equatable, Sendable {
    /// User plus system CPU seconds.
    public var cpuSeconds: Double
    /// Peak resident set size in KiB (`ru_maxrss` on Linux).
    public var peakRSSKiB: Int

    /// Creates a reading from its values.
    public init(cpuSeconds: Double, peakRSSKiB: Int) {
        self.cpuSeconds = cpuSeconds
        self.peakRSSKiB = peakRSSKiB
    }

    /// Converts a kernel `rusage`.
    public init(_ usage: rusage) {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        self.init(cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime), peakRSSKiB: usage.ru_maxrss)
    }

    /// This process, all threads (`RUSAGE_SELF`).
    public static func current() -> ResourceUsage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return ResourceUsage(usage)
    }
}
