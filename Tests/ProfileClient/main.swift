// ProfileClient: sends COUNT sequential GETs of URL through URLSession with completion handlers (a
// `.default` session without a URL cache and its default delegate queue, as the benchmark's handler client
// does), then exits; a failed request ends it with status 1. The workload of Scripts/profile.sh, which runs
// it under callgrind, perf or strace against a loopback nginx.
//
//   ProfileClient URL COUNT [--warm-up N] [--gate] [--time]
//   ProfileClient --memory-steps URL [--foundation-first]   (MemorySteps.swift: resident growth per step and library)
//     --warm-up N   send N requests first (the connection, caches and lazy initialisation)
//     --gate        after the warm-up, print "warmed-up" and wait for a line on standard input before the
//                   COUNT requests (the profiler starts collecting in between)
//     --time        print the wall-clock nanoseconds per request of the COUNT requests on standard output

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
    exitFailing("usage: ProfileClient URL COUNT [--warm-up N] [--gate]")
}
let warmUp = arguments.firstIndex(of: "--warm-up").flatMap { index in
    index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
} ?? 0

let configuration = URLSessionConfiguration.default
configuration.urlCache = nil
let session = URLSession(configuration: configuration)
let request = URLRequest(url: url)
let done = DispatchSemaphore(value: 0)
// Written by the completion handler before `done.signal()`, read after `done.wait()`.
nonisolated(unsafe) var failure: String?

func send() {
    session.dataTask(with: request) { data, response, error in
        if let error {
            failure = "\(error)"
        } else if (response as? HTTPURLResponse)?.statusCode != 200 {
            failure = "unexpected response \(String(describing: response))"
        }
        done.signal()
    }.resume()
    done.wait()
    if let failure { exitFailing(failure) }
}

for _ in 0..<warmUp { send() }
if arguments.contains("--gate") {
    FileHandle.standardOutput.write(Data("warmed-up\n".utf8))
    _ = readLine()
}
let started = DispatchTime.now().uptimeNanoseconds
for _ in 0..<count { send() }
if arguments.contains("--time") {
    print((DispatchTime.now().uptimeNanoseconds - started) / UInt64(max(count, 1)))
}
session.finishTasksAndInvalidate()
