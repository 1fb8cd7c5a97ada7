// WebSocketSinkMachine: every transition of a WebSocket task's own state, input by input, as scripts: no
// socket, no server. The channel is a name ("C"); each step names its input and what must come of it — the
// actions, summarised as text — and a case ends with the close code it must leave.

import Foundation
import Testing

@testable import FWTransport
@testable import FWURLSession

@Suite struct WebSocketSinkMachineTests {
    typealias Machine = WebSocketSinkMachine<String>

    enum Input: Sendable {
        case send, ping, receive, close(Int), abandon, upgraded
        case message(String), messageWhileEnding(String), closeReceived(Int), protocolError(Int)
        case complete, finishedCleanly
        /// `upgraded` whose thread has not finished handing the calls over (another thread calls meanwhile);
        /// `handedOver` is that thread finishing. Every other input's hand-over finishes at once, as in the sink.
        case upgradedStillHandingOver, handedOver
    }

    struct Step: Sendable {
        let input: Input
        let outcome: String
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        var closeCode = URLSessionWebSocketTask.CloseCode.invalid

        var testDescription: String { name }
    }

    struct Ended: Error, CustomStringConvertible {
        var description: String { "ended" }
    }

    private static func step(_ input: Input, _ outcome: String) -> Step {
        Step(input: input, outcome: outcome)
    }

    static let cases: [Case] = [
        Case(name: "open: sends made while another thread hands calls over follow them, in order", steps: [
            step(.send, "-"),
            step(.upgradedStillHandingOver, "C: start send 1"),
            step(.send, "-"),
            step(.ping, "-"),
            step(.close(1000), "-"),
            step(.handedOver, "C: send 1 ping 1 close 1000"),
            step(.send, "C: send 1"),
        ], closeCode: .normalClosure),
        Case(name: "waiting: calls wait and go to the channel in order once upgraded", steps: [
            step(.send, "-"),
            step(.receive, "-"),
            step(.ping, "-"),
            step(.send, "-"),
            step(.receive, "-"),
            step(.upgraded, "C: start request 2 send 2 ping 1"),
            step(.send, "C: send 1"),
            step(.receive, "C: request 1"),
        ]),
        Case(name: "waiting: a close waits (the last one goes out, after the sends); the first sets the code", steps: [
            step(.send, "-"),
            step(.close(1000), "-"),
            step(.close(1001), "-"),
            step(.upgraded, "C: start send 1 close 1001"),
        ], closeCode: .normalClosure),
        Case(name: "open: messages answer the oldest receive; one nobody asked for waits for the next", steps: [
            step(.upgraded, "C: start"),
            step(.receive, "C: request 1"),
            step(.receive, "C: request 1"),
            step(.message("a"), "deliver a"),
            step(.message("b"), "deliver b"),
            step(.message("c"), "-"),
            step(.receive, "queue receive c"),
        ]),
        Case(name: "open: the server's close sets the code and tells the delegate", steps: [
            step(.upgraded, "C: start"),
            step(.closeReceived(1001), "didClose 1001"),
            step(.finishedCleanly, "finish clean"),
            step(.complete, "C: abort | fail 0 receives 0 replies"),
        ], closeCode: .goingAway),
        Case(name: "open: our close keeps its code against the server's", steps: [
            step(.upgraded, "C: start"),
            step(.close(1000), "C: close 1000"),
            step(.closeReceived(1001), "didClose 1001"),
        ], closeCode: .normalClosure),
        Case(name: "open: a protocol error names the code", steps: [
            step(.upgraded, "C: start"),
            step(.protocolError(1009), "-"),
        ], closeCode: .messageTooBig),
        Case(name: "open: once the task is ending messages and closes are dropped", steps: [
            step(.upgraded, "C: start"),
            step(.receive, "C: request 1"),
            step(.messageWhileEnding("a"), "-"),
            step(.complete, "C: abort | fail 1 receives 0 replies"),
        ]),
        Case(name: "abandon while open: goingAway, abort; later messages and closes reach no one; the end cancels",
             steps: [
            step(.upgraded, "C: start"),
            step(.receive, "C: request 1"),
            step(.abandon, "C: close 1001 abort"),
            step(.message("a"), "-"),
            step(.closeReceived(1000), "-"),
            step(.finishedCleanly, "finish cancelled"),
            step(.complete, "C: abort | fail 1 receives 0 replies"),
        ]),
        Case(name: "abandon while waiting: the channel that arrives is aborted", steps: [
            step(.send, "-"),
            step(.abandon, "-"),
            step(.upgraded, "C: abort"),
            step(.complete, "fail 0 receives 1 replies"),
        ]),
        Case(name: "ended before the handshake: the waiting calls fail, later ones too, a channel is aborted", steps: [
            step(.send, "-"),
            step(.ping, "-"),
            step(.receive, "-"),
            step(.complete, "fail 1 receives 2 replies"),
            step(.send, "queue reply ended"),
            step(.ping, "queue reply ended"),
            step(.receive, "queue receive ended"),
            step(.close(1000), "-"),
            step(.upgraded, "C: abort"),
        ]),
        Case(name: "ended after a close: messages parked before the end answer later receives first", steps: [
            step(.upgraded, "C: start"),
            step(.close(1000), "C: close 1000"),
            step(.message("a"), "-"),
            step(.message("b"), "-"),
            step(.complete, "C: abort | fail 0 receives 0 replies"),
            step(.receive, "queue receive a"),
            step(.receive, "queue receive b"),
            step(.receive, "queue receive ended"),
        ], closeCode: .normalClosure),
    ]

