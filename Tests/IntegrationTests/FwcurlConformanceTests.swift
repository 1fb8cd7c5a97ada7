// The conformance kit through fwcurl (issue 27): a raw loopback server sends responses that each need one
// named deviation; `--json` lists the name in "violations", and `--strict` refuses it (exit 8, the message
// names it).

import Foundation
import Testing
import TestSupport

@Suite struct FwcurlConformanceTests {
    static let deviations = [
        "bare-lf", "obs-fold", "missing-reason-phrase", "empty-chunk-extension", "whitespace-before-chunk-crlf",
        "duplicate-identical-content-length", "transfer-encoding-with-content-length",
        "transfer-encoding-in-http10",
    ]

    @Test("--json names the deviation a response needed", arguments: deviations)
    func violationNamed(_ name: String) throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let run = try Fwcurl.run(["--json", server.baseURL + "/deviation/" + name])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(run.json, "\(run.text)")
        #expect(json["violations"] as? [String] == [name])
        #expect(json["body_base64"] as? String == Data("hi".utf8).base64EncodedString())
    }

    @Test("--strict refuses the deviation with exit 8 and a message that names it", arguments: deviations)
    func strictRefuses(_ name: String) throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let run = try Fwcurl.run(["--strict", server.baseURL + "/deviation/" + name])
        #expect(run.status == 8)
        #expect(run.stderr.contains(name), "\(run.stderr)")
        let json = try Fwcurl.run(["--strict", "--json", server.baseURL + "/deviation/" + name])
        #expect(json.status == 8)
        let error = try #require(json.json?["error"] as? [String: Any], "\(json.text)")
        #expect(error["code"] as? Int == -1011)
        #expect((error["message"] as? String)?.contains(name) == true, "\(error)")
    }

    @Test("a response that keeps to the grammar has an empty violations list and passes --strict")
    func conformingResponse() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        for flags in [["--json"], ["--json", "--strict"]] {
            let run = try Fwcurl.run(flags + [server.baseURL + "/deviation/none"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.json?["violations"] as? [String] == [])
        }
    }

    @Test("-H fields reach the wire in the given order and case, right after Host")
    func headerOrderAndCase() throws {
        let server = try RawConformanceServer()
        defer { server.stop() }
        let sent = try Fwcurl.run(["-H", "zeta-LAST: 1", "-H", "X-mIxEd: 2", "-H", "alpha: 3", server.baseURL + "/any"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let recorded = try Fwcurl.run([server.baseURL + "/recorded"])
        let lines = recorded.text.components(separatedBy: "\r\n")
        #expect(lines.first == "GET /any HTTP/1.1", "\(recorded.text)")
        #expect(lines.dropFirst().first == "Host: 127.0.0.1:\(server.port)")
        #expect(Array(lines.dropFirst(2).prefix(3)) == ["zeta-LAST: 1", "X-mIxEd: 2", "alpha: 3"], "\(lines)")
    }
}
