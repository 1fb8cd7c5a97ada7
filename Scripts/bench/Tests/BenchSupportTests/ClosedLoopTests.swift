import BenchSupport
import Dispatch
import Synchronization
import Testing

/// Counts what a fake client sees: requests started, the most in flight at once.
private final class FakeServer: Sendable {
    private struct Counts {
        var started = 0
        var inFlight = 0
        var maxInFlight = 0
    }

    private let counts = Mutex(Counts())

    var started: Int { counts.withLock { $0.started } }
    var maxInFlight: Int { counts.withLock { $0.maxInFlight } }

    func begin() -> Int {
        counts.withLock { counts in
            counts.started += 1
            counts.inFlight += 1
            counts.maxInFlight = max(counts.maxInFlight, counts.inFlight)
            return counts.started
        }
    }

    func end() {
        counts.withLock { $0.inFlight -= 1 }
    }
}

// MARK: - Callback driver

@Test(arguments: [(1, 10), (4, 100), (32, 1000), (1000, 1000), (8, 3)])
func callbackLoopRunsExactlyTheCount(concurrency: Int, requests: Int) {
    let server = FakeServer()
    let queue = DispatchQueue(label: "fake client", attributes: .concurrent)
    let totals = ClosedLoop(concurrency: concurrency, amount: .requests(requests)).run { complete in
        let number = server.begin()
        queue.async {
            server.end()
            complete(number.isMultiple(of: 10) ? .failure("fault \(number)") : .success(bytes: 64))
        }
    }
    let failures = requests / 10
    #expect(server.started == requests)
    #expect(server.maxInFlight <= min(concurrency, requests))
    #expect(totals.completed == requests - failures)
    #expect(totals.failed == failures)
    #expect(totals.bytes == 64 * (requests - failures))
    #expect(totals.firstError?.hasPrefix("fault ") ?? (failures == 0))
    #expect(totals.seconds > 0)
}

@Test func callbackLoopStopsStartingAtTheDeadline() {
    let server = FakeServer()
    let queue = DispatchQueue(label: "fake client")
    let totals = ClosedLoop(concurrency: 2, amount: .seconds(0.2)).run { complete in
        _ = server.begin()
        queue.asyncAfter(deadline: .now() + .milliseconds(5)) {
            server.end()
            complete(.success(bytes: 1))
        }
    }
    #expect(server.maxInFlight <= 2)
    #expect(totals.completed == server.started)
    #expect(totals.completed >= 10)
    #expect(totals.seconds >= 0.2 && totals.seconds < 5)
}

// MARK: - Async driver

@Test(arguments: [(1, 10), (16, 500)])
func asyncLoopRunsExactlyTheCount(concurrency: Int, requests: Int) async {
    let server = FakeServer()
    let totals = await ClosedLoop(concurrency: concurrency, amount: .requests(requests)).runAsync {
        _ = server.begin()
        await Task.yield()
        server.end()
        return .success(bytes: 10)
    }
    #expect(server.started == requests)
    #expect(server.maxInFlight <= concurrency)
    #expect(totals.completed == requests)
    #expect(totals.bytes == 10 * requests)
    #expect(totals.failed == 0)
}

@Test func asyncLoopStopsStartingAtTheDeadline() async {
    let totals = await ClosedLoop(concurrency: 3, amount: .seconds(0.1)).runAsync {
        try? await Task.sleep(for: .milliseconds(2))
        return .failure("refused")
    }
    #expect(totals.completed == 0)
    #expect(totals.failed >= 3)
    #expect(totals.firstError == "refused")
    #expect(totals.seconds >= 0.1 && totals.seconds < 5)
}
