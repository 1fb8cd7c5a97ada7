// AllocationBudget: counts heap allocations per keep-alive GET through URLSession with completion handlers
// and through HTTPTransport alone, against a loopback responder, and fails when a count exceeds the
// checked-in budget (budget.txt). Counts, not times: deterministic under load. Run by Scripts/test.sh
// (debug build) and Scripts/alloc-budget.sh (debug and release).
//
//   AllocationBudget [--suggest] [--budget FILE]
//     --suggest   print the measured counts and budget lines with ~10% headroom, never fail on a budget

import CAllocationCounter
import Foundation

#if DEBUG
let configuration = "debug"
#else
let configuration = "release"
#endif
let requestsPerRound = 1_000
let rounds = 3
let warmUpRequests = 200

var arguments = CommandLine.arguments.dropFirst()
let suggesting = arguments.contains("--suggest")
arguments.removeAll { $0 == "--suggest" }
var budgetPath = Budget.defaultPath
if let index = arguments.firstIndex(of: "--budget"), arguments.index(after: index) < arguments.endIndex {
    budgetPath = arguments[arguments.index(after: index)]
}

func exitFailing(_ message: String) -> Never {
    FileHandle.standardError.write(Data("AllocationBudget: \(message)\n".utf8))
    exit(1)
}

guard ac_is_active() == 1 else { exitFailing("the interposed malloc is not active; counts would be 0") }

let budget: Budget
let responder: LoopbackResponder
let scenarios: [Scenario]
do {
    budget = try Budget(contentsOf: budgetPath)
    responder = try LoopbackResponder()
    scenarios = [Scenario.urlSession(port: responder.port), try Scenario.transport(port: responder.port)]
} catch {
    exitFailing("\(error)")
}

print("Heap allocations per keep-alive GET (\(configuration) build, \(requestsPerRound) requests, "
      + "fewest of \(rounds) rounds):")
var failed = false
var suggestions: [String] = []
for scenario in scenarios {
    if let failure = scenario.send(warmUpRequests) {
        exitFailing("\(scenario.name): warm-up request failed: \(failure)")
    }
    var fewest = UInt64.max
    for _ in 0..<rounds {
        ac_start()
        let failure = scenario.send(requestsPerRound)
        let count = ac_stop()
        if let failure { exitFailing("\(scenario.name): request failed: \(failure)") }
        fewest = min(fewest, count)
    }
    scenario.finish()
    let perRequest = Double(fewest) / Double(requestsPerRound)
    let key = "\(scenario.name).\(configuration)"
    let measured = (perRequest * 10).rounded() / 10
    suggestions.append("\(key) \(Int((perRequest * 1.1).rounded(.up)))")
    guard let limit = budget.limits[key] else {
        print("  \(key): \(measured) per request, no budget")
        if !suggesting { failed = true }
        continue
    }
    let verdict = perRequest <= limit ? "ok" : "OVER BUDGET"
    print("  \(key): \(measured) per request, budget \(limit): \(verdict)")
    if perRequest > limit && !suggesting { failed = true }
}
if suggesting {
    print("Budget lines (measured + 10%) for \(budgetPath):")
    suggestions.forEach { print($0) }
}
if failed {
    exitFailing("over budget: find the new allocations (Scripts/profile.sh, or valgrind --tool=massif), or raise "
                + "the budget in \(budgetPath) with the reason in the commit message")
}
