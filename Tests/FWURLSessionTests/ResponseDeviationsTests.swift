// The conformance kit's session API (issue 27): a response's named deviations in
// `URLSessionTaskTransactionMetrics.fwResponseDeviations`, and strict mode
// (`URLSessionConfiguration.httpRefusesDeviations`) refusing them with a badServerResponse that names one.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct ResponseDeviationsTests {
    /// A server that answers every request with a response that needs bare-lf and obs-fold.
    private static func deviatingServer() throws -> ScriptedServer {
        try ScriptedServer { connection in
            while try connection.readRequest() != nil {
                try connection.write("HTTP/1.1 200 OK\nX-Folded: one\n two\nContent-Length: 2\n\nhi")
            }
        }
    }

    /// Runs one data task on a session made from `configuration`; returns the delegate's log.
    private static func run(_ configuration: URLSessionConfiguration, port: Int) throws -> RecordingDataDelegate.Log {
        let delegate = RecordingDataDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: try #require(URL(string: "http://127.0.0.1:\(port)/"))).resume()
        #expect(delegate.waitForCompletion(timeout: 10))
        return delegate.log.withLock { $0 }
    }

    @Test("the transaction metrics name the deviations the response needed")
    func metricsNameDeviations() throws {
        let server = try Self.deviatingServer()
        defer { server.stop() }
        let log = try Self.run(.ephemeral, port: server.port)
        #expect(log.error == nil)
        #expect(log.data == Data("hi".utf8))
        let transaction = try #require(log.metrics.first?.transactionMetrics.last)
        #expect(transaction.fwResponseDeviations == ["bare-lf", "obs-fold"])
    }

    @Test("strict mode fails the task with badServerResponse naming the deviation")
    func strictModeRefuses() throws {
        let server = try Self.deviatingServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        #expect(!configuration.httpRefusesDeviations)
        configuration.httpRefusesDeviations = true
        #expect(configuration.httpResponseLimits.refusedDeviations == .all)
        let log = try Self.run(configuration, port: server.port)
        let error = try #require(log.error as? URLError)
        #expect(error.code == .badServerResponse)
        #expect(error.localizedDescription.contains("bare-lf"), "\(error.localizedDescription)")
        #expect(log.data.isEmpty)
    }

    @Test("a conforming response has no deviations in its metrics")
    func conformingResponse() throws {
        let server = try ScriptedServer { connection in
            while try connection.readRequest() != nil {
                try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
            }
        }
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpRefusesDeviations = true
        let log = try Self.run(configuration, port: server.port)
        #expect(log.error == nil)
        #expect(log.metrics.first?.transactionMetrics.last?.fwResponseDeviations == [])
    }
}
