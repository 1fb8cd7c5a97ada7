import Foundation
import Glibc

extension Process {
    /// Reads what the started process writes to `descriptor` (its stdout pipe) until `isComplete` holds for
    /// the text so far, the process exits or ends its output, or `timeout` seconds pass; the text, and
    /// false when the timeout ended the wait. For servers that announce their ports on their first line.
    func readStartupOutput(from descriptor: Int32, timeout: Double,
                           until isComplete: (String) -> Bool) -> (text: String, ended: Bool) {
        var text = ""
        let ended = waitUntil(timeout: timeout) {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 20) > 0 else { return !isRunning }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return true }
            text += String(decoding: buffer[..<count], as: UTF8.self)
            return isComplete(text)
        }
        return (text, ended)
    }

    /// Kills the process with SIGKILL when it is still running and waits (bounded) for it to exit.
    /// SIGKILL, not SIGTERM: a child inherits the signal mask of the spawning thread, and test runner
    /// threads block SIGTERM, so a Python server would never see it (and has nothing to flush).
    func killAndWait(timeout: Double = 5) {
        guard isRunning else { return }
        kill(processIdentifier, SIGKILL)
        _ = waitUntil(timeout: timeout) { !self.isRunning }
    }
}
