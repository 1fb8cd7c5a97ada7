import Foundation
@testable import FWURLSession
import FWTransport
import FWWire
import Testing
import TestSupport

// MARK: - Helpers for body producer tests

/// Drives a producer the way a connection does: one piece at a time, waiting (bounded) for each answer.
struct ProducerDriver {
    /// How a drained body ended.
    enum Ending: Equatable {
        case finish
        case fail(String)
        case noAnswer
    }

    let producer: any TransportBodyProducer

    /// Asks for one piece and waits up to `timeout` for the answer (nil: none came).
    func next(maxLength: Int = 65_536, timeout: Double = 5) -> TransportBodySink.Answer? {
        let answers = LockedBox<[TransportBodySink.Answer]>([])
        let answered = DispatchSemaphore(value: 0)
        producer.produce(maxLength: maxLength, into: TransportBodySink { answer in
            answers.withLock { $0.append(answer) }
            answered.signal()
        })
        guard answered.wait(timeout: .now() + timeout) == .success else { return nil }
        return answers.withLock { $0.first }
    }

    /// Reads to the end: the bytes, the size of each piece, and how the body ended.
    func drain(maxLength: Int = 65_536) -> (bytes: [UInt8], pieces: [Int], ending: Ending) {
        var bytes: [UInt8] = []
        var pieces: [Int] = []
        while true {
            switch next(maxLength: maxLength) {
            case .bytes(let piece):
                bytes += piece
                pieces.append(piece.count)
            case .finish:
                return (bytes, pieces, .finish)
            case .fail(let reason):
                return (bytes, pieces, .fail(reason))
            case nil:
                return (bytes, pieces, .noAnswer)
            }
        }
    }
}

/// `count` bytes of a repeating pattern, for bodies whose bytes must be checked.
func uploadPattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
}

/// A file in the temporary directory, removed by `remove()`.
struct TemporaryFile {
    let url: URL

    init(contents: [UInt8]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fw-upload-\(UUID().uuidString)")
        try Data(contents).write(to: url)
    }

    var path: String { url.path }

    /// How many descriptors of this process have the file open (from /proc/self/fd).
    var openDescriptorCount: Int {
        let directory = "/proc/self/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let target = url.resolvingSymlinksInPath().path
        return entries.filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)")) == target
        }.count
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs requests on a transport over the shared loops and waits for their outcome.
final class UploadTransport: TransportTaskDelegate, @unchecked Sendable { // `events` under its lock
    private let events = LockedBox<[TransportEvent]>([])
    let transport: HTTPTransport

    init() throws {
        transport = try #require(HTTPTransport(sharedLoopsWith: HTTPTransport.Configuration()))
    }

    func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
        events.withLock { $0.append(event) }
    }

    /// Sends a POST of `body` to `/upload` on 127.0.0.1:`port`, waits (bounded) for its end; returns the
    /// response body as text, or the error.
    func upload(_ body: TransportRequestBody, port: Int) -> Result<String, TransportError>? {
        let head = HTTPRequestHead(method: "POST", target: "/upload", headers: HTTPHeaders())
        let request = TransportRequest(key: ConnectionKey(scheme: "http", host: "127.0.0.1", port: port),
                                       head: head, body: body, idleTimeout: .seconds(5))
        transport.execute(request, delegate: self)
        _ = waitUntil(timeout: 10) { events.withLock { $0.contains { $0.isTerminal } } }
        var text: [UInt8] = []
        for event in events.withLock({ $0 }) {
            switch event {
            case .body(let bytes): text += bytes
            case .end: return .success(String(decoding: text, as: UTF8.self))
            case .failed(let error): return .failure(error)
            default: continue
            }
        }
        return nil
    }

    func close() {
        transport.shutdown()
    }
}

/// A server that answers each request with the number of body bytes it read and records the bodies.
func countingUploadServer() throws -> ScriptedServer {
    try ScriptedServer { connection in
        while let request = try connection.readRequest() {
            let text = String(request.body.count)
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.count)\r\n\r\n\(text)")
        }
    }
}
