// TaskLifecycle: every transition of the task's lifecycle diagram, input by input, without sockets.

import Testing

@testable import FWURLSession

@Suite struct TaskLifecycleTests {
    enum Input: String, Sendable {
        case resume, suspend, cancel, finish
    }

    /// One input and what must come of it: the action, the public state, and whether delivery is held.
    struct Step: Sendable {
        let input: Input
        let action: TaskLifecycle.Action
        let state: URLSessionTask.State
        let held: Bool
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]

        var testDescription: String { name }
    }

    private static func step(_ input: Input, _ action: TaskLifecycle.Action, _ state: URLSessionTask.State,
                             held: Bool = false) -> Step {
        Step(input: input, action: action, state: state, held: held)
    }

    static let cases: [Case] = [
        // created
        Case(name: "created: resume starts the request", steps: [
            step(.resume, .start, .running),
        ]),
        Case(name: "created: suspends nest before the first resume", steps: [
            step(.suspend, .none, .suspended),
            step(.suspend, .none, .suspended),
            step(.resume, .none, .suspended),
            step(.resume, .none, .suspended),
            step(.resume, .start, .running),
        ]),
        Case(name: "created: cancel, then finish completes", steps: [
            step(.cancel, .cancel, .canceling),
            step(.finish, .complete, .completed),
        ]),
        Case(name: "created after a suspend: cancel", steps: [
            step(.suspend, .none, .suspended),
            step(.cancel, .cancel, .canceling),
        ]),
        // running
        Case(name: "running: resume again changes nothing", steps: [
            step(.resume, .start, .running),
            step(.resume, .none, .running),
        ]),
        Case(name: "running: finish completes", steps: [
            step(.resume, .start, .running),
            step(.finish, .complete, .completed),
        ]),
        Case(name: "running: suspend pauses delivery, resume lets it go", steps: [
            step(.resume, .start, .running),
            step(.suspend, .pauseDelivery, .suspended, held: true),
            step(.resume, .resumeDelivery, .running),
        ]),
        Case(name: "running: suspends nest, only the last resume lets delivery go", steps: [
            step(.resume, .start, .running),
            step(.suspend, .pauseDelivery, .suspended, held: true),
            step(.suspend, .none, .suspended, held: true),
            step(.suspend, .none, .suspended, held: true),
            step(.resume, .none, .suspended, held: true),
            step(.resume, .none, .suspended, held: true),
            step(.resume, .resumeDelivery, .running),
            step(.resume, .none, .running),
        ]),
        Case(name: "running: cancel, then the transport's end completes", steps: [
            step(.resume, .start, .running),
            step(.cancel, .cancel, .canceling),
            step(.finish, .complete, .completed),
        ]),
        // suspended
        Case(name: "suspended: cancel stops holding", steps: [
            step(.resume, .start, .running),
            step(.suspend, .pauseDelivery, .suspended, held: true),
            step(.suspend, .none, .suspended, held: true),
            step(.cancel, .cancel, .canceling),
            step(.finish, .complete, .completed),
        ]),
        Case(name: "suspended: the transfer may still end", steps: [
            step(.resume, .start, .running),
            step(.suspend, .pauseDelivery, .suspended, held: true),
            step(.finish, .complete, .completed),
        ]),
        // canceling
        Case(name: "canceling: resume, suspend and cancel change nothing", steps: [
            step(.resume, .start, .running),
            step(.cancel, .cancel, .canceling),
            step(.resume, .none, .canceling),
            step(.suspend, .none, .canceling),
            step(.cancel, .none, .canceling),
            step(.finish, .complete, .completed),
        ]),
        // completed
        Case(name: "completed: a finish that lost the race, and every other input, change nothing", steps: [
            step(.resume, .start, .running),
            step(.finish, .complete, .completed),
            step(.finish, .none, .completed),
            step(.cancel, .none, .completed),
            step(.suspend, .none, .completed),
            step(.resume, .none, .completed),
        ]),
        Case(name: "completed: a cancel that lost the race to the transport's end", steps: [
            step(.resume, .start, .running),
            step(.finish, .complete, .completed),
            step(.cancel, .none, .completed),
            step(.finish, .none, .completed),
        ]),
    ]

    @Test func aNewTaskIsSuspendedAndNotHeld() {
        let lifecycle = TaskLifecycle()
        #expect(lifecycle.publicState == .suspended)
        #expect(!lifecycle.isSuspended)
    }

    @Test(arguments: cases)
    func transitions(_ test: Case) {
        var lifecycle = TaskLifecycle()
        for (index, step) in test.steps.enumerated() {
            let action: TaskLifecycle.Action
            switch step.input {
            case .resume: action = lifecycle.resume()
            case .suspend: action = lifecycle.suspend()
            case .cancel: action = lifecycle.cancel()
            case .finish: action = lifecycle.finish()
            }
            let position = Comment(rawValue: "step \(index + 1), \(step.input)")
            #expect(action == step.action, position)
            #expect(lifecycle.publicState == step.state, position)
            #expect(lifecycle.isSuspended == step.held, position)
        }
    }
}
