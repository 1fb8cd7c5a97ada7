// ProtocolLoadStateMachine: every row of a URL protocol load's lifecycle, its reports and its challenges, input
// by input, as scripts: no instance runs, no queue, no server. Each step names its input and what must come of
// it — the action summarised as text — and the machine's state afterwards.

import Foundation
import Testing

@testable import FWURLSession

@Suite struct ProtocolLoadStateMachineTests {
    enum Input: Sendable {
        case start, stop
        /// The instance reports a response under `policy`; `limit` is the cache's capacity (nil: no cache).
        case received(URLCache.StoragePolicy, limit: Int?)
        case loaded(String)
        case withdraw(Int)
    }

    /// One input, the action it returns ("-": none), and the state after it.
    struct Step: Sendable {
        let input: Input
        let action: String
        let state: String
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        /// After the script: the bytes counted, the body proposed for the cache (nil: none), the challenges
        /// (1, 2) that still take an answer.
        var bytes: Int64 = 0
        var proposal: String?
        var awaiting: Set<Int> = [1, 2]

        var testDescription: String { name }
    }

    private static func step(_ input: Input, _ action: String, _ state: String) -> Step {
        Step(input: input, action: action, state: state)
    }

    static let cases: [Case] = [
        Case(name: "start, then stop: the instance starts once and stops once", steps: [
            step(.start, "startLoading", "started"),
            step(.stop, "stopLoading", "stopped"),
        ], awaiting: []),
        Case(name: "stopped again and again: stopLoading once", steps: [
            step(.start, "startLoading", "started"),
            step(.stop, "stopLoading", "stopped"),
            step(.stop, "-", "stopped"),
            step(.stop, "-", "stopped"),
        ], awaiting: []),
        Case(name: "stopped before it started: never started, never stopped", steps: [
            step(.stop, "-", "stopped"),
            step(.start, "-", "stopped"),
            step(.stop, "-", "stopped"),
        ], awaiting: []),
        Case(name: "a running load counts its body and proposes it for the cache", steps: [
            step(.start, "startLoading", "started"),
            step(.received(.allowed, limit: 10), "-", "started"),
            step(.loaded("ab"), "-", "started"),
            step(.loaded("c"), "-", "started"),
        ], bytes: 3, proposal: "abc"),
        Case(name: "reports after the stop change nothing", steps: [
            step(.start, "startLoading", "started"),
            step(.received(.allowed, limit: 10), "-", "started"),
            step(.loaded("ab"), "-", "started"),
            step(.stop, "stopLoading", "stopped"),
            step(.loaded("cd"), "-", "stopped"),
            step(.received(.notAllowed, limit: nil), "-", "stopped"),
        ], bytes: 2, proposal: "ab", awaiting: []),
        Case(name: "an empty body in memory only is proposed", steps: [
            step(.received(.allowedInMemoryOnly, limit: 10), "-", "idle"),
        ], proposal: ""),
        Case(name: "a policy that forbids storing proposes nothing", steps: [
            step(.received(.notAllowed, limit: 10), "-", "idle"),
            step(.loaded("ab"), "-", "idle"),
        ], bytes: 2),
        Case(name: "without a cache nothing is proposed", steps: [
            step(.received(.allowed, limit: nil), "-", "idle"),
            step(.loaded("ab"), "-", "idle"),
        ], bytes: 2),
        Case(name: "a body that outgrows the cache is dropped, still counted", steps: [
            step(.received(.allowed, limit: 5), "-", "idle"),
            step(.loaded("abc"), "-", "idle"),
            step(.loaded("def"), "-", "idle"),
        ], bytes: 6),
        Case(name: "a second response starts the body again", steps: [
            step(.received(.allowed, limit: 10), "-", "idle"),
            step(.loaded("ab"), "-", "idle"),
            step(.received(.allowed, limit: 10), "-", "idle"),
            step(.loaded("c"), "-", "idle"),
        ], bytes: 3, proposal: "c"),
        Case(name: "a withdrawn challenge takes no answer, the others do", steps: [
            step(.start, "startLoading", "started"),
            step(.withdraw(1), "-", "started"),
        ], awaiting: [2]),
    ]

    @Test(arguments: cases)
    func script(_ script: Case) {
        let instance = URLProtocol(request: URLRequest(url: URL(string: "stub://load")!), cachedResponse: nil,
                                   client: nil)
        let response = URLResponse(url: URL(string: "stub://load")!, mimeType: nil, expectedContentLength: -1,
                                   textEncodingName: nil)
        let challenges = [1: Self.challenge(), 2: Self.challenge()]
        var machine = ProtocolLoadStateMachine()
        for (index, step) in script.steps.enumerated() {
            var action = ProtocolLoadStateMachine.Action.none
            switch step.input {
            case .start: action = machine.start(instance)
            case .stop: action = machine.stop()
            case .received(let policy, let limit): machine.received(response, storagePolicy: policy, cacheLimit: limit)
            case .loaded(let text): machine.loaded(Data(text.utf8))
            case .withdraw(let number): machine.withdraw(ObjectIdentifier(challenges[number]!))
            }
            #expect(Self.summary(action, instance: instance) == step.action, "step \(index): \(step.input)")
            #expect(Self.summary(machine.state, instance: instance) == step.state, "step \(index): \(step.input)")
        }
        #expect(machine.bytesLoaded == script.bytes)
        #expect(machine.storageProposal.map { String(decoding: $0.data, as: UTF8.self) } == script.proposal)
        #expect(machine.storageProposal.map { $0.response === response } ?? true)
        let awaiting = Set(challenges.keys.filter { machine.awaitsAnswer(to: ObjectIdentifier(challenges[$0]!)) })
        #expect(awaiting == script.awaiting)
    }

    @Test func theProposalKeepsTheReportedPolicy() {
        for policy in [URLCache.StoragePolicy.allowed, .allowedInMemoryOnly] {
            var machine = ProtocolLoadStateMachine()
            machine.received(URLResponse(url: URL(string: "stub://p")!, mimeType: nil, expectedContentLength: -1,
                                         textEncodingName: nil), storagePolicy: policy, cacheLimit: 100)
            #expect(machine.storageProposal?.storagePolicy == policy)
        }
    }

    // MARK: Helpers

    private static func summary(_ action: ProtocolLoadStateMachine.Action, instance: URLProtocol) -> String {
        switch action {
        case .none: "-"
        case .startLoading(let started): started === instance ? "startLoading" : "startLoading(another)"
        case .stopLoading(let stopped): stopped === instance ? "stopLoading" : "stopLoading(another)"
        }
    }

    private static func summary(_ state: ProtocolLoadStateMachine.State, instance: URLProtocol) -> String {
        switch state {
        case .idle: "idle"
        case .started(let started): started === instance ? "started" : "started(another)"
        case .stopped: "stopped"
        }
    }

    private static func challenge() -> URLAuthenticationChallenge {
        let space = URLProtectionSpace(host: "example.test", port: 80, protocol: "http", realm: "r",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        return URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil, previousFailureCount: 0,
                                          failureResponse: nil, error: nil,
                                          sender: URLSessionAuthenticationChallengeSender { _, _ in })
    }
}
