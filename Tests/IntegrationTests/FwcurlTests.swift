import Foundation
import Testing
import TestSupport

// fwcurl as a user runs it: the built binary (see FwcurlRunner.swift), against real loopback servers.
@Suite struct FwcurlTests {
    @Test func jsonForOneURLFollowsTheContract() throws {
        let server = try PythonHTTPServer(files: ["file": Array("contents\n".utf8)])
        defer { server.stop() }
        let run = try Fwcurl.run(["--json", server.baseURL + "/file"])
        #expect(run.status == 0)
        let json = try #require(run.json)
        #expect(json["status"] as? Int == 200)
        let headers = try #require(json["headers"] as? [[String]])
        #expect(headers.contains { $0.count == 2 && $0[0] == "Content-Length" && $0[1] == "9" })
        #expect(headers.first?.first == "Server")
        #expect(Data(base64Encoded: json["body_base64"] as? String ?? "") == Data("contents\n".utf8))
        #expect((json["trailers"] as? [Any])?.isEmpty == true)
    }

    @Test func jsonForSeveralURLsIsAListAndErrorsCarryTheURLErrorCode() throws {
        let server = try LoopbackHTTPServer { request in
            request.target == "/chunked" ? .chunked(["a", "b"], trailers: [("X-Sum", "2")]) : .ok("one")
        }
        defer { server.stop() }
        let refused = try ScriptedServer { _ in }
        let refusedPort = refused.port
        refused.stop()
        let run = try Fwcurl.run(["--json", server.baseURL + "/one", server.baseURL + "/chunked",
                                   "http://127.0.0.1:\(refusedPort)/"])
        #expect(run.status != 0)
        let responses = try #require(run.json?["responses"] as? [[String: Any]])
        #expect(responses.count == 3)
        #expect(Data(base64Encoded: responses[0]["body_base64"] as? String ?? "") == Data("one".utf8))
        #expect(responses[1]["trailers"] as? [[String]] == [["X-Sum", "2"]])
        let error = try #require(responses[2]["error"] as? [String: Any])
        #expect(error["code"] as? Int == NSURLErrorCannotConnectToHost)
        #expect((error["message"] as? String)?.isEmpty == false)
        // One session for all: the two good URLs shared a connection.
        #expect(server.connectionCount == 1)
    }

