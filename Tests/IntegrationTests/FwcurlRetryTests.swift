import Foundation
import Testing
import TestSupport

// fwcurl --retry, --retry-delay, --retry-max-time and --retry-all-errors with curl's meaning, against
// scripted servers: one that fails N times then answers, one that answers 503 with Retry-After, one that
// resets every connection, and one that never answers.

// MARK: - A scripted server that counts requests

/// Answers request n (from 1) with `reply(n)`: the text to send, nil to stay silent, or "RESET" to reset
/// the connection; notes when each request arrived.
final class CountingServer: Sendable {
    let server: ScriptedServer
    let arrivals = LockedBox<[ContinuousClock.Instant]>([])

    init(_ reply: @escaping @Sendable (Int) -> String?) throws {
        let arrivals = arrivals
        server = try ScriptedServer { connection in
            while try connection.readRequest() != nil {
                let number = arrivals.withLock { arrivals -> Int in
                    arrivals.append(ContinuousClock.now)
                    return arrivals.count
                }
                switch reply(number) {
                case nil:
                    _ = connection.waitForClose(timeout: 30)
                    return
                case "RESET":
                    connection.reset()
                    return
                case let text?:
                    try connection.write(text)
                }
            }
        }
    }

    var url: String { "http://127.0.0.1:\(server.port)/file" }
    var count: Int { arrivals.withLock { $0.count } }

    /// Seconds between consecutive requests.
    var gaps: [Double] {
        let times = arrivals.withLock { $0 }
        return zip(times, times.dropFirst()).map { pair in
            let duration = pair.0.duration(to: pair.1)
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
    }

    static func response(_ status: Int, _ body: String, headers: [String] = []) -> String {
        let fields = (["Content-Length: \(body.utf8.count)"] + headers).map { $0 + "\r\n" }.joined()
        return "HTTP/1.1 \(status) Status\r\n\(fields)\r\n\(body)"
    }
}

// MARK: - Tests

@Suite struct FwcurlRetryTests {
    @Test func aTransientHTTPErrorIsRetriedAndOnlyTheLastBodyIsPrinted() throws {
        let flaky = try CountingServer { number in
            number <= 2 ? CountingServer.response(503, "busy\n") : CountingServer.response(200, "ok\n")
        }
        let run = try Fwcurl.run(["-v", "--retry", "3", "--retry-delay", "0.2", flaky.url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "ok\n")
        #expect(flaky.count == 3)
        let warning = "Warning: Problem : HTTP error. Will retry in 0.2 seconds."
        #expect(run.stderr.components(separatedBy: warning).count == 3)
        #expect(run.stderr.contains("* 3 attempts in "))
        #expect(flaky.gaps.allSatisfy { $0 >= 0.19 }, "\(flaky.gaps)")
    }

    @Test func withoutRetryDelayTheWaitDoubles() throws {
        let flaky = try CountingServer { number in
            number <= 2 ? CountingServer.response(500, "down\n") : CountingServer.response(200, "ok\n")
        }
        let run = try Fwcurl.run(["--retry", "2", flaky.url], timeout: 60)
        #expect(run.status == 0 && run.text == "ok\n")
        #expect(run.stderr.contains("Will retry in 1 seconds. 2 retries left."))
        #expect(run.stderr.contains("Will retry in 2 seconds. 1 retry left."))
        let gaps = flaky.gaps
        #expect(gaps.count == 2 && gaps[0] >= 0.99 && gaps[1] >= 1.99, "\(gaps)")
    }

    @Test func aRetryAfterWinsOverTheDelay() throws {
        let busy = try CountingServer { number in
            number == 1
                ? CountingServer.response(503, "", headers: ["Retry-After: 1"]) : CountingServer.response(200, "ok")
        }
        let run = try Fwcurl.run(["--retry", "1", "--retry-delay", "0", busy.url])
        #expect(run.status == 0 && run.text == "ok")
        #expect(busy.gaps.allSatisfy { $0 >= 0.99 }, "\(busy.gaps)")
    }

    @Test func noRetryStartsAfterTheMaximumTime() throws {
        let failing = try CountingServer { _ in CountingServer.response(500, "down\n") }
        // Attempt 2 starts at ~1 s; a third would start at ~2 s, past the 1.5 s limit.
        let run = try Fwcurl.run(["--retry", "5", "--retry-delay", "1", "--retry-max-time", "1.5", failing.url])
        #expect(run.status == 0, "an HTTP error is no failure without -f, as with curl")
        #expect(run.text == "down\n")
        #expect(failing.count == 2)
    }

    @Test func onlyRetryAllErrorsRetriesAConnectionFailure() throws {
        let resetting = try CountingServer { _ in "RESET" }
        let once = try Fwcurl.run(["--retry", "2", "--retry-delay", "0.1", resetting.url])
        #expect(once.status != 0 && resetting.count == 1)
        let all = try Fwcurl.run(["--retry", "2", "--retry-delay", "0.1", "--retry-all-errors", resetting.url])
        #expect(all.status != 0)
        #expect(resetting.count == 1 + 3)
        #expect(all.stderr.contains("Warning: Problem : error."))
    }

    @Test func aTimeoutIsRetried() throws {
        let silent = try CountingServer { _ in nil }
        let run = try Fwcurl.run(["--retry", "1", "--retry-delay", "0.1", "--max-time", "0.5", silent.url])
        #expect(run.status != 0)
        #expect(silent.count == 2)
        #expect(run.stderr.contains("Warning: Problem : timeout."))
    }

    @Test func anOutputFileHoldsOnlyTheLastAttempt() throws {
        let flaky = try CountingServer { number in
            number == 1 ? CountingServer.response(502, "bad gateway page\n") : CountingServer.response(200, "ok\n")
        }
        let path = NSTemporaryDirectory() + "fwcurl-retry-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try Fwcurl.run(["-s", "--retry", "1", "--retry-delay", "0", "-o", path, flaky.url])
        #expect(run.status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "ok\n")
        #expect(!run.stderr.contains("Warning"), "-s hides the retry warnings")
    }
}
