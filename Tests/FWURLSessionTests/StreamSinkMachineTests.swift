// StreamSinkMachine and CapturedStreamMachine: every transition of a stream task's own state and of a
// captured stream's halves, input by input, as scripts: no socket, no server. The channel is a name ("C");
// each step names its input and what must come of it — the actions, summarised as text.

import Foundation
import Testing

@testable import FWTransport
@testable import FWURLSession

@Suite struct StreamSinkMachineTests {
    typealias Machine = StreamSinkMachine<String>

    enum Input: Sendable {
        case read(max: Int), write, closeRead, closeWrite, capture, abandon
        case prefix([UInt8]), attach, responseEnded, answered, take, complete, fail
        /// `attach` whose thread has not finished handing the calls over (another thread calls meanwhile);
        /// `handedOver` is that thread finishing. Every other input's hand-over finishes at once, as in the sink.
        case attachStillHandingOver, handedOver
        case reportsClose(taskEnding: Bool), failsWithoutChannel, finishedCleanly
    }

    struct Step: Sendable {
        let input: Input
        let outcome: String
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]

        var testDescription: String { name }
    }

    struct Ended: Error, CustomStringConvertible {
        var description: String { "ended" }
    }

    private static func step(_ input: Input, _ outcome: String) -> Step {
        Step(input: input, outcome: outcome)
    }

    static let cases: [Case] = [
        Case(name: "open: calls made while another thread hands calls over follow them, in order", steps: [
            step(.closeWrite, "-"),
            step(.attachStillHandingOver, "C: start 0 closeWrite"),
            step(.write, "-"),
            step(.read(max: 1), "-"),
            step(.handedOver, "C: write read"),
            step(.write, "C: write"),
        ]),
        Case(name: "waiting: calls wait; attach starts the channel with the body read so far, then sends them", steps: [
            step(.prefix([1, 2]), "-"),
            step(.read(max: 4), "-"),
            step(.write, "-"),
            step(.closeRead, "-"),
            step(.attach, "C: start 2 read write closeRead"),
            step(.read(max: 4), "C: read"),
            step(.reportsClose(taskEnding: false), "report"),
            step(.reportsClose(taskEnding: true), "silent"),
            step(.finishedCleanly, "finish clean"),
        ]),
        Case(name: "open: a capture waits for the reads and writes made before it", steps: [
            step(.attach, "C: start 0"),
            step(.read(max: 1), "C: read"),
            step(.write, "C: write"),
            step(.capture, "-"),
            step(.capture, "-"),
            step(.answered, "-"),
            step(.answered, "captureNow"),
            step(.take, "take C"),
            step(.take, "-"),
            step(.read(max: 1), "afterEnd read 0 atEnd clean"),
            step(.write, "afterEnd write clean"),
            step(.abandon, "-"),
            step(.complete, "fail 0"),
        ]),
        Case(name: "open: a capture with nothing outstanding is ready at once", steps: [
            step(.attach, "C: start 0"),
            step(.capture, "captureReady"),
            step(.take, "take C"),
        ]),
        Case(name: "waiting: a capture made before the channel happens once what waited was answered", steps: [
            step(.write, "-"),
            step(.capture, "-"),
            step(.attach, "C: start 0 write"),
            step(.answered, "captureNow"),
        ]),
        Case(name: "waiting: a capture with nothing waiting happens when the channel arrives", steps: [
            step(.capture, "-"),
            step(.attach, "C: start 0 | captureNow"),
        ]),
        Case(name: "the response ended without a connection: reads take the body, then the end; a write fails", steps: [
            step(.prefix([1, 2, 3, 4, 5]), "-"),
            step(.read(max: 2), "-"),
            step(.write, "-"),
            step(.read(max: 2), "-"),
            step(.failsWithoutChannel, "fails"),
            step(.responseEnded, "end 2 more, 2 more"),
            step(.responseEnded, "-"),
            step(.read(max: 2), "afterEnd read 1 atEnd clean"),
            step(.read(max: 2), "afterEnd read 0 atEnd clean"),
            step(.attach, "C: abort"),
            step(.complete, "fail 1"),
        ]),
        Case(name: "a response that ends after the channel came changes nothing", steps: [
            step(.attach, "C: start 0"),
            step(.failsWithoutChannel, "keeps"),
            step(.responseEnded, "-"),
        ]),
        Case(name: "abandon while open: the channel is aborted, its close reports reach no one, its end cancels",
             steps: [
            step(.attach, "C: start 0"),
            step(.read(max: 1), "C: read"),
            step(.abandon, "C: abort"),
            step(.reportsClose(taskEnding: false), "silent"),
            step(.finishedCleanly, "finish cancelled"),
            step(.fail, "C: abort | fail 0"),
            step(.answered, "-"),
        ]),
        Case(name: "abandon while waiting: the channel that arrives is aborted, the calls fail at the end", steps: [
            step(.read(max: 1), "-"),
            step(.abandon, "-"),
            step(.attach, "C: abort"),
            step(.fail, "fail 1"),
        ]),
        Case(name: "ended with an error: later calls fail with it, a channel that arrives is aborted", steps: [
            step(.attach, "C: start 0"),
            step(.fail, "C: abort | fail 0"),
            step(.read(max: 1), "afterEnd read 0 atEnd ended"),
            step(.write, "afterEnd write ended"),
            step(.closeRead, "afterEnd closeRead ended"),
            step(.capture, "-"),
            step(.take, "-"),
            step(.attach, "C: abort"),
        ]),
        Case(name: "captured: cancel and the completion leave the streams' channel alone", steps: [
            step(.attach, "C: start 0"),
            step(.capture, "captureReady"),
            step(.take, "take C"),
            step(.abandon, "-"),
            step(.complete, "fail 0"),
        ]),
    ]

    @Test(arguments: cases)
    func script(_ script: Case) {
        var machine = Machine()
        for (index, step) in script.steps.enumerated() {
            let outcome = Self.apply(step.input, to: &machine)
            #expect(outcome == step.outcome, "step \(index + 1): \(step.input)")
        }
    }

    private static func apply(_ input: Input, to machine: inout Machine) -> String {
        let actions: StreamSinkActions<String>
        var finishesHandOver = true
        switch input {
        case .read(let max): actions = machine.call(.read(min: 1, max: max, timeout: nil) { _, _, _ in })
        case .write: actions = machine.call(.write([1], timeout: nil) { _ in })
        case .closeRead: actions = machine.call(.closeRead)
        case .closeWrite: actions = machine.call(.closeWrite)
        case .attachStillHandingOver:
            actions = machine.attach("C")
            finishesHandOver = false
        case .handedOver: actions = machine.handedOver()
        case .capture: actions = machine.capture()
        case .abandon: actions = machine.abandon()
        case .prefix(let bytes):
            machine.received(prefix: bytes)
            return "-"
        case .attach: actions = machine.attach("C")
        case .responseEnded: actions = machine.responseEnded()
        case .answered: actions = machine.answered()
        case .take: return machine.takeForCapture().map { "take \($0)" } ?? "-"
        case .complete: actions = machine.complete(nil, failure: Ended())
        case .fail: actions = machine.complete(Ended(), failure: Ended())
        case .reportsClose(let ending): return machine.reportsClose(taskEnding: ending) ? "report" : "silent"
        case .failsWithoutChannel: return machine.failsWithoutChannel ? "fails" : "keeps"
        case .finishedCleanly:
            let error = machine.finishing(with: nil, cancellation: URLError(.cancelled))
            return error == nil ? "finish clean" : "finish cancelled"
        }
        // As `StreamSink.run`: the thread that sent asks for the calls made meanwhile until there are none.
        var more = finishesHandOver && actions.handOver
        var outcome = summary(actions)
        while more {
            let next = machine.handedOver()
            more = next.handOver
            if next.channel != nil { outcome += " | then " + summary(next) }
        }
        return outcome
    }

    private static func name(_ call: StreamCall) -> String {
        switch call {
        case .read: "read"
        case .write: "write"
        case .closeRead: "closeRead"
        case .closeWrite: "closeWrite"
        case .startTLS: "startTLS"
        case .stopTLS: "stopTLS"
        }
    }

    private static func summary(_ actions: StreamSinkActions<String>) -> String {
        var parts: [String] = []
        if let channel = actions.channel {
            var calls: [String] = []
            if let prefix = actions.start { calls.append("start \(prefix.count)") }
            calls += actions.calls.map(name)
            if actions.abort { calls.append("abort") }
            parts.append("\(channel): " + calls.joined(separator: " "))
        }
        if case let (call, error, rest)? = actions.afterEnd {
            var text = "afterEnd \(name(call))"
            if case .read = call { text += " \(rest.bytes.count) \(rest.atEnd ? "atEnd" : "more")" }
            parts.append(text + " \(error.map { "\($0)" } ?? "clean")")
        }
        if actions.captureReady { parts.append("captureReady") }
        if actions.captureNow { parts.append("captureNow") }
        if let answers = actions.endedWithoutChannel {
            parts.append("end " + answers.map { "\($0.1.bytes.count) \($0.1.atEnd ? "atEnd" : "more")" }
                .joined(separator: ", "))
        }
        if actions.failure != nil { parts.append("fail \(actions.failedCalls.count)") }
        return parts.isEmpty ? "-" : parts.joined(separator: " | ")
    }
}

@Suite struct CapturedStreamMachineTests {
    @Test func aHalfOpensOnceAndClosesOnce() {
        var half = CapturedStreamMachine()
        #expect(half.status == .notOpen)
        #expect(half.transfer() == -1)
        half.open()
        #expect(half.status == .open && half.isOpen)
        #expect(half.transfer() == nil)
        let first = half.close()
        let second = half.close()
        #expect(first && !second)
        half.open()
        #expect(half.status == .closed)
        #expect(half.transfer() == -1)
    }

    @Test func aReadAtTheEndReturnsZeroFromThenOn() {
        var half = CapturedStreamMachine()
        half.open()
        half.readReachedEnd()
        #expect(half.status == .atEnd && !half.isOpen)
        #expect(half.transfer() == 0)
        let closed = half.close()
        #expect(closed)
    }

    @Test func aFailureEndsTheHalfWithTheConnectionsError() {
        var half = CapturedStreamMachine()
        half.open()
        half.fail(.cancelled)
        #expect(half.status == .error)
        #expect((half.failure as? URLError)?.code == .cancelled)
        #expect(half.transfer() == -1)
    }
}