    @Test(arguments: cases)
    func script(_ script: Case) {
        var machine = Machine(protocols: [])
        for (index, step) in script.steps.enumerated() {
            let outcome = Self.apply(step.input, to: &machine)
            #expect(outcome == step.outcome, "step \(index + 1): \(step.input)")
        }
        #expect(machine.closeCode == script.closeCode)
    }

    @Test func theMaximumMessageSizeIsNeverNegative() {
        var machine = Machine(protocols: ["chat"])
        #expect(machine.maximumMessageSize == 1024 * 1024)
        machine.maximumMessageSize = -5
        #expect(machine.maximumMessageSize == 0)
        #expect(machine.protocols == ["chat"])
        #expect(!machine.opened)
        _ = machine.upgraded("C")
        #expect(machine.opened)
    }

    private static func apply(_ input: Input, to machine: inout Machine) -> String {
        let reply: Machine.Reply = { _ in }
        let receive: Machine.Receive = { _ in }
        let actions: WebSocketSinkActions<String>
        var finishesHandOver = true
        switch input {
        case .send: actions = machine.send(.text("m"), reply)
        case .ping: actions = machine.ping(reply)
        case .receive: actions = machine.receive(receive)
        case .close(let code):
            let frame = WebSocketCloseFrame(code: WebSocketCloseCode(rawValue: UInt16(code)))
            actions = machine.close(URLSessionWebSocketTask.CloseCode(rawValue: code)!, reason: nil, frame: frame)
        case .abandon: actions = machine.abandon()
        case .upgraded: actions = machine.upgraded("C")
        case .upgradedStillHandingOver:
            actions = machine.upgraded("C")
            finishesHandOver = false
        case .handedOver: actions = machine.handedOver()
        case .message(let text): actions = machine.received(.string(text), taskEnding: false)
        case .messageWhileEnding(let text): actions = machine.received(.string(text), taskEnding: true)
        case .closeReceived(let code):
            actions = machine.closeReceived(URLSessionWebSocketTask.CloseCode(rawValue: code)!, reason: nil,
                                            taskEnding: false)
        case .protocolError(let code):
            machine.closedForProtocolError(URLSessionWebSocketTask.CloseCode(rawValue: code)!)
            return "-"
        case .complete: actions = machine.complete(Ended())
        case .finishedCleanly:
            let error = machine.finishing(with: nil, cancellation: URLError(.cancelled))
            return error == nil ? "finish clean" : "finish cancelled"
        }
        // As `WebSocketSink.run`: the thread that sent asks for the calls made meanwhile until there are none.
        var more = finishesHandOver && actions.handOver
        var outcome = summary(actions)
        while more {
            let next = machine.handedOver()
            more = next.handOver
            if next.channel != nil { outcome += " | then " + summary(next) }
        }
        return outcome
    }

    private static func summary(_ actions: WebSocketSinkActions<String>) -> String {
        var parts: [String] = []
        switch actions.event {
        case .reply(_, let error)?: parts.append("queue reply \(error.map { "\($0)" } ?? "ok")")
        case .answeredReceive(_, .success(.string(let text)))?: parts.append("queue receive \(text)")
        case .answeredReceive(_, .failure(let error))?: parts.append("queue receive \(error)")
        case nil: break
        default: parts.append("queue other")
        }
        if let channel = actions.channel {
            var calls: [String] = []
            if actions.start { calls.append("start") }
            if actions.requestMessages > 0 { calls.append("request \(actions.requestMessages)") }
            if !actions.sends.isEmpty { calls.append("send \(actions.sends.count)") }
            if !actions.pings.isEmpty { calls.append("ping \(actions.pings.count)") }
            if let close = actions.close { calls.append("close \(close.code.map { "\($0.rawValue)" } ?? "-")") }
            if actions.abort { calls.append("abort") }
            parts.append("\(channel): " + calls.joined(separator: " "))
        }
        if case (_, .string(let text))? = actions.deliver { parts.append("deliver \(text)") }
        if case let (code, _)? = actions.didClose { parts.append("didClose \(code.rawValue)") }
        if actions.failure != nil {
            parts.append("fail \(actions.failedReceives.count) receives \(actions.failedReplies.count) replies")
        }
        return parts.isEmpty ? "-" : parts.joined(separator: " | ")
    }
}
