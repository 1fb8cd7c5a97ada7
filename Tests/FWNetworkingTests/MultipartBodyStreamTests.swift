import Foundation
@testable import FWNetworking
import Testing
import TestSupport

// MultipartBodyStream: the same bytes whatever the reader's buffer size, the stream states, lazy opening
// and closing of a part's stream, exact lengths (short files and streams fail, long ones are cut),
// read errors, throttling with an injected pause, and copies that read the body again.
@Suite struct MultipartBodyStreamTests {
    private static func bytes(_ text: String) -> MultipartSegment {
        MultipartSegment(source: .bytes(Data(text.utf8)), length: UInt64(text.utf8.count))
    }

    private static func stream(_ text: String, length: UInt64? = nil) -> MultipartSegment {
        MultipartSegment(source: .stream(InputStream(data: Data(text.utf8))), length: length ?? UInt64(text.utf8.count))
    }

    /// A stream whose reads fail.
    private final class FailingStream: InputStream {
        override func open() {}
        override func close() {}
        override var streamError: (any Error)? { NSError(domain: "failing", code: 7) }
        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int { -1 }
    }

    @Test(arguments: [1, 2, 3, 7, 64, 4096])
    func sameBytesWhateverTheBufferSize(chunk: Int) throws {
        try MultipartTestSupport.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("f")
            try Data("FILE-CONTENT".utf8).write(to: file)
            let body = MultipartBodyStream(segments: [
                Self.bytes("head|"), MultipartSegment(source: .file(path: file.path), length: 12),
                Self.bytes(""), Self.stream("|stream|"), Self.bytes("tail"),
            ])
            #expect(body.contentLength == 29)
            #expect(MultipartTestSupport.readAll(body, chunk: chunk) == Array("head|FILE-CONTENT|stream|tail".utf8))
        }
    }

    @Test func statesFromNotOpenToAtEndToClosed() {
        let body = MultipartBodyStream(segments: [Self.bytes("ab")])
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(body.streamStatus == .notOpen)
        #expect(body.read(&buffer, maxLength: 8) == -1)
        #expect((body.streamError as? NSError)?.domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain)
        body.open()
        #expect(body.streamStatus == .open && body.hasBytesAvailable)
        #expect(body.read(&buffer, maxLength: 1) == 1)
        #expect(body.read(&buffer, maxLength: 8) == 1)
        #expect(body.streamStatus == .atEnd && !body.hasBytesAvailable)
        #expect(body.read(&buffer, maxLength: 8) == 0)
        body.close()
        #expect(body.streamStatus == .closed)
        #expect(body.read(&buffer, maxLength: 8) == 0)
    }

    @Test func anEmptyBodyIsAtEndOnFirstRead() {
        let body = MultipartBodyStream(segments: [])
        body.open()
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(!body.hasBytesAvailable)
        #expect(body.read(&buffer, maxLength: 8) == 0)
        #expect(body.streamStatus == .atEnd)
    }

    @Test func aPartStreamIsOpenedWhenReachedAndClosedWhenDone() {
        let part = InputStream(data: Data("xyz".utf8))
        let body = MultipartBodyStream(segments: [Self.bytes("12345"),
                                                  MultipartSegment(source: .stream(part), length: 3), Self.bytes("6")])
        body.open()
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(body.read(&buffer, maxLength: 5) == 5)
        #expect(part.streamStatus == .notOpen)
        #expect(body.read(&buffer, maxLength: 2) == 2)
        #expect(part.streamStatus == .open)
        #expect(body.read(&buffer, maxLength: 8) == 2)
        #expect(part.streamStatus == .closed)
    }

    @Test func closingMidPartClosesThePartStream() {
        let part = InputStream(data: Data("xyz".utf8))
        let body = MultipartBodyStream(segments: [MultipartSegment(source: .stream(part), length: 3)])
        body.open()
        var buffer = [UInt8](repeating: 0, count: 1)
        #expect(body.read(&buffer, maxLength: 1) == 1)
        body.close()
        #expect(part.streamStatus == .closed)
    }

    @Test func extraBytesOfAPartAreLeftUnread() throws {
        try MultipartTestSupport.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("f")
            try Data("0123456789".utf8).write(to: file)
            let body = MultipartBodyStream(segments: [MultipartSegment(source: .file(path: file.path), length: 4),
                                                      Self.stream("abcdef", length: 2)])
            #expect(MultipartTestSupport.readAll(body, chunk: 3) == Array("0123ab".utf8))
        }
    }

    @Test func shortPartsFailInsteadOfBreakingTheLength() throws {
        try MultipartTestSupport.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("f")
            try Data("abc".utf8).write(to: file)
            let cases: [(MultipartSegment, String)] = [
                (MultipartSegment(source: .file(path: file.path), length: 5), "ended after 3 of the 5 bytes"),
                (Self.stream("ab", length: 4), "ended after 2 of the 4 bytes"),
                (MultipartSegment(source: .stream(nil), length: 1), "ended after 0 of the 1 bytes"),
                (MultipartSegment(source: .file(path: directory.path + "/missing"), length: 1), "No such file"),
                (MultipartSegment(source: .file(path: directory.path), length: 1), "Is a directory"),
            ]
            for (segment, message) in cases {
                let body = MultipartBodyStream(segments: [Self.bytes("x"), segment])
                body.open()
                var buffer = [UInt8](repeating: 0, count: 64)
                #expect(body.read(&buffer, maxLength: 64) == -1)
                #expect(body.streamStatus == .error)
                let description = (body.streamError as? NSError)?.localizedDescription ?? ""
                #expect(description.contains(message), "\(description)")
            }
        }
    }

    @Test func aFailingPartStreamFailsTheBody() {
        let body = MultipartBodyStream(segments: [MultipartSegment(source: .stream(FailingStream(data: Data())),
                                                                   length: 3)])
        body.open()
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(body.read(&buffer, maxLength: 8) == -1)
        let error = body.streamError as? NSError
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain == "failing")
        #expect(body.read(&buffer, maxLength: 8) == -1)
    }

    @Test func throttlingPausesAfterEveryReadOfAtMostAPacket() {
        let pauses = LockedBox<[TimeInterval]>([])
        let segments = [Self.bytes(String(repeating: "a", count: 10)), Self.stream("bcdefgh")]
        let body = MultipartBodyStream(segments: segments, packetSize: 4, delay: 0.2,
                                       pause: { pause in pauses.withLock { $0.append(pause) } })
        body.open()
        var buffer = [UInt8](repeating: 0, count: 100)
        var reads: [Int] = []
        while case let count = body.read(&buffer, maxLength: 100), count > 0 { reads.append(count) }
        #expect(reads == [4, 4, 4, 4, 1])
        #expect(pauses.withLock { $0 } == [0.2, 0.2, 0.2, 0.2, 0.2])
    }

    @Test func withoutADelayThereIsNoPause() {
        let pauses = LockedBox(0)
        let body = MultipartBodyStream(segments: [Self.bytes("abc")], packetSize: 1, delay: 0,
                                       pause: { _ in pauses.withLock { $0 += 1 } })
        #expect(MultipartTestSupport.readAll(body) == Array("abc".utf8))
        #expect(pauses.withLock { $0 } == 0)
    }

    @Test func aCopyReadsTheBodyAgainFromItsStart() throws {
        try MultipartTestSupport.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("f")
            try Data("FILE".utf8).write(to: file)
            let body = MultipartBodyStream(segments: [
                Self.bytes("head|"), MultipartSegment(source: .file(path: file.path), length: 4),
                MultipartSegment(source: .stream(CopyableDataStream(Data("|part|".utf8))), length: 6),
            ], packetSize: 3)
            let whole = Array("head|FILE|part|".utf8)
            #expect(MultipartTestSupport.readAll(body) == whole)
            let copy = try #require(body.copy() as? MultipartBodyStream)
            #expect(copy !== body && copy.streamStatus == .notOpen && copy.contentLength == body.contentLength)
            #expect(MultipartTestSupport.readAll(copy) == whole)
        }
    }

    @Test func aCopyFailsAtAPartStreamThatCannotBeCopied() throws {
        let body = MultipartBodyStream(segments: [Self.bytes("x"), Self.stream("plain")])
        let copy = try #require(body.copy() as? MultipartBodyStream)
        copy.open()
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(copy.read(&buffer, maxLength: 64) == -1)
        let description = (copy.streamError as? NSError)?.localizedDescription ?? ""
        #expect(description.contains("cannot be read again") && description.contains("NSCopying"), "\(description)")
        #expect(MultipartTestSupport.readAll(body) == Array("xplain".utf8), "the original is untouched")
    }
}
