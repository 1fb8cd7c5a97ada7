// `fwcurl --pipeline` (issue 27): the URLs go back to back on one connection to a raw loopback server that
// answers only once it has read all their heads; a server that closes mid-pipeline has the rest replayed;
// flags that cannot pipeline are refused.

import Foundation
import Testing
import TestSupport

@Suite struct FwcurlPipelineTests {
    /// The `X-Pending`, `X-Connection` values and the body of each response of a `--json` run.
    static func responses(_ run: Fwcurl.Run) throws -> [(pending: String?, connection: String?, body: String)] {
        let json = try #require(run.json, "\(run.text)")
        let list = try #require(json["responses"] as? [[String: Any]], "\(json)")
        return list.map { response in
            let headers = response["headers"] as? [[Any]] ?? []
            func field(_ name: String) -> String? {
                headers.first { ($0.first as? String)?.lowercased() == name.lowercased() }?.last as? String
            }
            let body = (response["body_base64"] as? String).flatMap { Data(base64Encoded: $0) } ?? Data()
            return (field("X-Pending"), field("X-Connection"), String(decoding: body, as: UTF8.self))
        }
    }

    @Test("--pipeline sends three GETs before the server answers any, and reports them in URL order")
    func threeHeadsFirst() throws {
        let server = try PipelineServer()
        defer { server.stop() }
        let urls = ["a", "b", "c"].map { server.baseURL + "/wait/3/5000/" + $0 }
        let run = try Fwcurl.run(["--pipeline", "--json"] + urls)
        #expect(run.status == 0, "\(run.stderr)")
        let responses = try Self.responses(run)
        #expect(responses.map(\.body) == ["a", "b", "c"])
        #expect(responses.map(\.pending) == ["3", "2", "1"])
        #expect(Set(responses.map(\.connection)).count == 1)
    }

    @Test("--pipeline replays what a server that closed mid-pipeline left unanswered")
    func replayed() throws {
        let server = try PipelineServer()
        defer { server.stop() }
        let urls = ["a", "b", "c"].map { server.baseURL + "/closefirst/3/300/" + $0 }
        let run = try Fwcurl.run(["--pipeline", "--json"] + urls)
        #expect(run.status == 0, "\(run.stderr)")
        let responses = try Self.responses(run)
        #expect(responses.map(\.body) == ["a", "b", "c"])
        #expect(responses.map(\.connection) == ["1", "2", "2"])
    }

    @Test("--pipeline refuses URLs of several origins and request bodies")
    func refusals() throws {
        for arguments in [["--pipeline", "http://127.0.0.1:1/a", "http://127.0.0.1:2/b"],
                          ["--pipeline", "-d", "x", "http://127.0.0.1:1/a"]] {
            let run = try Fwcurl.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("--pipeline"), "\(run.stderr)")
        }
    }
}
