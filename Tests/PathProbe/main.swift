// PathProbe: run by IntegrationTests (HostilePathTests, HeldMemoryTests) in a process of its own, so that
// the peak resident memory it reports is one request's or one scenario's, not the whole test run's. Each
// command prints one line, `result KEY=VALUE ...`, and exits 0; a usage error exits 2.
//
//   PathProbe path PATH URL RESOURCE_TIMEOUT
//       Loads URL through one public path (`ProbePath`: completion-handler, delegate, data-for, bytes-for,
//       download, stream-upload, manager, http-manager) on an ephemeral session with a 2 s request timeout,
//       that resource timeout and httpResponseLimits.maxCollectedBodySize of 8 MiB. Prints
//       `result error=CODE|success seconds=S bytes=N peak=BYTES` (peak: RSS growth over the run).
//   PathProbe held URL COUNT default|ephemeral [CAFILE]
//       Loads URL COUNT times with completion handlers on a session of that configuration (trusting the
//       roots in CAFILE for https), keeps every finished task, and prints `result grown=BYTES trimmed=BYTES
//       failures=N`: the RSS growth with the tasks held, and after giving free memory back to the system.
//   PathProbe lagging URL PAUSE_MS
//       Reads URL through `bytes(from:)`, pausing PAUSE_MS after every MiB, and prints
//       `result error=CODE|success bytes=N peak=BYTES`.
//   PathProbe exit-race CERTIFICATE_PEM
//       Exits while two threads decode and free that certificate in a loop (`ExitRace`); prints
//       `result underway=BOOL` first. A crash at exit is the failure.
//   PathProbe durable ID DIRECTORY URL OUTPUT
//       Downloads URL in a background session of that identifier journaling under DIRECTORY, or continues
//       what the journal holds (`DurableDownload`); prints progress lines and
//       `result error=CODE|success restarted=BOOL reattached=N events=BOOL`.

import FWNetworking
import Foundation
import TestSupport

/// Prints the result line and exits.
func report(_ fields: [(String, String)]) -> Never {
    print("result " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
    exit(0)
}

/// The error code of an outcome, or "success".
func describe(_ error: URLError?) -> String {
    error.map { "\($0.code.rawValue)" } ?? "success"
}

func usage() -> Never {
    let text = "usage: PathProbe path PATH URL SECONDS | held URL COUNT CONFIG [CAFILE] | lagging URL MS\n"
        + "       | exit-race PEM | durable ID DIR URL OUTPUT\n"
    FileHandle.standardError.write(Data(text.utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
// The work runs off the main thread, whose queue stays free for what the managers post to it.
DispatchQueue.global().async {
    switch (arguments.first, arguments.count) {
    case ("path", 4):
        guard let path = ProbePath(rawValue: arguments[1]), let url = URL(string: arguments[2]),
              let resourceTimeout = Double(arguments[3]) else { usage() }
        let start = ContinuousClock.now
        let measurement = ProcessMemory.Measurement()
        let outcome = path.run(url, resourceTimeout: resourceTimeout)
        let seconds = String(format: "%.2f", (ContinuousClock.now - start) / .seconds(1))
        report([("error", describe(outcome.error)), ("seconds", seconds), ("bytes", "\(outcome.bytes)"),
                ("peak", "\(measurement.growth())")])
    case ("held", 4), ("held", 5):
        guard let url = URL(string: arguments[1]), let count = Int(arguments[2]) else { usage() }
        let held = HeldTasks.run(url, count: count, ephemeral: arguments[3] == "ephemeral",
                                 caFile: arguments.count == 5 ? arguments[4] : nil)
        report([("grown", "\(held.grown)"), ("trimmed", "\(held.trimmed)"), ("failures", "\(held.failures)")])
    case ("lagging", 3):
        guard let url = URL(string: arguments[1]), let pause = Int(arguments[2]) else { usage() }
        let measurement = ProcessMemory.Measurement()
        let outcome = LaggingReader.run(url, pauseMilliseconds: pause)
        report([("error", describe(outcome.error)), ("bytes", "\(outcome.bytes)"),
                ("peak", "\(measurement.growth())")])
    case ("exit-race", 2):
        ExitRace.run(certificatePEM: arguments[1])
    case ("durable", 5):
        guard let url = URL(string: arguments[3]) else { usage() }
        DurableDownload.run(identifier: arguments[1], directory: arguments[2], url: url, output: arguments[4])
    default:
        usage()
    }
}
dispatchMain()
