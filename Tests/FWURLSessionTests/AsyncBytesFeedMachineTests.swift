// AsyncBytesFeedMachine: the response, the body pieces, the end and the backpressure of `bytes(for:)`, input
// by input: no socket, no server, no Swift task. The waiters are names.

import Foundation
import Testing

@testable import FWURLSession

@Suite struct AsyncBytesFeedMachineTests {
    typealias Machine = AsyncBytesFeedMachine<String, String>

    struct Failed: Error {}

    /// The actions as text: who is answered with what, and what happens to the task.
    private static func summary(_ actions: Machine.Actions) -> String {
        var parts: [String] = []
        if actions.resumeTask { parts.append("resume") }
        switch actions.responseWaiter {
        case (let waiter, .success)?: parts.append("\(waiter) response")
        case (let waiter, .failure(let error))?:
            let name = (error as? URLError)?.code == .badServerResponse ? "badServerResponse" : "error"
            parts.append("\(waiter) \(name)")
        case nil: break
        }
        switch actions.chunkWaiter {
        case (let waiter, .success(let bytes?))?: parts.append("\(waiter) \(bytes.count)")
        case (let waiter, .success(nil))?: parts.append("\(waiter) end")
        case (let waiter, .failure)?: parts.append("\(waiter) error")
        case nil: break
        }
        if actions.suspendTask { parts.append("suspend") }
        return parts.isEmpty ? "-" : parts.joined(separator: " | ")
    }

    private static let response = URLResponse(url: URL(string: "http://127.0.0.1/")!, mimeType: nil,
                                              expectedContentLength: -1, textEncodingName: nil)

    @Test func theResponseAnswersTheWaiterOrWhoeverAsksLater() {
        var machine = Machine()
        #expect(Self.summary(machine.waitForResponse("R")) == "-")
        #expect(Self.summary(machine.responded(Self.response)) == "R response")
        #expect(Self.summary(machine.waitForResponse("S")) == "S response")
    }

    @Test func piecesGoToTheWaitingReaderElseQueueInOrder() {
        var machine = Machine()
        #expect(Self.summary(machine.take(orWait: "A")) == "-")
        #expect(Self.summary(machine.append([1, 2, 3])) == "A 3")
        #expect(Self.summary(machine.append([])) == "-")
        #expect(Self.summary(machine.append([1])) == "-")
        #expect(Self.summary(machine.append([1, 2])) == "-")
        #expect(Self.summary(machine.take(orWait: "B")) == "B 1")
        #expect(Self.summary(machine.finish(error: nil)) == "-")
        #expect(Self.summary(machine.take(orWait: "C")) == "C 2")
        #expect(Self.summary(machine.take(orWait: "D")) == "D end")
        #expect(Self.summary(machine.take(orWait: "E")) == "E end")
    }

    @Test func aCleanEndWithoutAResponseFailsTheResponseWaiterAndEndsTheReader() {
        var machine = Machine()
        _ = machine.waitForResponse("R")
        _ = machine.take(orWait: "A")
        #expect(Self.summary(machine.finish(error: nil)) == "R badServerResponse | A end")
        #expect(Self.summary(machine.waitForResponse("S")) == "S badServerResponse")
    }

    @Test func aFailureReachesTheReaderAfterThePiecesQueuedBeforeIt() {
        var machine = Machine()
        _ = machine.responded(Self.response)
        _ = machine.append([1])
        #expect(Self.summary(machine.finish(error: Failed())) == "-")
        #expect(Self.summary(machine.take(orWait: "A")) == "A 1")
        #expect(Self.summary(machine.take(orWait: "B")) == "B error")
    }

    @Test func aReaderThatFallsBehindSuspendsTheTaskUntilItCatchesUp() {
        var machine = Machine()
        let piece = [UInt8](repeating: 0, count: 64 * 1024)
        var suspends = 0
        for _ in 0..<40 where machine.append(piece).suspendTask { suspends += 1 }
        #expect(suspends == 1)
        #expect(machine.suspendedTask)
        #expect(machine.bufferedBytes > Machine.highWater)
        var resumes = 0
        var pieces = 0
        while machine.bufferedBytes > 0 {
            let actions = machine.take(orWait: "A")
            if actions.resumeTask {
                resumes += 1
                #expect(machine.bufferedBytes < Machine.lowWater)
            }
            pieces += 1
        }
        #expect(resumes == 1 && pieces == 40)
        #expect(!machine.suspendedTask)
    }
}
