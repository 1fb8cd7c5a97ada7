#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - Sanitizers

/// What the test process was built with, for the few tests whose numbers a sanitizer changes (memory:
/// ThreadSanitizer's shadow memory and allocator add to every process built with it, fwcurl included).
public enum Sanitizers {
    /// True when this process runs under ThreadSanitizer (its runtime's entry point is linked in).
    public static let threadSanitizerIsActive: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

    /// `bytes` as a peak-RSS bound for a process built like this one: three times as much under
    /// ThreadSanitizer (measured: a 27 MiB fwcurl run peaks at 67 MiB there).
    public static func memoryBound(_ bytes: Int) -> Int {
        threadSanitizerIsActive ? bytes * 3 : bytes
    }
}
