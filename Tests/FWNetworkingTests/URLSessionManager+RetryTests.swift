import Foundation
@testable import FWNetworking
import Testing
import TestSupport

// The retrying request builder against scripted servers that fail N times then succeed, never answer, or
// answer 503 with Retry-After: the counts, the spacing and the deadline (lower bounds exact, upper bounds
// generous: the machine may be loaded), the builder called per attempt, the task handler, cancellation,
// an asynchronous shouldRetry, and the request totals on the final response.

// MARK: - Scripted servers

/// A keep-alive server that answers request n with `reply(n)` (from 1), or never when it returns nil;
/// it notes when each request arrived and the `X-Attempt` field each one carried.
final class AttemptServer: Sendable {
    let server: ScriptedServer
    let arrivals = LockedBox<[(at: ContinuousClock.Instant, attempt: String?)]>([])

    init(_ reply: @escaping @Sendable (Int) -> String?) throws {
        let arrivals = arrivals
        server = try ScriptedServer { connection in
            while let request = try connection.readRequest() {
                let number = arrivals.withLock { arrivals -> Int in
                    arrivals.append((ContinuousClock.now, request.header("X-Attempt")))
                    return arrivals.count
                }
                guard let text = reply(number) else {
                    _ = connection.waitForClose(timeout: 30)
                    return
                }
                try connection.write(text)
            }
        }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(server.port)/retry") ?? URL(fileURLWithPath: "/") }
    var count: Int { arrivals.withLock { $0.count } }

    /// Seconds between consecutive arrivals.
    var gaps: [Double] {
        let times = arrivals.withLock { $0.map(\.at) }
        return zip(times, times.dropFirst()).map { pair in
            let duration = pair.0.duration(to: pair.1)
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
    }

    static func response(_ status: Int, _ body: String = "", headers: [String] = []) -> String {
        let fields = (["Content-Length: \(body.utf8.count)"] + headers).map { $0 + "\r\n" }.joined()
        return "HTTP/1.1 \(status) Status\r\n\(fields)\r\n\(body)"
    }
}

/// What the retrying builder's completion handler got, with the totals of its response.
struct RetryResult: @unchecked Sendable { // lets only: handed from the completion queue to the test
    let result: ManagerResult
    let count: Int
    let time: TimeInterval
}

// MARK: - Tests

@Suite struct URLSessionManagerRetryTests {
    /// Runs the builder with `manager` and waits for its completion.
    static func run(_ manager: URLSessionManager, url: URL, retryCount: Int, retryInterval: TimeInterval,
                    timeoutInterval: TimeInterval = 0, requestTimeout: TimeInterval = 30,
                    shouldRetry: URLSessionManager.ShouldRetryHandler? = nil,
                    taskHandler: (@Sendable (URLSessionDataTask) -> Void)? = nil) -> RetryResult? {
        let outcome = LockedBox<RetryResult?>(nil)
        let attempt = LockedBox(0)
        manager.dataTask(requestBuilder: {
            var request = URLRequest(url: url)
            request.timeoutInterval = requestTimeout
            request.setValue("\(attempt.withLock { $0 += 1; return $0 })", forHTTPHeaderField: "X-Attempt")
            return request
        }, retryCount: retryCount, retryInterval: retryInterval, timeoutInterval: timeoutInterval,
                         shouldRetry: shouldRetry, taskHandler: taskHandler,
                         completionHandler: { response, object, error in
            let result = ManagerResult(response: response, object: object, error: error)
            outcome.withLock {
                $0 = RetryResult(result: result, count: manager.requestTotalCount(for: response),
                                 time: manager.requestTotalTime(for: response))
            }
        }).resume()
        return ManagerTests.wait(for: outcome, timeout: 60)
    }

    @Test func aFlakyServerIsRetriedUntilItAnswers() throws {
        let flaky = try AttemptServer { $0 <= 2 ? AttemptServer.response(500) : AttemptServer.response(200, "ok") }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let attempts = LockedBox<[Int]>([])
        let ran = Self.run(manager, url: flaky.url, retryCount: 3, retryInterval: 0.3,
                           taskHandler: { task in attempts.withLock { $0.append(task.taskIdentifier) } })
        let outcome = try #require(ran)
        #expect(outcome.result.status == 200 && outcome.result.error == nil)
        #expect(outcome.count == 3 && flaky.count == 3)
        #expect(flaky.arrivals.withLock { $0.map(\.attempt) } == ["1", "2", "3"], "a new request per attempt")
        #expect(Set(attempts.withLock { $0 }).count == 3, "the task handler saw each attempt's task")
        #expect(flaky.gaps.allSatisfy { $0 >= 0.29 && $0 < 30 }, "\(flaky.gaps)")
        #expect(outcome.time >= 0.6 && outcome.time < 60)
    }

    @Test func theRetriesStopAtTheRetryCount() throws {
        let failing = try AttemptServer { _ in AttemptServer.response(500, "down") }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let ran = Self.run(manager, url: failing.url, retryCount: 2, retryInterval: 0.05)
        let outcome = try #require(ran)
        #expect(outcome.count == 3 && failing.count == 3)
        #expect(outcome.result.status == 500)
        #expect((outcome.result.error as? NSError)?.code == NSURLErrorBadServerResponse)
    }

    @Test func noAttemptStartsAfterTheDeadline() throws {
        let silent = try AttemptServer { _ in nil }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        // Attempt 1 times out at ~0.5 s (a late timeout still leaves 1.5 s before the second attempt would
        // miss the deadline); attempt 2 starts at ~2.5 s and times out at ~3 s; a third could not start
        // before ~5 s, after the 4 s deadline, so none does.
        let ran = Self.run(manager, url: silent.url, retryCount: 10, retryInterval: 2,
                                            timeoutInterval: 4, requestTimeout: 0.5)
        let outcome = try #require(ran)
        #expect(outcome.result.urlError?.code == .timedOut)
        #expect(outcome.count == 2 && silent.count == 2)
        #expect(silent.gaps.allSatisfy { $0 >= 2.49 }, "\(silent.gaps)")
        #expect(outcome.time >= 2.99 && outcome.time < 60)
    }

    @Test func retryAfterOnA503IsHonoured() throws {
        let busy = try AttemptServer { number in
            number == 1 ? AttemptServer.response(503, headers: ["Retry-After: 1"]) : AttemptServer.response(200, "ok")
        }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let ran = Self.run(manager, url: busy.url, retryCount: 1, retryInterval: 0)
        let outcome = try #require(ran)
        #expect(outcome.result.status == 200 && outcome.count == 2)
        #expect(busy.gaps.allSatisfy { $0 >= 0.99 && $0 < 30 }, "\(busy.gaps)")
    }

    @Test func shouldRetryDecidesLaterFromAnotherQueue() throws {
        let failing = try AttemptServer { _ in AttemptServer.response(500) }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let asked = LockedBox<[Int]>([])
        let ran = Self.run(manager, url: failing.url, retryCount: 5, retryInterval: 0, shouldRetry: {
            response, _, _, decide in
            let round = asked.withLock { asked -> Int in
                asked.append((response as? HTTPURLResponse)?.statusCode ?? 0)
                return asked.count
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
                decide(round < 2)
                decide(true)
            }
        })
        let outcome = try #require(ran)
        #expect(asked.withLock { $0 } == [500, 500])
        #expect(outcome.count == 2 && failing.count == 2)
    }

    @Test func cancellingAnAttemptStopsTheRetries() throws {
        let silent = try AttemptServer { _ in nil }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let asked = LockedBox(0)
        let shouldRetry: URLSessionManager.ShouldRetryHandler = { _, _, _, decide in
            asked.withLock { $0 += 1 }
            decide(true)
        }
        let ran = Self.run(manager, url: silent.url, retryCount: 5, retryInterval: 0, shouldRetry: shouldRetry,
                           taskHandler: { task in
            DispatchQueue.global().async {
                _ = waitUntil(timeout: 10) { silent.count == 1 }
                task.cancel()
            }
        })
        let outcome = try #require(ran)
        #expect(outcome.result.urlError?.code == .cancelled)
        #expect(outcome.count == 1 && silent.count == 1 && asked.withLock { $0 } == 0)
    }

    // MARK: The default decision and Retry-After

    static func response(_ status: Int, _ headers: [String: String] = [:]) -> HTTPURLResponse? {
        HTTPURLResponse(url: URL(fileURLWithPath: "/"), statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: headers)
    }

    @Test func theDefaultRetriesAnErrorOrAStatusOutside2xx() throws {
        let placeholder = URLResponse(url: URL(fileURLWithPath: "/"), mimeType: nil, expectedContentLength: -1,
                                      textEncodingName: nil)
        let rows: [(URLResponse, (any Error)?, Bool)] = [
            (try #require(Self.response(500)), nil, true),
            (try #require(Self.response(503)), nil, true),
            (try #require(Self.response(404)), NSError(domain: "serializer", code: 1), true),
            (try #require(Self.response(404)), nil, true),
            (try #require(Self.response(302)), nil, true),
            (try #require(Self.response(200)), nil, false),
            (try #require(Self.response(204)), nil, false),
            (try #require(Self.response(299)), nil, false),
            (try #require(Self.response(200)), NSError(domain: "serializer", code: 3), true),
            (placeholder, URLError(.timedOut), true),
            (placeholder, URLError(.cannotConnectToHost), true),
            (placeholder, URLError(.serverCertificateUntrusted), true),
            (placeholder, URLError(.badURL), true),
            (placeholder, NSError(domain: "other", code: 2), true),
            (placeholder, nil, false),
        ]
        for (response, error, retried) in rows {
            let outcome = Outcome(response: response, object: nil, error: error, userInfo: [:])
            #expect(RetryingRequest.isFailure(outcome) == retried, "\(String(describing: error)) \(response)")
        }
    }

    @Test func retryAfterNeverWaitsPastTheDeadlineAndIsCappedWithoutOne() {
        let cap = RetryingRequest.retryAfterCap
        #expect(cap == 60)
        let rows: [(interval: Double, retryAfter: Double?, timeout: Double, elapsed: Double, wait: Double?)] = [
            (1, nil, 0, 0, 1),
            (1, 5, 0, 0, 5),
            (1, 3600, 0, 0, cap),
            (120, 3600, 0, 0, 120),
            (1, 5, 10, 2, 5),
            (1, 8, 10, 2, nil),
            (1, 3600, 10, 0, nil),
            (4, nil, 10, 7, nil),
            (0, 0, 10, 9.5, 0),
        ]
        for row in rows {
            let wait = RetryingRequest.wait(retryInterval: row.interval, retryAfter: row.retryAfter,
                                            timeoutInterval: row.timeout, elapsed: row.elapsed)
            #expect(wait == row.wait, "\(row)")
        }
    }

    @Test func aRetryAfterPastTheDeadlineEndsTheRequestAtOnce() throws {
        let busy = try AttemptServer { _ in AttemptServer.response(503, headers: ["Retry-After: 3600"]) }
        let manager = ManagerTests.manager()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let ran = Self.run(manager, url: busy.url, retryCount: 3, retryInterval: 0, timeoutInterval: 20)
        let outcome = try #require(ran)
        #expect(outcome.result.status == 503 && outcome.count == 1 && busy.count == 1)
    }

    @Test func anInvalidatedSessionStopsTheRetriesWithItsError() throws {
        let failing = try AttemptServer { _ in AttemptServer.response(500) }
        let manager = ManagerTests.manager()
        let asked = LockedBox(0)
        // The first attempt fails; before the second starts the session is invalidated and kept.
        let ran = Self.run(manager, url: failing.url, retryCount: 5, retryInterval: 0, shouldRetry: {
            _, _, _, decide in
            asked.withLock { $0 += 1 }
            manager.invalidateSessionCancelingTasks(false, resetSession: false)
            decide(true)
        })
        let outcome = try #require(ran)
        #expect(outcome.result.urlError?.code == .unknown)
        #expect(outcome.result.errorDescription.contains("invalidated"))
        #expect(outcome.count == 2 && failing.count == 1 && asked.withLock { $0 } == 1)
    }

    @Test func retryAfterIsReadFrom429And503Only() throws {
        #expect(RetryingRequest.retryAfter(try #require(Self.response(503, ["Retry-After": "7"]))) == 7)
        #expect(RetryingRequest.retryAfter(try #require(Self.response(429, ["Retry-After": " 2 "]))) == 2)
        #expect(RetryingRequest.retryAfter(try #require(Self.response(500, ["Retry-After": "7"]))) == nil)
        #expect(RetryingRequest.retryAfter(try #require(Self.response(503, ["Retry-After": "soon"]))) == nil)
        #expect(RetryingRequest.retryAfter(try #require(Self.response(503, ["Retry-After": "-3"]))) == 0)
        let past = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(RetryingRequest.retryAfter(try #require(Self.response(503, ["Retry-After": past]))) == 0)
    }

    @Test func requestTotalsAreKeptPerResponse() throws {
        let manager = URLSessionManager()
        let first = try #require(Self.response(200))
        let second = try #require(Self.response(200))
        #expect(manager.requestTotalCount(for: first) == 0 && manager.requestTotalTime(for: first) == 0)
        manager.setRequestTotalCount(4, for: first)
        manager.setRequestTotalTime(1.25, for: first)
        #expect(manager.requestTotalCount(for: first) == 4 && manager.requestTotalTime(for: first) == 1.25)
        #expect(manager.requestTotalCount(for: second) == 0)
    }
}
