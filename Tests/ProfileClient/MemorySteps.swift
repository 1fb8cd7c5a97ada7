// MemorySteps: `ProfileClient --memory-steps URL` makes the pieces of a session and of its first GET one at a
// time and reads the resident size of every mapping (`/proc/self/smaps`) after each step, so that the growth
// over a program that only loads Foundation and FWNetworking can be told apart by library and by step. It
// prints a Markdown table: one row per mapping (the shared library's file name, `[heap]`, `[anon]` for
// anonymous mappings such as thread stacks and malloc arenas), its resident KB when loaded, then one column
// per step, each cell the growth in KB that step caused; then the total and the peak RSS (ru_maxrss) after
// each step. The steps are cumulative: a page touched by an earlier step is not counted again.
// Scripts/profile.sh memory-steps runs it (and, with --foundation-first, the Foundation pieces first).

import Dispatch
import Foundation
import FWNetworking

/// The resident KB of each mapping of this process, keyed by mapping name.
private func residentKilobytes() -> [String: Int] {
    guard let file = fopen("/proc/self/smaps", "r") else { return [:] }
    defer { fclose(file) }
    var totals: [String: Int] = [:]
    var current = "[anon]"
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    while getline(&line, &capacity, file) > 0, let line {
        var text = String(cString: line)
        if text.last == "\n" { text.removeLast() }
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = fields.first else { continue }
        if first.contains("-"), first.first?.isHexDigit == true {
            // A mapping's header: range, permissions, offset, device, inode, [name].
            let name = fields.count > 5 ? fields[5...].joined(separator: " ") : "[anon]"
            current = name.hasPrefix("/") ? String(name.split(separator: "/").last ?? "") : name
            if current.hasPrefix("[stack") { current = "[stack]" }
        } else if first == "Rss:", fields.count > 1, let kilobytes = Int(fields[1]) {
            totals[current, default: 0] += kilobytes
        }
    }
    return totals
}

/// The peak resident size so far, in KB.
private func peakKilobytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss
}

/// One measured step: its name and the resident KB per mapping after it.
private struct Step {
    var name: String
    var resident: [String: Int]
    var peak: Int
}

/// Runs the steps against `url` and prints the table; exits 1 when a GET fails. With `foundationFirst`,
/// the Foundation facilities the session's creation may use are made first, each a step of its own, so
/// that what the later steps add is what is left of ours.
func runMemorySteps(url: URL, foundationFirst: Bool) -> Never {
    var steps: [Step] = []
    func measure(_ name: String) {
        steps.append(Step(name: name, resident: residentKilobytes(), peak: peakKilobytes()))
    }
    _ = residentKilobytes() // the reader's own first-use pages
    measure("loaded")

    if foundationFirst {
        _ = ProcessInfo.processInfo.environment
        measure("environment")
        _ = ProcessInfo.processInfo.processName
        measure("process name")
        _ = FileManager.default.homeDirectoryForCurrentUser
        measure("home directory")
        _ = URL(fileURLWithPath: "/tmp", isDirectory: true).appendingPathComponent("a", isDirectory: true)
        measure("file URL")
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "queue"
        measure("operation queue")
        _ = Date()
        _ = JSONDecoder()
        measure("date, JSONDecoder")
    }

    _ = HTTPCookieStorage.shared
    measure("cookie storage")
    _ = URLCredentialStorage.shared
    measure("credential storage")
    _ = URLCache.shared
    measure("URL cache")
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    measure("configuration")
    let session = URLSession(configuration: configuration)
    measure("session")
    let request = URLRequest(url: url)
    measure("request")

    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var failure: String?
    for name in ["first GET", "second GET"] {
        session.dataTask(with: request) { _, response, error in
            if let error { failure = "\(error)" } else if (response as? HTTPURLResponse)?.statusCode != 200 {
                failure = "unexpected response \(String(describing: response))"
            }
            done.signal()
        }.resume()
        done.wait()
        if let failure { exitFailing(failure) }
        measure(name)
    }

    printTable(steps)
    exit(0)
}

/// Prints one row per mapping that grew by 16 KB or more in some step or had 256 KB or more resident when
/// loaded, largest total growth first.
private func printTable(_ steps: [Step]) {
    guard let first = steps.first else { return }
    let names = Set(steps.flatMap(\.resident.keys))
    func growth(_ name: String, _ index: Int) -> Int {
        (steps[index].resident[name] ?? 0) - (steps[index - 1].resident[name] ?? 0)
    }
    func isShown(_ name: String, _ cells: [Int]) -> Bool {
        let loaded: Int = first.resident[name] ?? 0
        return loaded >= 256 || cells.contains { abs($0) >= 16 }
    }
    let rows: [(String, [Int])] = names.map { name in (name, (1..<steps.count).map { growth(name, $0) }) }
        .filter { isShown($0.0, $0.1) }
        .sorted { lhs, rhs in
            let left: Int = lhs.1.reduce(0, +), right: Int = rhs.1.reduce(0, +)
            return left != right ? left > right : (first.resident[lhs.0] ?? 0) > (first.resident[rhs.0] ?? 0)
        }
    let header = steps.dropFirst().map(\.name)
    print("| mapping (KB) | loaded | " + header.joined(separator: " | ") + " | growth |")
    print("|---|--:|" + String(repeating: "--:|", count: header.count) + "--:|")
    for (name, cells) in rows {
        let loaded = first.resident[name] ?? 0
        print("| \(name) | \(loaded) | " + cells.map(String.init).joined(separator: " | ")
              + " | \(cells.reduce(0, +)) |")
    }
    let totals = steps.map { $0.resident.values.reduce(0, +) }
    print("| **total Rss** | \(totals[0]) | " + (1..<steps.count).map { String(totals[$0] - totals[$0 - 1]) }
        .joined(separator: " | ") + " | \(totals[totals.count - 1] - totals[0]) |")
    print("| **peak (ru_maxrss)** | \(first.peak) | " + steps.dropFirst().map { String($0.peak) }
        .joined(separator: " | ") + " | \(steps[steps.count - 1].peak - first.peak) |")
}
