// TaskStateMachine: every transition of the task's lifecycle, its deliveries, its transport request and its
// reading pause, input by input, as scripts: no socket, no server, no clock. Each step names its input and
// what must come of it — the actions, summarised as text, and the public state.

import Foundation
import Testing

@testable import FWTransport
@testable import FWURLSession

@Suite struct TaskStateMachineTests {
    enum Input: Sendable {
        case resume, resumeHeard, suspend, suspendHeard, cancel, finish, finishFailing
        case accepted(UInt64), transmitting
        case head, headFrom(UInt64), body(Int), end
        case hold, release
        case drain
    }

    /// One input and its outcome: the actions (and for `drain`, what is delivered) and the public state.
    struct Step: Sendable {
        let input: Input
        let outcome: String
        let state: URLSessionTask.State
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]

        var testDescription: String { name }
    }

    private static func step(_ input: Input, _ outcome: String, _ state: URLSessionTask.State) -> Step {
        Step(input: input, outcome: outcome, state: state)
    }

    static let lifecycle: [Case] = [
        Case(name: "created: resume starts", steps: [
            step(.resume, "start", .running),
        ]),
        Case(name: "created: resume heard by a state delegate queues taskDidResume first", steps: [
            step(.resumeHeard, "drain start", .running),
            step(.drain, "deliver resumed", .running),
            step(.drain, "-", .running),
        ]),
        Case(name: "created: suspensions nest before the first resume", steps: [
            step(.suspend, "-", .suspended),
            step(.suspend, "-", .suspended),
            step(.resume, "-", .suspended),
            step(.resume, "-", .suspended),
            step(.resume, "start", .running),
        ]),
        Case(name: "created: cancel queues the failure, then finish completes with it", steps: [
            step(.cancel, "stopLoad drain", .canceling),
            step(.drain, "deliver fail (ending)", .canceling),
            step(.finish, "completes cancelled", .completed),
        ]),
        Case(name: "running: resume again changes nothing", steps: [
            step(.resume, "start", .running),
            step(.resume, "-", .running),
        ]),
        Case(name: "running: finish completes, once", steps: [
            step(.resume, "start", .running),
            step(.finish, "completes", .completed),
            step(.finish, "-", .completed),
            step(.cancel, "-", .completed),
            step(.suspend, "-", .completed),
            step(.resume, "-", .completed),
        ]),
        Case(name: "running: suspend holds delivery and pauses reading; resume lets both go", steps: [
            step(.resume, "start", .running),
            step(.accepted(1), "-", .running),
            step(.suspendHeard, "pause(R1 paused v1) drain", .suspended),
            step(.head, "-", .suspended),
            step(.drain, "deliver suspended", .suspended),
            step(.drain, "-", .suspended),
            step(.resumeHeard, "pause(R1 reading v2) drain", .running),
            step(.drain, "deliver resumed", .running),
            step(.drain, "deliver head", .running),
            step(.drain, "-", .running),
        ]),
        Case(name: "running: suspensions nest, only the last resume lets delivery go", steps: [
            step(.resume, "start", .running),
            step(.suspend, "-", .suspended),
            step(.suspend, "-", .suspended),
            step(.head, "-", .suspended),
            step(.resume, "-", .suspended),
            step(.resume, "drain", .running),
            step(.drain, "deliver head", .running),
        ]),
        Case(name: "suspended: cancel lifts the suspension and delivers the failure", steps: [
            step(.resume, "start", .running),
            step(.accepted(7), "-", .running),
            step(.suspend, "pause(R7 paused v1)", .suspended),
            step(.cancel, "cancel(R7) stopLoad drain", .canceling),
            step(.drain, "deliver fail (ending)", .canceling),
            step(.finish, "completes cancelled", .completed),
        ]),
        Case(name: "suspended: the transfer may still end", steps: [
            step(.resume, "start", .running),
            step(.suspend, "-", .suspended),
            step(.finish, "completes", .completed),
        ]),
        Case(name: "canceling: resume, suspend and cancel change nothing; an error that raced becomes cancelled",
             steps: [
                step(.resume, "start", .running),
                step(.cancel, "stopLoad drain", .canceling),
                step(.resume, "-", .canceling),
                step(.suspend, "-", .canceling),
                step(.cancel, "-", .canceling),
                step(.finishFailing, "completes cancelled", .completed),
             ]),
    ]

    static let transport: [Case] = [
        Case(name: "a request accepted after cancel() is cancelled at once", steps: [
            step(.resume, "start", .running),
            step(.cancel, "stopLoad drain", .canceling),
            step(.accepted(3), "cancel(R3)", .canceling),
        ]),
        Case(name: "a request accepted while suspended is paused at once; a running one is not told", steps: [
            step(.resume, "start", .running),
            step(.suspend, "-", .suspended),
            step(.accepted(4), "pause(R4 paused v1)", .suspended),
            step(.resume, "pause(R4 reading v2)", .running),
            step(.accepted(5), "-", .running),
        ]),
        Case(name: "events that come before execute returned make the request known", steps: [
            step(.resume, "start", .running),
            step(.headFrom(6), "drain", .running),
            step(.suspend, "pause(R6 paused v1)", .suspended),
            step(.accepted(6), "pause(R6 paused v2)", .suspended),
        ]),
        Case(name: "a request accepted after the task ended (a timeout or local failure raced it) is cancelled",
             steps: [
                step(.resume, "start", .running),
                step(.finishFailing, "completes -1005", .completed),
                step(.accepted(8), "cancel(R8)", .completed),
             ]),
        Case(name: "the next hop's request is unknown until accepted: nothing goes to the last one", steps: [
            step(.resume, "start", .running),
            step(.accepted(1), "-", .running),
            step(.transmitting, "-", .running),
            step(.suspend, "-", .suspended),
            step(.accepted(2), "pause(R2 paused v1)", .suspended),
        ]),
        Case(name: "events are drained in order, one drain at a time", steps: [
            step(.resume, "start", .running),
            step(.head, "drain", .running),
            step(.body(10), "-", .running),
            step(.end, "-", .running),
            step(.drain, "deliver head", .running),
            step(.drain, "deliver body", .running),
            step(.drain, "deliver end", .running),
            step(.drain, "-", .running),
            step(.head, "drain", .running),
        ]),
        Case(name: "a hold stops the drain; its release schedules the next one", steps: [
            step(.resume, "start", .running),
            step(.head, "drain", .running),
            step(.body(10), "-", .running),
            step(.drain, "deliver head", .running),
            step(.hold, "-", .running),
            step(.drain, "-", .running),
            step(.release, "drain", .running),
            step(.drain, "deliver body", .running),
        ]),
        Case(name: "a backlog pauses reading past the high-water mark and resumes under the low-water mark", steps: [
            step(.resume, "start", .running),
            step(.accepted(2), "-", .running),
            step(.body(DeliveryQueue.highWater / 2 - 4096), "drain", .running),
            step(.body(DeliveryQueue.highWater / 2 - 4096), "-", .running),
            step(.body(DeliveryQueue.highWater / 2 - 4096), "pause(R2 paused v1)", .running),
            step(.drain, "deliver body", .running),
            step(.drain, "deliver body", .running),
            step(.drain, "pause(R2 reading v2) deliver body", .running),
        ]),
        Case(name: "after cancel() queued events are delivered as ending", steps: [
            step(.resume, "start", .running),
            step(.head, "drain", .running),
            step(.cancel, "stopLoad", .canceling),
            step(.drain, "deliver head (ending)", .canceling),
            step(.drain, "deliver fail (ending)", .canceling),
        ]),
    ]

    @Test func aNewTaskIsSuspendedAndNotHeld() {
        let machine = TaskStateMachine()
        #expect(machine.publicState == .suspended)
        #expect(!machine.isSuspended)
        #expect(!machine.isEnding)
    }

    @Test(arguments: lifecycle + transport)
    func transitions(_ test: Case) {
        var machine = TaskStateMachine()
        for (index, step) in test.steps.enumerated() {
            let outcome = Self.apply(step.input, to: &machine)
            let position = Comment(rawValue: "step \(index + 1), \(step.input)")
            #expect(outcome == step.outcome, position)
            #expect(machine.publicState == step.state, position)
        }
    }

    @Test func handOverMovesTheTransferAndForwardsLaterEvents() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let successor = session.downloadTask(with: try #require(URL(string: "http://127.0.0.1:9/")))
        var machine = TaskStateMachine()
        _ = machine.resume(hearsState: false)
        _ = machine.accepted(RequestID(9))
        _ = machine.suspend(hearsState: false)
        _ = machine.resume(hearsState: false)
        machine.counts.received = 42
        machine.responseDelivered(URLResponse(url: try #require(URL(string: "http://127.0.0.1:9/")), mimeType: nil,
                                              expectedContentLength: 100, textEncodingName: nil))

        let moved = machine.handOver(to: successor, keepingTransfer: true)
        #expect(machine.publicState == .completed)
        #expect(machine.isEnding)
        #expect(moved.publicState == .running)
        #expect(moved.requestID == RequestID(9))
        #expect(moved.counts.received == 42)
        #expect(moved.counts.expectedToReceive == 100)
        #expect(moved.response?.expectedContentLength == 100)
        // The moved pause keeps its version: the successor's next decision is newer than the data task's.
        var successorMachine = moved
        _ = successorMachine.suspend(hearsState: false)
        #expect(Self.summary(successorMachine.resume(hearsState: false)) == "pause(R9 reading v4)")

        _ = machine.enqueue(.transport(.end(trailers: HTTPHeaders())))
        let (delivery, _) = machine.nextDelivery()
        guard case .forward(.transport(.end), let to)? = delivery else {
            Issue.record("expected the end forwarded, got \(String(describing: delivery))")
            return
        }
        #expect(to === successor)
        // Once handed over the task neither completes nor cancels.
        #expect(machine.finish(error: nil, cancellation: URLError(.cancelled)).0 == false)
        #expect(Self.summary(machine.cancel(failure: URLError(.cancelled))) == "-")
    }

    @Test func aBatchOfTransportEventsIsMovedInOrderAndItsListLeftEmpty() {
        var machine = TaskStateMachine()
        _ = machine.resume(hearsState: false)
        let head = HTTPResponseHead(version: .http1_1, status: 200, reason: "OK", headers: HTTPHeaders())
        var events: [TransportEvent] = [.head(head), .body([1, 2, 3]), .end(trailers: HTTPHeaders())]
        let capacity = events.capacity
        #expect(Self.summary(machine.received(&events, from: RequestID(7))) == "drain")
        #expect(events.isEmpty)
        #expect(events.capacity == capacity) // the connection keeps the list for its next events
        #expect(machine.requestID == RequestID(7))
        var delivered: [String] = []
        while case let (delivery?, _) = machine.nextDelivery() {
            guard case .deliver(.transport(let event), _) = delivery else {
                Issue.record("expected a transport event, got \(delivery)")
                return
            }
            switch event {
            case .head(let head): delivered.append("head \(head.status)")
            case .body(let bytes): delivered.append("body \(bytes)")
            case .end: delivered.append("end")
            default: delivered.append("\(event)")
            }
        }
        #expect(delivered == ["head 200", "body [1, 2, 3]", "end"])
    }

    @Test func aStreamHandOverKeepsTheResponseOnly() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let successor = session.streamTask(withHostName: "127.0.0.1", port: 9)
        var machine = TaskStateMachine()
        _ = machine.resume(hearsState: false)
        _ = machine.accepted(RequestID(2))
        machine.counts.received = 5
        let moved = machine.handOver(to: successor, keepingTransfer: false)
        #expect(moved.requestID == nil)
        #expect(moved.counts.received == 0)
        #expect(moved.publicState == .running)
    }

    // MARK: Driving the machine

    private static func apply(_ input: Input, to machine: inout TaskStateMachine) -> String {
        switch input {
        case .resume: return summary(machine.resume(hearsState: false))
        case .resumeHeard: return summary(machine.resume(hearsState: true))
        case .suspend: return summary(machine.suspend(hearsState: false))
        case .suspendHeard: return summary(machine.suspend(hearsState: true))
        case .cancel: return summary(machine.cancel(failure: URLError(.cancelled)))
        case .finish, .finishFailing:
            let error: (any Error)? = if case .finishFailing = input { URLError(.networkConnectionLost) } else { nil }
            let (completes, decided) = machine.finish(error: error, cancellation: URLError(.cancelled))
            guard completes else { return "-" }
            machine.completed(with: decided)
            guard let decided else { return "completes" }
            let code = (decided as? URLError)?.code
            return code == .cancelled ? "completes cancelled" : "completes \(code.map { "\($0.rawValue)" } ?? "\(decided)")"
        case .accepted(let number): return summary(machine.accepted(RequestID(number)))
        case .transmitting:
            machine.transmitting()
            return "-"
        case .headFrom(let number):
            let head = HTTPResponseHead(version: .http1_1, status: 200, reason: "OK", headers: HTTPHeaders())
            return summary(machine.received(.head(head), from: RequestID(number)))
        case .head:
            let head = HTTPResponseHead(version: .http1_1, status: 200, reason: "OK", headers: HTTPHeaders())
            return summary(machine.enqueue(.transport(.head(head))))
        case .body(let count):
            return summary(machine.enqueue(.transport(.body([UInt8](repeating: 0, count: count)))))
        case .end: return summary(machine.enqueue(.transport(.end(trailers: HTTPHeaders()))))
        case .hold:
            machine.hold(.awaitingDisposition)
            return "-"
        case .release: return summary(machine.release(.awaitingDisposition))
        case .drain:
            let (delivery, actions) = machine.nextDelivery()
            let parts = [summary(actions), delivery.map(describe) ?? "-"].filter { $0 != "-" }
            return parts.isEmpty ? "-" : parts.joined(separator: " ")
        }
    }

    static func summary(_ actions: TaskActions) -> String {
        var parts: [String] = []
        if let request = actions.cancelRequest { parts.append("cancel(\(request))") }
        if actions.stopProtocolLoad { parts.append("stopLoad") }
        if let pause = actions.readingPause {
            parts.append("pause(\(pause.request) \(pause.paused ? "paused" : "reading") v\(pause.version))")
        }
        if actions.scheduleDrain { parts.append("drain") }
        if actions.start { parts.append("start") }
        return parts.isEmpty ? "-" : parts.joined(separator: " ")
    }

    private static func describe(_ delivery: TaskStateMachine.Delivery) -> String {
        switch delivery {
        case .forward(let event, _): return "forward \(name(event))"
        case .deliver(let event, let ending): return "deliver \(name(event))" + (ending ? " (ending)" : "")
        }
    }

    private static func name(_ event: TaskEvent) -> String {
        switch event {
        case .resumed: "resumed"
        case .suspended: "suspended"
        case .fail: "fail"
        case .transport(.head): "head"
        case .transport(.body): "body"
        case .transport(.end): "end"
        default: "\(event)"
        }
    }
}
