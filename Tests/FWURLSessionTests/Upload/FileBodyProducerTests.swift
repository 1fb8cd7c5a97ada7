import Foundation
@testable import FWURLSession
import FWTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// FileBodyProducer: pieces from a file, resends from the start, errors, and releasing the descriptor.
@Suite struct FileBodyProducerTests {
    @Test func readsTheFileInPiecesThenFinishesAndEveryAttemptStartsOver() throws {
        let contents = uploadPattern(150_000)
        let file = try TemporaryFile(contents: contents)
        defer { file.remove() }

        let stream = try FileBodyProducer.bodyStream(contentsOf: file.url)
        #expect(stream.length == 150_000)
        for _ in 0..<2 {
            let producer = try #require(stream.makeProducer())
            let drained = ProducerDriver(producer: producer).drain()
            #expect(drained.ending == .finish)
            #expect(drained.pieces == [65_536, 65_536, 18_928])
            #expect(drained.bytes == contents)
            producer.stop()
        }
        #expect(waitUntil(timeout: 2) { file.openDescriptorCount == 0 })
    }

    @Test func piecesNeverExceedWhatIsAsked() throws {
        let file = try TemporaryFile(contents: uploadPattern(2_500))
        defer { file.remove() }
        let producer = FileBodyProducer(path: file.path)
        defer { producer.stop() }
        let drained = ProducerDriver(producer: producer).drain(maxLength: 1_000)
        #expect(drained.pieces == [1_000, 1_000, 500])
        #expect(drained.bytes == uploadPattern(2_500))
    }

    @Test func unreadableFilesAreURLErrors() throws {
        let file = try TemporaryFile(contents: [1])
        defer { file.remove() }
        let cases: [(URL, URLError.Code)] = [
            (file.url.appendingPathExtension("missing"), .fileDoesNotExist),
            (file.url.appendingPathComponent("below-a-file"), .fileDoesNotExist),
            (FileManager.default.temporaryDirectory, .fileIsDirectory),
        ]
        for (url, code) in cases {
            let error = #expect(throws: URLError.self) { try FileBodyProducer.bodyStream(contentsOf: url) }
            #expect(error?.code == code)
        }
    }

    @Test func aFileThatShrinksWhileReadEndsEarly() throws {
        let file = try TemporaryFile(contents: uploadPattern(150_000))
        defer { file.remove() }
        let producer = FileBodyProducer(path: file.path)
        defer { producer.stop() }
        let driver = ProducerDriver(producer: producer)
        guard case .bytes(let first) = driver.next() else {
            Issue.record("expected a first piece")
            return
        }
        #expect(first.count == 65_536)
        #expect(truncate(file.path, 70_000) == 0)
        let rest = driver.drain()
        #expect(rest.pieces == [70_000 - 65_536])
        #expect(rest.ending == .finish)
    }

    @Test func stopClosesTheDescriptorAndNothingIsAnsweredAfterIt() throws {
        let file = try TemporaryFile(contents: uploadPattern(200_000))
        defer { file.remove() }
        let producer = FileBodyProducer(path: file.path)
        let driver = ProducerDriver(producer: producer)
        guard case .bytes = driver.next() else {
            Issue.record("expected a piece")
            return
        }
        #expect(file.openDescriptorCount == 1)
        producer.stop()
        #expect(waitUntil(timeout: 2) { file.openDescriptorCount == 0 })
        #expect(driver.next(timeout: 0.2) == nil)
    }

    // MARK: Through the transport

    @Test func aFileIsUploadedWithItsSizeAsContentLength() throws {
        let contents = uploadPattern(200_000)
        let file = try TemporaryFile(contents: contents)
        defer { file.remove() }
        let server = try countingUploadServer()
        defer { server.stop() }
        let client = try UploadTransport()
        defer { client.close() }

        let result = client.upload(.stream(try FileBodyProducer.bodyStream(contentsOf: file.url)), port: server.port)
        #expect(try result?.get() == "200000")
        let request = try #require(server.requests.first)
        #expect(request.header("Content-Length") == "200000")
        #expect(request.body == contents)
        #expect(waitUntil(timeout: 2) { file.openDescriptorCount == 0 })
    }

    @Test func aFileThatShrinksDuringTheUploadFailsItWithBodyStreamExhausted() throws {
        // A sparse 32 MiB file: far more than the socket buffers hold, so most of it is still unread
        // when the server cuts it down to 1 MiB.
        let file = try TemporaryFile(contents: [])
        defer { file.remove() }
        #expect(truncate(file.path, 32 * 1024 * 1024) == 0)
        let path = file.path
        let server = try ScriptedServer { connection in
            guard try connection.readRequestHead() != nil else { return }
            try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
            _ = try connection.readBytes(count: 65_536)
            #expect(truncate(path, 1024 * 1024) == 0)
            _ = connection.waitForClose(timeout: 5)
        }
        defer { server.stop() }
        let client = try UploadTransport()
        defer { client.close() }

        let result = client.upload(.stream(try FileBodyProducer.bodyStream(contentsOf: file.url)), port: server.port)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(String(describing: result))")
            return
        }
        #expect(error.isBodyStreamFailed)
        #expect(URLError(error, url: file.url).code == .requestBodyStreamExhausted)
        #expect(waitUntil(timeout: 2) { file.openDescriptorCount == 0 })
    }
}
