import Foundation
import Testing
import TestSupport

// fwcurl's -u with --basic (preemptive, nginx auth_basic), --digest (Apache mod_auth_digest) and --anyauth
// (the strongest scheme a 401 offers: Digest from a Python server that offers Basic first). A refused
// credential is not offered again: the 401 is the response, its body written, or exit 22 with -f.
@Suite struct FwcurlAuthTests {
    /// nginx with `/private/page.txt` behind auth_basic for alice:wonderland.
    static func basicServer() throws -> (NginxServer, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "fwcurl-auth")
        try "alice:{PLAIN}wonderland\n".write(toFile: directory.file("users"), atomically: true, encoding: .utf8)
        let server = try NginxServer(files: ["private/page.txt": Array("secret page".utf8)], serverConfig: """
            location /private/ { auth_basic "Basic Realm"; auth_basic_user_file \(directory.file("users")); }
            """)
        return (server, directory)
    }

    static func digestServer() throws -> ApacheServer {
        try ApacheServer(users: ["alice": "wonderland"], files: ["page.txt": Array("digest page".utf8)])
    }

    @Test func basicIsSentWithTheFirstRequest() throws {
        let (server, directory) = try Self.basicServer()
        defer { server.stop(); directory.remove() }
        for flags in [["-u", "alice:wonderland"], ["--basic", "-u", "alice:wonderland"]] {
            let run = try Fwcurl.run(flags + [server.baseURL + "/private/page.txt"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.text == "secret page")
        }
        // One request each: no 401 first.
        #expect(server.accessLog(atLeast: 2).count == 2, "\(server.accessLog)") // logged after each response
        #expect(server.accessLog.allSatisfy { $0.contains(" 200 ") && $0.hasSuffix("user=alice") })
    }

    @Test func aWrongBasicPasswordGivesThe401OnceOr22WithFail() throws {
        let (server, directory) = try Self.basicServer()
        defer { server.stop(); directory.remove() }
        let url = server.baseURL + "/private/page.txt"
        let shown = try Fwcurl.run(["-u", "alice:looking-glass", url])
        #expect(shown.status == 0)
        #expect(shown.text.contains("401 Authorization Required"), "\(shown.text)")
        #expect(server.accessLog.count == 1, "a refused credential is not sent again: \(server.accessLog)")
        let failed = try Fwcurl.run(["-f", "-u", "alice:looking-glass", url])
        #expect(failed.status == 22)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr.contains("The requested URL returned error: 401"))
    }

    @Test func digestAnswersApachesChallenge() throws {
        let server = try Self.digestServer()
        defer { server.stop() }
        let url = server.baseURL + "/private/page.txt"
        for scheme in ["--digest", "--anyauth"] {
            let run = try Fwcurl.run([scheme, "-u", "alice:wonderland", "-v", url])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.text == "digest page")
            #expect(run.stderr.contains("> Authorization: Digest username=\"alice\""), "\(run.stderr)")
            #expect(!run.stderr.contains("> Authorization: Basic"))
        }
    }

    @Test func aWrongDigestPasswordGivesThe401Or22WithFail() throws {
        let server = try Self.digestServer()
        defer { server.stop() }
        let url = server.baseURL + "/private/page.txt"
        let shown = try Fwcurl.run(["--digest", "-u", "alice:looking-glass", "-i", url])
        #expect(shown.status == 0)
        // The first request without credentials, the answer refused: two 401 heads, the second one's body.
        #expect(shown.text.hasPrefix("HTTP/1.1 401"), "\(shown.text)")
        #expect(shown.text.contains("Unauthorized"))
        let failed = try Fwcurl.run(["-f", "--digest", "-u", "alice:looking-glass", url])
        #expect(failed.status == 22)
        #expect(failed.stdout.isEmpty)
    }

    @Test func anyauthPicksDigestOverBasicAndDigestRefusesBasic() throws {
        let server = try PythonHTTPServer.basicAndDigest(user: "alice", password: "wonderland")
        defer { server.stop() }
        let any = try Fwcurl.run(["--anyauth", "-u", "alice:wonderland", server.baseURL + "/"])
        #expect(any.status == 0, "\(any.stderr)")
        #expect(any.text == "digest ok\n")
        let basic = try Fwcurl.run(["-u", "alice:wonderland", server.baseURL + "/"])
        #expect(basic.text == "basic ok\n")

        // --digest never answers Basic: nginx's 401 is the response.
        let (nginx, directory) = try Self.basicServer()
        defer { nginx.stop(); directory.remove() }
        let refused = try Fwcurl.run(["-f", "--digest", "-u", "alice:wonderland", nginx.baseURL + "/private/page.txt"])
        #expect(refused.status == 22)
        #expect(nginx.accessLog.count == 1, "\(nginx.accessLog)")
    }

    @Test func aUserWithoutAPasswordIsAUsageError() throws {
        let run = try Fwcurl.run(["-u", "alice", "http://127.0.0.1:9/"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("-u takes USER:PASSWORD"))
    }
}
