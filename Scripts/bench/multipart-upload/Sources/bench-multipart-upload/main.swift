// bench-multipart-upload: streams a file (1 GiB by default) as one part of a multipart/form-data POST
// made with HTTPSessionManager.post(urlString:parameters:headers:constructingBody:progress:success:failure:)
// and MultipartFormData.appendPart(fileURL:name:) to a Python sink on 127.0.0.1, checks that the sink read
// exactly Content-Length bytes, and prints the client's peak RSS (getrusage ru_maxrss), its RSS before the
// upload, the time and the throughput, as text and as one JSON line.
//
//   bench-multipart-upload [--size-mib N] [--file PATH]
//
// Without --file, a file of N MiB (default 1024) of /dev/urandom bytes is written by `head -c` (a child
// process, so its buffers never count against this process) into $TMPDIR and removed at the end.

import FWNetworking
import Foundation
import Glibc

// MARK: - Options

struct Options {
    var sizeMiB = 1024
    var file: String?

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            switch (flag, rest.popFirst()) {
            case ("--size-mib", let value?) where Int(value).map { $0 > 0 } == true: sizeMiB = Int(value) ?? 0
            case ("--file", let value?): file = value
            default: throw BenchError("usage: bench-multipart-upload [--size-mib N] [--file PATH]")
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Children

/// Runs `arguments` to completion; throws when it fails.
func run(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchError("\(arguments) failed") }
}

/// A Python sink: answers a POST to /upload, after reading exactly Content-Length bytes in 1 MiB pieces,
/// with `{"received": N, "contentLength": "N", "contentType": "..."}`.
final class Sink {
    let process = Process()
    let port: Int

    static let program = #"""
    import http.server, json

    class Sink(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            remaining = int(self.headers.get("Content-Length", "0"))
            received = 0
            while remaining > 0:
                piece = self.rfile.read(min(remaining, 1 << 20))
                if not piece:
                    break
                received += len(piece)
                remaining -= len(piece)
            body = json.dumps({"received": received, "contentLength": self.headers.get("Content-Length"),
                               "contentType": self.headers.get("Content-Type")}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.HTTPServer(("127.0.0.1", 0), Sink)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()
    """#

    init() throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", Self.program]
        process.standardOutput = output
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw BenchError("the Python sink did not start") }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "),
              let port = Int(line.dropFirst(5)) else { throw BenchError("the Python sink said \(text)") }
        self.port = port
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

// MARK: - Measuring

/// Peak resident set size of this process so far, in bytes (`ru_maxrss` is in KiB on Linux).
func peakRSS() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

/// Current resident set size, in bytes (VmRSS of /proc/self/status).
func currentRSS() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_000_000) }

// MARK: - The upload

/// What the upload gave: the sink's JSON, or the error.
final class Outcome: @unchecked Sendable { // written once on the completion queue before `done` signals
    var reply: [String: Any]?
    var error: (any Error)?
    let done = DispatchSemaphore(value: 0)
}

func upload(file: URL, to sink: Sink) throws -> (reply: [String: Any], seconds: Double) {
    let manager = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:\(sink.port)/bench"))
    defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
    manager.completionQueue = DispatchQueue(label: "bench-multipart-upload.completion")
    let outcome = Outcome()
    let start = DispatchTime.now()
    let task = manager.post(urlString: "/upload", parameters: ["kind": "bench"], constructingBody: { form in
        try form.appendPart(fileURL: file, name: "file")
    }, success: { _, object in
        outcome.reply = object as? [String: Any]
        outcome.done.signal()
    }, failure: { _, error in
        outcome.error = error
        outcome.done.signal()
    })
    guard task != nil else { throw BenchError("the request could not be built") }
    guard outcome.done.wait(timeout: .now() + 900) == .success else { throw BenchError("no answer after 900 s") }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    if let error = outcome.error { throw error }
    guard let reply = outcome.reply else { throw BenchError("the sink's answer was not JSON") }
    return (reply, seconds)
}

// MARK: - Main

func main() throws {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    var made: String?
    let path: String
    if let file = options.file {
        path = file
    } else {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        path = directory + "/fw-bench-multipart-\(getpid()).bin"
        made = path
        try run(["sh", "-c", "head -c \(options.sizeMiB << 20) /dev/urandom > '\(path)'"])
    }
    defer { if let made { unlink(made) } }
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0

    let sink = try Sink()
    defer { sink.stop() }
    let before = currentRSS()
    let (reply, seconds) = try upload(file: URL(fileURLWithPath: path), to: sink)
    let peak = peakRSS()
    let received = reply["received"] as? Int ?? -1
    let contentLength = Int(reply["contentLength"] as? String ?? "") ?? -2
    guard received == contentLength, contentLength > size else {
        throw BenchError("the sink read \(received) bytes of Content-Length \(contentLength) for a \(size)-byte file")
    }
    let rate = Double(contentLength) / seconds / 1_000_000
    print("multipart POST of a \(size >> 20) MiB file: \(contentLength) bytes in \(String(format: "%.2f", seconds)) s "
          + "(\(String(format: "%.0f", rate)) MB/s); RSS before \(megabytes(before)) MB, "
          + "peak RSS (ru_maxrss) \(megabytes(peak)) MB")
    print(#"{"fileBytes":\#(size),"bodyBytes":\#(contentLength),"seconds":\#(seconds),"#
          + #""peakRSSBytes":\#(peak),"rssBeforeBytes":\#(before)}"#)
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("bench-multipart-upload: \(error)\n".utf8))
    exit(1)
}
