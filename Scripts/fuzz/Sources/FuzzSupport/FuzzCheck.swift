// Property checks of the fuzz harness. A violated property is a finding: the harness traps, and libFuzzer
// saves the input as a crash reproducer. The message is written to stderr first because optimised builds
// drop precondition messages.

import Glibc

/// Traps with `message` on stderr when `condition` is false (a fuzzing finding).
@inline(__always)
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    fuzzFailure(message())
}

/// Writes `message` to stderr and traps (a fuzzing finding).
func fuzzFailure(_ message: String) -> Never {
    var line = "FWWire fuzz property violated: \(message)\n"
    line.withUTF8 { bytes in
        _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
    }
    preconditionFailure(message)
}
