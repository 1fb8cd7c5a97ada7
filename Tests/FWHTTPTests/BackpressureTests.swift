@testable import FWHTTP
import Testing
import TestSupport

// A reader that does not read holds the server back: the client queues up to its high-water mark, pauses
// the socket, and reads again as the reader drains the queue; the whole body still arrives intact.
@Suite struct BackpressureTests {
    @Test func anIdleReaderPausesReadingAndDrainingResumesIt() async throws {
        let payload = (0..<4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
        let server = try PythonHTTPServer(files: ["big.bin": payload])
        defer { server.stop() }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/big.bin"))
        let exchange = response.body.exchange
        let paused = waitUntil(timeout: 20) { exchange.queue.paused }
        #expect(paused)
        let queued = exchange.queue.bytes
        #expect(queued >= ResponseExchange.highWater)
        #expect(queued < payload.count / 4, "the client read far past its high-water mark")
        var received: [UInt8] = []
        received.reserveCapacity(payload.count)
        for try await chunk in response.body { received += chunk }
        #expect(received == payload)
        #expect(exchange.queue.bytes == 0)
        #expect(!exchange.queue.paused)
    }
}
