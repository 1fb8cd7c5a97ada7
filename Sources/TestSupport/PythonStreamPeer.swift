// PythonStreamPeer: Fixtures/stream/peer.py, a raw-stream peer built on Python's standard library (socketserver,
// ssl), on 127.0.0.1: an echo server, a line protocol that switches to TLS and back (STARTTLS / STOPTLS, with
// the fixtures' valid-ecdsa chain), and an HTTP server whose response turns into an echo stream.

import Foundation
import Glibc

// MARK: - PythonStreamPeer

/// The stream-task test peer (see the script's opening comment for what each server does).
public final class PythonStreamPeer: Sendable {
    /// The echo server.
    public let echoPort: Int
    /// The STARTTLS line server.
    public let startTLSPort: Int
    /// The HTTP server whose response becomes an echo stream.
    public let httpPort: Int
    private let process: LockedBox<Process?>

    /// Seconds to wait for the "PORTS" line.
    private static let startTimeout = 20.0

    /// Starts the script and waits (bounded) for its ports; throws `serverUnavailable` with its output when
    /// it does not come up.
    public init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/stream/peer.py").path
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-u", script, TLSFixtures.path("valid-ecdsa-chain.pem"),
                             TLSFixtures.path("valid-ecdsa.key")]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        self.process = LockedBox(process)
        let text = process.readStartupOutput(from: output.fileHandleForReading.fileDescriptor,
                                             timeout: Self.startTimeout) { $0.contains("\n") }.text
        let words = text.split(separator: "\n").first?.split(separator: " ") ?? []
        guard words.count == 4, words[0] == "PORTS", let echo = Int(words[1]), let startTLS = Int(words[2]),
              let http = Int(words[3]) else {
            echoPort = 0
            startTLSPort = 0
            httpPort = 0
            stop()
            throw TestSupportError.serverUnavailable("the stream peer did not come up: \(text)")
        }
        echoPort = echo
        startTLSPort = startTLS
        httpPort = http
    }

    deinit {
        stop()
    }

    /// Kills the server and waits (bounded) for it to exit. Idempotent; also in deinit.
    public func stop() {
        let taken = process.withLock { process in
            defer { process = nil }
            return process
        }
        taken?.killAndWait()
    }
}
