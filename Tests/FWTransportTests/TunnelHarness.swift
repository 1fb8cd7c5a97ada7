@testable import FWTransport
import Testing

// The tunnel machines' test runner (STYLE.md principle 7, as ParserHarness runs the parser): every case is
// a script of the proxy's answers, each fed four ways — whole, one byte at a time, split at every offset,
// and (the last answer) followed by more bytes — and every way must produce the same actions.

/// One step of an exchange: what the proxy answers, and what the machine must do once it has it all.
struct TunnelStep: Sendable {
    var answer: [UInt8]
    var then: ProxyTunnelAction
}

/// One tunnel case: a fresh machine, the bytes it must send first, then the proxy's answers.
struct TunnelCase: Sendable, CustomTestStringConvertible {
    var name: String
    var make: @Sendable () -> ProxyTunnel
    var first: [UInt8]
    var steps: [TunnelStep]
    var testDescription: String { name }
}

enum TunnelHarness {
    /// Bytes that follow the last answer in the fourth way: the origin's first bytes.
    static let trailingBytes: [UInt8] = Array("\u{16}\u{03}\u{03}origin".utf8)

    /// Runs `testCase` the four ways and records an issue for each way whose actions differ.
    static func check(_ testCase: TunnelCase, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = testCase.steps.map(\.then)
        #expect(run(testCase) { [$0] } == expected, "fed whole", sourceLocation: sourceLocation)
        #expect(run(testCase) { $0.map { [$0] } } == expected, "fed byte by byte", sourceLocation: sourceLocation)
        let longest = testCase.steps.map(\.answer.count).max() ?? 0
        for offset in 0...longest {
            let split = run(testCase) { answer in
                let cut = min(offset, answer.count)
                return [Array(answer[..<cut]), Array(answer[cut...])]
            }
            guard split == expected else {
                Issue.record("split at \(offset): \(split)", sourceLocation: sourceLocation)
                break
            }
        }
        var trailing = testCase
        trailing.steps[trailing.steps.count - 1].answer += trailingBytes
        var trailingExpected = expected
        if case .established(let leftover) = expected.last {
            trailingExpected[expected.count - 1] = .established(leftover: leftover + trailingBytes)
        }
        #expect(run(trailing) { [$0] } == trailingExpected, "followed by more bytes", sourceLocation: sourceLocation)
    }

    /// Starts a machine (its first bytes must be the case's), then feeds each answer in the pieces `split`
    /// makes of it; the result of a step is the first action other than `waitForMore` (a failure may come
    /// before the answer is complete; a success must not). Stops at the first failure.
    static func run(_ testCase: TunnelCase, split: ([UInt8]) -> [[UInt8]]) -> [ProxyTunnelAction] {
        var tunnel = testCase.make()
        var actions: [ProxyTunnelAction] = []
        let first = tunnel.start()
        guard first == .write(testCase.first) else { return [.failed(.malformedReply("started with \(first)"))] }
        for step in testCase.steps {
            var result = ProxyTunnelAction.waitForMore
            var unfed = step.answer.count
            for piece in split(step.answer) where result == .waitForMore && !piece.isEmpty {
                result = tunnel.receive(piece)
                unfed -= piece.count
            }
            if unfed > 0, result != .waitForMore, !result.isFailure {
                result = .failed(.malformedReply("\(result) came \(unfed) bytes before the answer was complete"))
            }
            actions.append(result)
            if result.isFailure { break }
        }
        return actions
    }
}

extension ProxyTunnelAction {
    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}
