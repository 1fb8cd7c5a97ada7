// PythonWebSocketServer: Fixtures/websocket/server.py, a WebSocket peer built on Debian's python3-websockets
// (an implementation nobody here wrote), on 127.0.0.1: without compression, with permessage-deflate, and
// with TLS (the fixtures' valid-ecdsa chain).

import Foundation
import Glibc

// MARK: - PythonWebSocketServer

/// The WebSocket test peer. What a connection does depends on its path (see the script's opening comment).
public final class PythonWebSocketServer: Sendable {
    /// The server without compression (`ws://127.0.0.1:plainPort`).
    public let plainPort: Int
    /// The server that agrees to permessage-deflate.
    public let deflatePort: Int
    /// The TLS server (`wss://127.0.0.1:tlsPort`, certificate from Fixtures/tls).
    public let tlsPort: Int
    private let process: LockedBox<Process?>

    /// The interpreter Debian's python3-websockets belongs to (a python3 earlier on PATH may lack it).
    static let python = "/usr/bin/python3"
    /// Seconds to wait for the "PORTS" line.
    private static let startTimeout = 20.0

    /// Starts the script and waits (bounded) for its ports; throws `serverUnavailable` with its output when
    /// it does not come up (python3-websockets missing: run Scripts/install-deps.sh).
    public init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/websocket/server.py").path
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: Self.python)
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
        guard words.count == 4, words[0] == "PORTS", let plain = Int(words[1]), let deflate = Int(words[2]),
              let tls = Int(words[3]) else {
            plainPort = 0
            deflatePort = 0
            tlsPort = 0
            stop()
            throw TestSupportError.serverUnavailable("the WebSocket peer did not come up: \(text)")
        }
        plainPort = plain
        deflatePort = deflate
        tlsPort = tls
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
