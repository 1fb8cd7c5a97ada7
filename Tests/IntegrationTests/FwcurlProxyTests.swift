import Foundation
import Testing
import TestSupport

// fwcurl's -x, -U and --noproxy against squid and microsocks, as a user runs them.
@Suite struct FwcurlProxyTests {
    static let file: [String: [UInt8]] = ["hello.bin": Array("proxied\n".utf8)]

    @Test func anHTTPProxyWithCredentialsInItsURLCarriesHTTPAndHTTPS() throws {
        let origin = try NginxServer(files: Self.file)
        let tlsOrigin = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        let squid = try SquidProxy(users: ["alice": "s3cret"])
        let run = try Fwcurl.run(["-s", "-x", squid.url(user: "alice", password: "s3cret"),
                                  "--cacert", TLSFixtures.path("root-ca.pem"),
                                  "\(origin.baseURL)/hello.bin", "https://127.0.0.1:\(tlsOrigin.port)/"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text.hasPrefix("proxied\n") && run.text.contains("s_server"))
        #expect(squid.accessLog.contains("GET \(origin.baseURL)/hello.bin 200 alice"), "\(squid.accessLog)")
        #expect(squid.accessLog.contains("CONNECT 127.0.0.1:\(tlsOrigin.port) 200 alice"), "\(squid.accessLog)")
    }

    @Test func socks5hWithProxyUserLetsTheProxyResolveTheName() throws {
        let origin = try NginxServer(files: Self.file)
        let socks = try MicrosocksProxy(user: "bob", password: "pw")
        let run = try Fwcurl.run(["-s", "-x", "socks5h://127.0.0.1:\(socks.port)", "-U", "bob:pw",
                                  "http://localhost:\(origin.port)/hello.bin"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "proxied\n")
        #expect(socks.log.contains("connected to localhost:\(origin.port)"), "\(socks.log)")
    }

    @Test func noproxyGoesDirect() throws {
        let origin = try NginxServer(files: Self.file)
        let unreachable = try SpawnedProcess.freePort()
        let run = try Fwcurl.run(["-s", "-x", "http://127.0.0.1:\(unreachable)", "--noproxy", "127.0.0.0/8",
                                  "\(origin.baseURL)/hello.bin"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "proxied\n")
    }

    @Test func anUnreachableProxyIsReportedAsOne() throws {
        let unreachable = try SpawnedProcess.freePort()
        let run = try Fwcurl.run(["--json", "-x", "socks5://127.0.0.1:\(unreachable)", "http://127.0.0.1:1/"])
        #expect(run.status != 0)
        let error = try #require(run.json?["error"] as? [String: Any])
        #expect(error["code"] as? Int == NSURLErrorCannotConnectToHost)
        #expect((error["message"] as? String)?.contains("proxy socks5://127.0.0.1:\(unreachable)") == true, "\(error)")
    }

    @Test(arguments: [["-x", "socks4://127.0.0.1:1080", "http://127.0.0.1/"], ["-U", "a:b", "http://127.0.0.1/"]])
    func proxyMistakesAreUsageErrors(_ arguments: [String]) throws {
        let run = try Fwcurl.run(arguments)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("socks4") || run.stderr.contains("--proxy-user needs -x"), "\(run.stderr)")
    }
}
