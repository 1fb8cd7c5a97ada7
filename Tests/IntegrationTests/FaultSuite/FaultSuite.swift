import Foundation
import FWNetworking
import Testing
import TestSupport

// The fault suite (issue 18): a FaultProxy between the client and real servers (nginx, `openssl s_server`)
// spoils one phase of the attempt — connect, TLS, request head, request body, response head, response body,
// idle reuse, and the wait for a free connection — and every row runs through the four ways of making a
// request (completion handler, delegate, async, download). Each run asserts the URLError, its time within
// generous bounds (a stall ends after the restrictive timeout, 1 s, whichever of the session's and the
// request's it is), that nothing is left behind (no task, nothing waiting, connecting or leased in the
// pool, and — once the session is invalidated — no socket of this process on the row's ports, none held
// by the proxy), and that the session keeps working once the fault is gone.
//
// At most `concurrentRuns` rows run at once (each starts its own nginx). `Scripts/soak.sh` runs the table
// over and over for an hour (`FW_SOAK_SECONDS`), logging RSS and descriptors every minute (`soak()`).
@Suite struct FaultSuite {
    /// The restrictive timeout of rows that stall.
    static let stallTimeout = 1.0
    /// The timeout of the other rows (their failures come fast; a stall there shows as a wrong error).
    static let workingTimeout = 5.0
    static let concurrentRuns = 6
    static let slots = Slots(concurrentRuns)

    @Test(arguments: rows, API.allCases)
    func aFaultEndsTheRequestAsExpectedAndLeavesNothingBehind(_ row: Row, _ api: API) async throws {
        let problems = try await Self.slots.run { try await Self.check(row, api) }
        #expect(problems.isEmpty, "\(row.testDescription) via \(api): \(problems.joined(separator: "; "))")
    }

    // MARK: One run

    /// Runs `row` through `api`; what went wrong, if anything.
    static func check(_ row: Row, _ api: API) async throws -> [String] {
        let fixture = try await offThePool { try Fixture(row, api) }
        do {
            let problems = try await check(row, api, on: fixture)
            await offThePool { fixture.stop() }
            return problems
        } catch {
            await offThePool { fixture.stop() }
            throw error
        }
    }

    private static func check(_ row: Row, _ api: API, on fixture: Fixture) async throws -> [String] {
        var problems: [String] = []
        let blocker = row.phase == .queue ? await startBlocker(fixture, problems: &problems) : nil
        if row.phase == .idleReuse { await primeIdleConnection(fixture, problems: &problems) }
        guard let outcome = await run(fixture.measuredRequest, api, on: fixture, bound: row.bound) else {
            return problems + ["the request did not end within \(row.bound + 5) s"]
        }
        let ended = outcome.error.map { "\($0.code)" } ?? "success"
        print("FaultSuite: \(row.testDescription) via \(api): \(ended) after "
              + String(format: "%.2f s", outcome.seconds))
        if outcome.error?.code != row.expected {
            let got = outcome.error.map { "\($0.code): \($0.localizedDescription)" } ?? "success"
            problems.append("ended with \(got), expected \(row.expected.map { "\($0)" } ?? "success")")
        }
        if outcome.seconds >= row.bound { problems.append("took \(outcome.seconds) s, bound \(row.bound) s") }
        if row.timesOut, outcome.seconds < row.timeout - 0.05 {
            problems.append("timed out after \(outcome.seconds) s, before its \(row.timeout) s")
        }
        if row.expected == nil, outcome.bodyCount != expectedBodyCount(of: row) {
            problems.append("a body of \(outcome.bodyCount) bytes, expected \(expectedBodyCount(of: row))")
        }
        blocker?.cancel()
        return problems + (await leftovers(fixture))
    }

    /// The queue row's blocker: a slow (throttled, never idle) download that takes the only connection.
    private static func startBlocker(_ fixture: Fixture, problems: inout [String]) async -> URLSessionTask {
        let blocker = fixture.session.dataTask(with: URL(string: fixture.proxyBase + "/files/body.bin")!)
        blocker.resume()
        let origin = URL(string: fixture.proxyBase)!
        if !(await waitFor(5) { fixture.session.connectionPoolCounters(for: origin).leased == 1 }) {
            problems.append("the blocker did not get the connection")
        }
        return blocker
    }

    /// The idle-reuse rows: one request, then the server (the proxy) closes the kept-alive connection.
    private static func primeIdleConnection(_ fixture: Fixture, problems: inout [String]) async {
        let first = await run(fixture.healthyRequest, .completionHandler, on: fixture, bound: 10)
        if first == nil || first?.error != nil {
            problems.append("the first request failed: \(String(describing: first))")
        }
        try? await Task.sleep(for: .milliseconds(600))
    }

    /// The body a row that succeeds gets (its rows all talk to nginx).
    static func expectedBodyCount(of row: Row) -> Int {
        if case .file = row.load { return fileSize }
        return "small\n".utf8.count
    }

    // MARK: Leftovers

    /// What the row left behind: live tasks, pool entries, a session that stopped working, open sockets.
    static func leftovers(_ fixture: Fixture) async -> [String] {
        var problems: [String] = []
        let session = fixture.session
        var live = await session.liveTaskCount()
        for _ in 0..<1000 where live > 0 {
            try? await Task.sleep(for: .milliseconds(10))
            live = await session.liveTaskCount()
        }
        if live > 0 { problems.append("\(live) tasks still live") }
        for url in [fixture.measuredURL, URL(string: fixture.proxyBase)!] {
            let clean = await waitFor(10) {
                let counters = session.connectionPoolCounters(for: url)
                return counters.waiting == 0 && counters.connecting == 0 && counters.leased == 0
            }
            if !clean { problems.append("pool for \(url): \(session.connectionPoolCounters(for: url))") }
        }
        fixture.proxy.fault = .none
        let healthy = await run(fixture.healthyRequest, .completionHandler, on: fixture, bound: 10)
        if healthy == nil || healthy?.error != nil || healthy?.bodyCount == 0 {
            problems.append("the session stopped working: \(String(describing: healthy))")
        }
        session.finishTasksAndInvalidate()
        let socketsClosed = await waitFor(10, every: .milliseconds(100)) {
            ProcessResources.socketCount(touching: fixture.ports) <= fixture.baselineSockets
        }
        if !socketsClosed {
            let count = ProcessResources.socketCount(touching: fixture.ports)
            problems.append("\(count) sockets on ports \(fixture.ports.sorted()), \(fixture.baselineSockets) before")
        }
        if !(await waitFor(10) { fixture.proxy.openConnectionCount == 0 }) {
            problems.append("the proxy still holds \(fixture.proxy.openConnectionCount) connections")
        }
        return problems
    }

    /// Runs blocking work (starting and stopping servers) on a dispatch thread, not on one of the few
    /// threads of the concurrency pool, whose starvation would delay the async rows' own completions.
    static func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// See `offThePool(_:)`, for work that does not throw.
    static func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

extension URLSession {
    /// How many tasks have not completed (`getAllTasks`).
    func liveTaskCount() async -> Int {
        await withCheckedContinuation { continuation in
            getAllTasks { tasks in continuation.resume(returning: tasks.count) }
        }
    }
}

// MARK: - Slots

/// A counting semaphore for async code: at most `count` bodies run at once.
actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) {
        free = count
    }

    /// Runs `body` once a slot is free.
    nonisolated func run<Value: Sendable>(_ body: @Sendable () async throws -> Value) async rethrows -> Value {
        await acquire()
        defer { Task { await release() } }
        return try await body()
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
