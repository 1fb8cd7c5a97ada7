import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Misbehaving servers (issue 4, "Bad input and faults"): each ends its task with the right URLError
// within its timeout, frees the connection slot, and leaves the task queued behind it running.
@Suite struct FaultTests {
    enum Fault: String, CaseIterable, Sendable {
        case stallsAfterHead, tricklesAByteASecond, resetsMidBody, acceptsAndNeverAnswers
    }

    private static func server(_ fault: Fault) throws -> ScriptedServer {
        try ScriptedServer { connection in
            guard let request = try connection.readRequest() else { return }
            if request.target == "/ok" {
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                _ = connection.waitForClose(timeout: 5)
                return
            }
            switch fault {
            case .stallsAfterHead:
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
                _ = connection.waitForClose(timeout: 5)
            case .tricklesAByteASecond:
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
                for _ in 0..<5 {
                    try connection.write("x")
                    if connection.waitForClose(timeout: 0.25) { return }
                }
            case .resetsMidBody:
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
                connection.reset()
            case .acceptsAndNeverAnswers:
                _ = connection.waitForClose(timeout: 5)
            }
        }
    }

    @Test(arguments: Fault.allCases)
    func faultEndsTheTaskAndTheQueueMovesOn(_ fault: Fault) throws {
        let server = try Self.server(fault)
        defer { server.stop() }
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 1
        // The faulty request's own timeout is short; the queued one keeps the session's, because its timeout
        // counts the time it waits for the connection the faulty one holds.
        configuration.timeoutIntervalForRequest = 10
        // The trickle never leaves a byte-free gap as long as the idle timeout: only the total limit ends it.
        configuration.timeoutIntervalForResource = fault == .tricklesAByteASecond ? 1 : 30
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let base = "http://127.0.0.1:\(server.port)"

        let faulty = LockedBox<URLError?>(nil), queued = LockedBox<Data?>(nil)
        var faultyRequest = URLRequest(url: URL(string: base + "/fault")!)
        faultyRequest.timeoutInterval = 0.6
        let faultyTask = session.dataTask(with: faultyRequest) { _, _, error in
            faulty.withLock { $0 = (error as? URLError) ?? URLError(.unknown) }
        }
        faultyTask.resume()
        // Queued behind the faulty task (limit 1: resumed second, it waits for the connection). In the trickle
        // case it is resumed once the third byte came (half a second in), so that its own resource timeout
        // (which counts time queued) ends after the faulty task's.
        if fault == .tricklesAByteASecond {
            #expect(waitUntil(timeout: 5) { faultyTask.countOfBytesReceived >= 3 || faulty.withLock { $0 } != nil })
        }
        session.dataTask(with: URL(string: base + "/ok")!) { data, _, _ in
            queued.withLock { $0 = data ?? Data() }
        }.resume()

        #expect(waitUntil(timeout: 10) { faulty.withLock { $0 } != nil && queued.withLock { $0 } != nil })
        let expected: URLError.Code = fault == .resetsMidBody ? .networkConnectionLost : .timedOut
        #expect(faulty.withLock { $0?.code } == expected)
        #expect(queued.withLock { $0 } == Data("ok".utf8))
        #expect(server.connectionCount == 2)
    }
}
