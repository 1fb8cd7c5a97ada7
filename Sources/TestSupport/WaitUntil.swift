// waitUntil: bounded polling for conditions that other threads make true.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - waitUntil

/// Waits (polling every few ms) until `condition` holds or `timeout` passes; returns whether it held.
public func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(max(0, timeout)))
    while true {
        if condition() { return true }
        if clock.now >= deadline { return false }
        usleep(2_000)
    }
}
