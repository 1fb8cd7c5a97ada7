// ProfileClient: sends COUNT sequential GETs of URL through URLSession with completion handlers (a
// `.default` session without a URL cache and its default delegate queue, as the benchmark's handler client
// does), then exits; a failed request ends it with status 1. The workload of Scripts/profile.sh, which runs
// it under callgrind, perf or strace against a loopback nginx.
//
//   ProfileClient URL COUNT [--warm-up N] [--gate] [--time] [--stream] [--close] [--cacert FILE]
//                 [--no-resumption] [--concurrency C] [--busy-poll SECONDS]
//   ProfileClient --memory-steps URL [--foundation-first]   (MemorySteps.swift: resident growth per step and library)
//     --warm-up N       send N requests first (the connection, caches and lazy initialisation)
//     --gate            after the warm-up, print "warmed-up" and wait for a line on standard input before
//                       the COUNT requests (the profiler starts collecting in between)
//     --time            print the wall-clock nanoseconds per request of the COUNT requests on standard output
//     --stream          a data delegate that counts the body's bytes and drops them (the bulk-download
//                       workload) instead of a completion handler that collects them
//     --close           send `Connection: close`: every request opens a new connection (and, over HTTPS,
//                       makes a new TLS handshake)
//     --cacert FILE     trust only the certificates of this PEM file (`tlsTrustRoots`)
//     --no-resumption   no TLS session resumption (`tlsSessionResumption = false`): every handshake is full
//     --concurrency C   the COUNT requests in C closed-loop chains, each completion handler starting its
//                       chain's next request on the delegate queue (ClosedLoop.swift), as the benchmark
//                       does; exits with status 1 if a checked completion handler (one in eight) ran
//                       off the delegate queue
//     --busy-poll S     the session's `busyPollInterval` (default: the configuration's, 200 µs; 0 never polls)

import Dispatch
import Foundation
import FWNetworking

func exitFailing(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ProfileClient: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count >= 2, arguments[0] == "--memory-steps", let url = URL(string: arguments[1]) {
    runMemorySteps(url: url, foundationFirst: arguments.dropFirst(2) == ["--foundation-first"])
}
guard arguments.count >= 2, let url = URL(string: arguments[0]), let count = Int(arguments[1]) else {
    exitFailing("usage: ProfileClient URL COUNT [--warm-up N] [--gate] [--time] [--stream] [--close] "
                + "[--cacert FILE] [--no-resumption] [--concurrency C] [--busy-poll SECONDS]")
}
func value(after flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { index in index + 1 < arguments.count ? arguments[index + 1] : nil }
}
let warmUp = value(after: "--warm-up").flatMap { Int($0) } ?? 0

let configuration = URLSessionConfiguration.default
configuration.urlCache = nil
if let path = value(after: "--cacert") {
    do {
        configuration.tlsTrustRoots = try TrustRoots.pemFile(path)
    } catch {
        exitFailing("cannot read the CA file \(path): \(error)")
    }
}
if arguments.contains("--no-resumption") { configuration.tlsSessionResumption = false }
if let seconds = value(after: "--busy-poll").flatMap({ Double($0) }) { configuration.busyPollInterval = seconds }
// A closed loop of C chains gets C connections, as the benchmark's clients do (bench-curl's default too).
let chains = value(after: "--concurrency").flatMap { Int($0) }
if let chains { configuration.httpMaximumConnectionsPerHost = max(chains, 1) }
let streaming = arguments.contains("--stream")
let counter = ByteCounter()
let session = streaming
    ? URLSession(configuration: configuration, delegate: counter, delegateQueue: nil)
    : URLSession(configuration: configuration)
let request = {
    var request = URLRequest(url: url)
    if arguments.contains("--close") { request.setValue("close", forHTTPHeaderField: "Connection") }
    return request
}()
let done = DispatchSemaphore(value: 0)
// Written by the completion handler (or the delegate's completion) before `done.signal()`, read after
// `done.wait()`.
nonisolated(unsafe) var failure: String?

@Sendable func check(_ response: URLResponse?, _ error: (any Error)?) {
    if let error {
        failure = "\(error)"
    } else if (response as? HTTPURLResponse)?.statusCode != 200 {
        failure = "unexpected response \(String(describing: response))"
    }
}

func send() {
    if streaming {
        session.dataTask(with: request).resume()
    } else {
        session.dataTask(with: request) { data, response, error in
            check(response, error)
            done.signal()
        }.resume()
    }
    done.wait()
    if let failure { exitFailing(failure) }
}

/// Counts the body bytes of the streamed requests and drops them; signals `done` when a task completes.
/// Its methods run on the session's serial delegate queue, one task at a time.
final class ByteCounter: NSObject, URLSessionDataDelegate, @unchecked Sendable { // delegate queue only
    /// Body bytes received by every streamed request so far; delegate queue only.
    var bytes = 0

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bytes += data.count
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        check(task.response, error)
        done.signal()
    }
}

for _ in 0..<warmUp { send() }
if arguments.contains("--gate") {
    FileHandle.standardOutput.write(Data("warmed-up\n".utf8))
    _ = readLine()
}
let started = DispatchTime.now().uptimeNanoseconds
if let chains, !streaming {
    let offQueue = runClosedLoop(session: session, request: request, count: count, concurrency: chains)
    if let failure { exitFailing(failure) }
    if offQueue > 0 { exitFailing("\(offQueue) completion handlers ran off the session's delegate queue") }
} else {
    for _ in 0..<count { send() }
}
if arguments.contains("--time") {
    print((DispatchTime.now().uptimeNanoseconds - started) / UInt64(max(count, 1)))
}
session.finishTasksAndInvalidate()
