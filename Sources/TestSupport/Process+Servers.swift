import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

// MARK: - A started process, stopped once

/// A started test server's process: `stop()` kills it and waits (bounded) for it to exit, once, from any
/// thread; later calls do nothing.
final class StoppableProcess: Sendable {
    private let process: LockedBox<Process?>

    init(_ process: Process) {
        self.process = LockedBox(process)
    }

    func stop() {
        let taken = process.withLock { process in
            defer { process = nil }
            return process
        }
        taken?.killAndWait()
    }
}

// MARK: - Fixture scripts that announce their ports

/// Python fixture scripts that serve on 127.0.0.1 with the fixtures' valid-ecdsa chain and announce their
/// ports as their first line (`PORTS a b c`): the WebSocket peer and the stream-task peer.
enum PortAnnouncingScript {
    /// Seconds to wait for the "PORTS" line.
    static let startTimeout = 20.0

    /// Starts `Fixtures/<fixture>` under `/usr/bin/python3` (Debian's, which its packages belong to) and
    /// waits (bounded) for `count` ports; kills it and throws `serverUnavailable` naming `what`, with the
    /// script's output, when it does not come up.
    static func start(_ fixture: String, ports count: Int, what: String) throws
        -> (process: StoppableProcess, ports: [Int]) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/\(fixture)").path
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-u", script, TLSFixtures.path("valid-ecdsa-chain.pem"),
                             TLSFixtures.path("valid-ecdsa.key")]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = process.readStartupOutput(from: output.fileHandleForReading.fileDescriptor,
                                             timeout: startTimeout) { $0.contains("\n") }.text
        let words = text.split(separator: "\n").first?.split(separator: " ") ?? []
        let ports = words.dropFirst().compactMap { Int($0) }
        guard words.first == "PORTS", words.count == count + 1, ports.count == count else {
            process.killAndWait()
            throw TestSupportError.serverUnavailable("\(what) did not come up: \(text)")
        }
        return (StoppableProcess(process), ports)
    }
}
