import Foundation
import Testing
import TestSupport

// MARK: - Soak mode

// `Scripts/soak.sh` (not in CI): the whole fault table, every row through every API, round after round for
// FW_SOAK_SECONDS, with the process's RSS and open descriptors written every FW_SOAK_INTERVAL seconds (60)
// to FW_SOAK_LOG (and stdout). A failing run is logged with its problems; the soak fails if any run failed,
// or if the descriptors did not come back to where they started.
extension FaultSuite {
    static let soakSeconds = ProcessInfo.processInfo.environment["FW_SOAK_SECONDS"].flatMap(Double.init)

    @Test(.enabled(if: soakSeconds != nil, "Scripts/soak.sh sets FW_SOAK_SECONDS"))
    func soak() async throws {
        let environment = ProcessInfo.processInfo.environment
        let log = SoakLog(path: environment["FW_SOAK_LOG"] ?? ".build/soak.log")
        let interval = environment["FW_SOAK_INTERVAL"].flatMap(Double.init) ?? 60
        let start = ContinuousClock.now
        let end = start + .milliseconds(Int((Self.soakSeconds ?? 0) * 1000))
        let tally = LockedBox(SoakLog.Tally())
        let baseline = ProcessResources.descriptorCount
        log.write("# soak: \(Self.rows.count) rows x \(API.allCases.count) APIs per round, \(Self.soakSeconds ?? 0) s, "
                  + "a line every \(interval) s")
        log.write(SoakLog.header)
        log.sample(tally.withLock { $0 }, since: start)
        let sampler = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                if !Task.isCancelled { log.sample(tally.withLock { $0 }, since: start) }
            }
        }
        while ContinuousClock.now < end {
            await Self.runRound(tally: tally, log: log)
            tally.withLock { $0.rounds += 1 }
        }
        sampler.cancel()
        log.sample(tally.withLock { $0 }, since: start)
        let final = tally.withLock { $0 }
        #expect(final.failures == 0, "\(final.failures) of \(final.runs) runs failed: see \(log.path)")
        // Descriptors come back to where they started (a few may belong to other work in flight).
        #expect(await Self.waitFor(10) { ProcessResources.descriptorCount <= baseline + 8 },
                "descriptors: \(baseline) at the start, \(ProcessResources.descriptorCount) at the end")
    }

    /// Every row through every API once, `concurrentRuns` at a time.
    private static func runRound(tally: LockedBox<SoakLog.Tally>, log: SoakLog) async {
        await withTaskGroup(of: Void.self) { group in
            for row in rows {
                for api in API.allCases {
                    group.addTask {
                        let problems = (try? await slots.run { try await check(row, api) })
                            ?? ["the fixture could not start"]
                        tally.withLock {
                            $0.runs += 1
                            if !problems.isEmpty { $0.failures += 1 }
                        }
                        if !problems.isEmpty {
                            log.write("# FAILED \(row.testDescription) via \(api): \(problems.joined(separator: "; "))")
                        }
                    }
                }
            }
        }
    }
}

// MARK: - SoakLog

/// The soak's log: one line per sample, appended to a file and printed.
final class SoakLog: Sendable {
    /// What the soak counted so far.
    struct Tally: Sendable {
        var rounds = 0
        var runs = 0
        var failures = 0
    }

    static let header = "elapsed_s rounds runs failures rss_mb rss_after_trim_mb fds"

    let path: String
    private let lines = LockedBox<[String]>([])

    init(path: String) {
        self.path = path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
    }

    /// Appends a sample: elapsed seconds, the tally, RSS (as it is, then once the allocator returned its
    /// free memory: what is still allocated) and open descriptors.
    func sample(_ tally: Tally, since start: ContinuousClock.Instant) {
        let elapsed = Int((ContinuousClock.now - start) / .seconds(1))
        let rss = Double(ProcessResources.residentBytes) / 1_000_000
        ProcessResources.releaseFreeMemory()
        let trimmed = Double(ProcessResources.residentBytes) / 1_000_000
        write("\(elapsed) \(tally.rounds) \(tally.runs) \(tally.failures) " + String(format: "%.1f %.1f", rss, trimmed)
              + " \(ProcessResources.descriptorCount)")
    }

    /// Appends `line` to the file and prints it.
    func write(_ line: String) {
        print("soak: \(line)")
        let text = lines.withLock { lines in
            lines.append(line)
            return lines.joined(separator: "\n") + "\n"
        }
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
