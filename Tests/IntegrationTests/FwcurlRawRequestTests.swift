// `fwcurl --request-raw FILE URL` and repeated `-H` (issue 27, item 3): the raw conformance server records
// the bytes of each connection, and `/recorded` hands them back, so a test compares them byte for byte with
// what it asked fwcurl to send, over plain HTTP and over TLS.

import Foundation
import Testing
import TestSupport

@Suite struct FwcurlRawRequestTests {
    /// A request no client would write: a bare LF ending the request line, odd-case names, a doubled space,
    /// a repeated field, a trailing space in a value.
    static func oddRequest(target: String) -> Data {
        Data(("GET \(target) HTTP/1.1\nhOsT: 127.0.0.1\r\nx-ODD-case:  two  spaces \r\n"
              + "X-Twice: 1\r\nX-Twice: 2\r\n\r\n").utf8)
    }

    /// Writes `bytes` to a file in `directory` and returns its path.
    static func rawFile(_ bytes: Data, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("request.http")
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("--request-raw writes the file's bytes unchanged, over http and https", arguments: [false, true])
    func bytesArriveUnchanged(tls: Bool) throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bytes = Self.oddRequest(target: "/deviation/none")
        let file = try Self.rawFile(bytes, in: directory)
        let base = tls ? server.tlsBaseURL : server.baseURL
        let trust = tls ? ["--cacert", TLSFixtures.path("root-ca.pem")] : []
        let run = try Fwcurl.run(trust + ["--json", "--request-raw", file, base + "/ignored"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(run.json, "\(run.text)")
        #expect(json["violations"] as? [String] == [])
        #expect(json["body_base64"] as? String == Data("hi".utf8).base64EncodedString())
        let recorded = try Fwcurl.run([server.baseURL + "/recorded"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stdout == bytes, "\(recorded.text)")
    }

    @Test("--request-raw reads the response strictly enough to name its deviations; --strict refuses them")
    func rawResponseDeviations() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.rawFile(Data("GET /deviation/obs-fold HTTP/1.1\r\nHost: x\r\n\r\n".utf8), in: directory)
        let lenient = try Fwcurl.run(["--json", "--request-raw", file, server.baseURL + "/"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.json?["violations"] as? [String] == ["obs-fold"], "\(lenient.text)")
        let strict = try Fwcurl.run(["--strict", "--request-raw", file, server.baseURL + "/"])
        #expect(strict.status == 8)
        #expect(strict.stderr.contains("obs-fold"), "\(strict.stderr)")
    }

    @Test("--request-raw with -i prints the response head as received")
    func rawIncludeHeaders() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.rawFile(Data("GET /deviation/none HTTP/1.1\r\nHost: x\r\n\r\n".utf8), in: directory)
        let run = try Fwcurl.run(["-i", "--request-raw", file, server.baseURL + "/"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text.hasPrefix("HTTP/1.1 200"), "\(run.text)")
        #expect(run.text.hasSuffix("\r\n\r\nhi"), "\(run.text)")
    }

    @Test("a missing --request-raw file is an error and nothing is sent")
    func missingRawFile() throws {
        let run = try Fwcurl.run(["--request-raw", "/nonexistent/request.http", "http://127.0.0.1:9/"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("request.http"), "\(run.stderr)")
    }

    @Test("-H with a repeated name goes on the wire as separate lines, in the given order and case")
    func repeatedHeaderLines() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let sent = try Fwcurl.run(["-H", "X-Rep: 1", "-H", "other: a", "-H", "x-REP: 2", "-H", "X-Rep: 3",
                                   server.baseURL + "/any"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let recorded = try Fwcurl.run([server.baseURL + "/recorded"])
        let lines = recorded.text.components(separatedBy: "\r\n")
        #expect(Array(lines.dropFirst(2).prefix(4)) == ["X-Rep: 1", "other: a", "x-REP: 2", "X-Rep: 3"], "\(lines)")
    }
}
