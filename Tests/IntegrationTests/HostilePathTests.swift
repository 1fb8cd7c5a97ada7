import Foundation
import FWNetworking
import Testing
import TestSupport

// Issue 29: every hostile input of the fault suite through every public path. Each (path, input) runs in a
// PathProbe process of its own (so its peak memory is its own: the test process runs a dozen tests at once)
// on a session with a 2 s request timeout, a resource timeout of 4 s for the trickling head (which only the
// resource timeout ends) and 60 s for the others (a debug build's `bytes(for:)` reads a body byte by byte,
// slower still under ThreadSanitizer), and an 8 MiB collected-body limit; fwcurl runs with `--compressed
// -o /dev/null --max-time 4`. Each run must end with the documented error (below,
// and in the README's per-path table) within its memory bound, and the server must have seen the request.
// The WebSocket path has its own hostile inputs (oversized messages, bad frames, a peer that never closes):
// `WebSocketTests`.
@Suite struct HostilePathTests {
    /// The public paths, as PathProbe names them, and fwcurl.
    static let paths = ["completion-handler", "delegate", "data-for", "bytes-for", "download", "stream-upload",
                        "manager", "http-manager", "fwcurl"]

    /// Paths that collect the body in memory (the collected-body limit applies).
    static let collecting: Set = ["completion-handler", "data-for", "manager", "http-manager"]

    /// The documented outcome of `input` through `path`: the URLError code (nil: success).
    static func expected(_ input: HostileInput, through path: String) -> URLError.Code? {
        switch input {
        case .bomb: .dataLengthExceedsMaximum
        case .oversized: collecting.contains(path) ? .dataLengthExceedsMaximum : nil
        case .reset: .networkConnectionLost
        case .stall, .slowHeader: .timedOut
        case .badFraming: .badServerResponse
        }
    }

    /// fwcurl's exit code for each outcome (curl's codes).
    static let exitCodes: [URLError.Code?: Int32] = [
        nil: 0, .dataLengthExceedsMaximum: 63, .networkConnectionLost: 56, .timedOut: 28, .badServerResponse: 8,
    ]

    /// The documented peak memory of one request: what the path may hold (8 MiB collected, or the backpressure
    /// window of a streamed body, or a bomb's first decoded slices) plus what the client allocates around it.
    /// fwcurl's is its whole peak RSS (the process with its libraries), not a growth.
    static func memoryBound(_ path: String) -> Int {
        Sanitizers.memoryBound(path == "fwcurl" ? 64 << 20 : 40 << 20)
    }

    @Test(arguments: HostileInput.allCases, paths)
    func aHostileInputEndsAsDocumentedWithinItsBounds(_ input: HostileInput, _ path: String) throws {
        let server = try HostilePathServer.start()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/\(input.rawValue)"
        let expected = Self.expected(input, through: path)
        let resourceTimeout = input == .slowHeader ? "4" : "60"
        let outcome = try path == "fwcurl" ? Self.fwcurl(url)
            : PathProbeRun(["path", path, url, resourceTimeout]).fields
        let peakMiB = (Int(outcome["peak"] ?? "") ?? 0) >> 20
        let ended = "\(outcome["error"] ?? "?") after \(outcome["seconds"] ?? "?") s"
        print("HostilePath: \(path) \(input.rawValue): \(ended), peak \(peakMiB) MiB, \(outcome["bytes"] ?? "?") bytes")
        if path == "fwcurl" {
            #expect(outcome["exit"] == "\(Self.exitCodes[expected] ?? -1)")
        } else {
            #expect(outcome["error"] == (expected.map { "\($0.rawValue)" } ?? "success"),
                    "\(ended), peak \(peakMiB) MiB")
        }
        let peak = try #require(Int(outcome["peak"] ?? ""))
        #expect(peak < Self.memoryBound(path), "peak \(peak >> 20) MiB")
        #expect(!server.requests.isEmpty, "the request reached the server")
        if expected == nil, path != "fwcurl" { #expect(outcome["bytes"] == "\(32 << 20)") }
    }

    /// fwcurl through the same input: its exit code, time and peak RSS.
    static func fwcurl(_ url: String) throws -> [String: String] {
        let start = ContinuousClock.now
        let run = try MeasuredRun(["-s", "--compressed", "-o", "/dev/null", "--max-time", "4", url])
        let seconds = String(format: "%.2f", (ContinuousClock.now - start) / .seconds(1))
        return ["exit": "\(run.status)", "error": "exit \(run.status)", "seconds": seconds, "peak": "\(run.peakRSS)"]
    }
}

// MARK: - PathProbeRun

/// One run of PathProbe (next to the test binary): the fields of its `result` line.
struct PathProbeRun {
    let fields: [String: String]
    /// How the probe ended: its exit status, or the signal that ended it.
    let termination: (reason: Process.TerminationReason, status: Int32)

    /// Runs the probe with `arguments` and `environment` added to this process's, and waits for it (killed
    /// after `timeout` seconds).
    init(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 120) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("PathProbe")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        if !waitUntil(timeout: timeout, { !process.isRunning }) { process.terminate() }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        termination = (process.terminationReason, process.terminationStatus)
        let line = text.split(separator: "\n").last { $0.hasPrefix("result ") } ?? ""
        fields = Dictionary(line.split(separator: " ").dropFirst().compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { $1 })
    }
}