    @Test func headIsARealHeadAndVerboseShowsTheHeads() throws {
        let server = try LoopbackHTTPServer { request in
            .status(200, headers: [("Content-Length", "100")])
        }
        defer { server.stop() }
        let run = try Fwcurl.run(["-X", "HEAD", "-v", "-i", "-H", "X-Trace: on", server.baseURL + "/"])
        #expect(run.status == 0)
        #expect(server.requests.first?.method == "HEAD")
        #expect(run.stderr.contains("> HEAD / HTTP/1.1"))
        #expect(run.stderr.contains("> X-Trace: on"))
        #expect(run.stderr.contains("< HTTP/1.1 200"))
        #expect(String(decoding: run.stdout, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }

    @Test func postsDataAndWritesTheBodyToAFile() throws {
        let server = try LoopbackHTTPServer { request in
            .ok(String(decoding: request.body, as: UTF8.self).uppercased())
        }
        defer { server.stop() }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("fwcurl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try Fwcurl.run(["-d", "shout", "-o", output.path, server.baseURL + "/"])
        #expect(run.status == 0)
        #expect(server.requests.first?.method == "POST")
        #expect(try Data(contentsOf: output) == Data("SHOUT".utf8))
    }

    @Test func traceAsciiShowsEveryByteExchanged() throws {
        let server = try LoopbackHTTPServer { _ in .ok("traced body") }
        defer { server.stop() }
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("fwcurl-trace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: trace) }
        let run = try Fwcurl.run(["--trace-ascii", trace.path, "-d", "x=1", server.baseURL + "/t"])
        #expect(run.status == 0)
        let text = try String(contentsOf: trace, encoding: .utf8)
        #expect(text.contains("== Info: Connected to 127.0.0.1:\(server.port)"))
        #expect(text.contains("=> Send data, "))
        #expect(text.contains("0000: POST /t HTTP/1.1"))
        #expect(text.contains("<= Recv data, "))
        #expect(text.contains("0000: HTTP/1.1 200 OK"))
        #expect(text.contains(": traced body"))
    }

    @Test func tlsFlagsControlServerTrust() throws {
        let server = try OpenSSLServer.start(certificate: "self-signed.pem", chain: nil)
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"
        let pin = "sha256//W1mFlbPwnvv85TzXVNbb3WD3b5WNJZTrG+3653+utdA="
        let wrongPin = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

        func errorCode(_ run: Fwcurl.Run) -> Int? { (run.json?["error"] as? [String: Any])?["code"] as? Int }
        func status(_ run: Fwcurl.Run) -> Int? { run.json?["status"] as? Int }

        // URLError.Code, not the NSURLError… constants: on Linux Foundation's constants from
        // NSURLErrorServerCertificateHasBadDate on are one off Apple's values (-1202 for -1201, ...).
        #expect(errorCode(try Fwcurl.run(["--json", url])) == URLError.Code.serverCertificateHasUnknownRoot.rawValue)
        #expect(status(try Fwcurl.run(["-k", "--json", url])) == 200)
        #expect(status(try Fwcurl.run(["-k", "--pinnedpubkey", "\(wrongPin);\(pin)", "--json", url])) == 200)
        let mismatch = try Fwcurl.run(["-k", "--pinnedpubkey", wrongPin, "--json", url])
        #expect(errorCode(mismatch) == URLError.Code.serverCertificateUntrusted.rawValue)
        #expect(mismatch.status == 90) // curl's CURLE_SSL_PINNEDPUBKEYNOTMATCH
        #expect(mismatch.stderr.contains("matches no --pinnedpubkey pin"))
        let chain = try Fwcurl.run(["--show-chain", "--cacert", TLSFixtures.path("self-signed.pem"),
                                     "-o", "/dev/null", url])
        #expect(chain.status == 0)
        #expect(chain.stderr.contains("pin: \(pin)"))
    }

    @Test func clientCertificatesFromPEMAndPKCS12() throws {
        let server = try OpenSSLServer.start(extra: ["-Verify", "1", "-CAfile", TLSFixtures.path("client-ca.pem")])
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"
        let trust = ["--cacert", TLSFixtures.path("root-ca.pem"), "--json"]
        func body(_ run: Fwcurl.Run) -> String {
            String(decoding: Data(base64Encoded: run.json?["body_base64"] as? String ?? "") ?? Data(), as: UTF8.self)
        }

        let pem = try Fwcurl.run(trust + ["--cert", TLSFixtures.path("client.pem"),
                                           "--key", TLSFixtures.path("client.key"), url])
        #expect(pem.status == 0, "\(pem.stderr)")
        #expect(body(pem).contains("FWNetworking Test Client"), "s_server shows the certificate it got")
        let encrypted = try Fwcurl.run(trust + ["--cert", TLSFixtures.path("client.pem") + ":fwnetworking",
                                                 "--key", TLSFixtures.path("client-encrypted.key"), url])
        #expect(body(encrypted).contains("FWNetworking Test Client"), "\(encrypted.stderr)")
        let pkcs12 = try Fwcurl.run(trust + ["--cert", TLSFixtures.path("client.p12") + ":fwnetworking", url])
        #expect(body(pkcs12).contains("FWNetworking Test Client"), "\(pkcs12.stderr)")

        let none = try Fwcurl.run(trust + [url])
        let error = try #require(none.json?["error"] as? [String: Any])
        #expect(error["code"] as? Int == URLError.Code.clientCertificateRequired.rawValue)
        let tls = try #require(error["tls"] as? [String: Any])
        #expect(tls["trust"] as? String == "default")
        #expect((tls["reason"] as? String)?.contains("certificate required") == true, "\(tls)")

        let wrongPassword = try Fwcurl.run(["--cert", TLSFixtures.path("client.p12") + ":nope", url])
        #expect(wrongPassword.status == 2)
        #expect(wrongPassword.stderr.contains("wrong password"))
    }

    @Test(arguments: [("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")])
    func theTLSOutcomeIsInVerboseAndJSONOutput(_ flag: String, _ version: String) throws {
        let server = try OpenSSLServer.start(extra: [flag])
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"
        // s_server -www closes each connection: the second URL resumes the first one's session.
        let run = try Fwcurl.run(["--cacert", TLSFixtures.path("root-ca.pem"), "--json", "-v", url, url])
        #expect(run.status == 0, "\(run.stderr)")
        let responses = try #require(run.json?["responses"] as? [[String: Any]])
        let tls = try responses.map { try #require($0["tls"] as? [String: Any]) }
        #expect(tls.map { $0["version"] as? String } == [version, version])
        #expect(tls.map { $0["resumed"] as? Bool } == [false, true])
        #expect(tls.allSatisfy { $0["trust"] as? String == "default" && $0["alpn"] is NSNull })
        let cipher = try #require(tls[0]["cipher"] as? String)
        #expect((tls[0]["cipher_id"] as? Int).map { $0 > 0 } == true, "every suite s_server picks has an IANA case")
        #expect(run.stderr.contains("* SSL connection using \(version) / \(cipher)"))
        #expect(run.stderr.contains("* SSL session resumed"))
        #expect(run.stderr.contains("* Server certificate: verified"))
    }

    @Test func aPinMismatchIsReportedAsATLSFailure() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let run = try Fwcurl.run(["--cacert", TLSFixtures.path("root-ca.pem"), "--json", "--pinnedpubkey",
                                   "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                                   "https://127.0.0.1:\(server.port)/"])
        let error = try #require(run.json?["error"] as? [String: Any])
        #expect(error["code"] as? Int == URLError.Code.serverCertificateUntrusted.rawValue)
        #expect(run.status == 90) // curl's CURLE_SSL_PINNEDPUBKEYNOTMATCH
        let tls = try #require(error["tls"] as? [String: Any])
        #expect(tls["trust"] as? String == "pinned")
        #expect((tls["reason"] as? String)?.contains("matches no --pinnedpubkey pin") == true)
    }

    @Test func theDemoBehaves() throws {
        let run = try Fwcurl.run(["demo"], timeout: 60)
        #expect(run.status == 0, "\(String(decoding: run.stdout, as: UTF8.self))\n\(run.stderr)")
        let text = String(decoding: run.stdout, as: UTF8.self)
        #expect(text.contains("All steps behaved."))
        // The manager's steps: pinning (openssl is installed where the tests run), JSON, retries.
        #expect(text.contains("✓ pinned key: status 200") && text.contains("✓ another key pinned: URLError -1202"))
        #expect(text.contains("✓ a [String: Any] with layers = 10"))
        #expect(text.contains("✓ status 200 after 3 attempts"))
    }
}
