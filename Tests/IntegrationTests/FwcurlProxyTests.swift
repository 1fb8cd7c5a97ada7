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
        #expect(squid.logged("GET \(origin.baseURL)/hello.bin 200 alice"), "\(squid.accessLog)")
        #expect(squid.logged("CONNECT 127.0.0.1:\(tlsOrigin.port) 200 alice"), "\(squid.accessLog)")
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
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let unreachable = refusing.port
        let run = try Fwcurl.run(["-s", "-x", "http://127.0.0.1:\(unreachable)", "--noproxy", "127.0.0.0/8",
                                  "\(origin.baseURL)/hello.bin"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "proxied\n")
    }

    @Test func theEnvironmentNamesTheProxyWhenThereIsNoX() throws {
        let origin = try NginxServer(files: Self.file)
        let squid = try SquidProxy(users: ["alice": "s3cret"])
        let socks = try MicrosocksProxy()
        let url = "\(origin.baseURL)/hello.bin"
        let viaSquid = try Fwcurl.run(["-s", url],
                                      environment: ["http_proxy": squid.url(user: "alice", password: "s3cret")])
        #expect(viaSquid.status == 0 && viaSquid.text == "proxied\n", "\(viaSquid.stderr)")
        #expect(squid.logged("GET \(url) 200 alice"), "\(squid.accessLog)")
        let viaSocks = try Fwcurl.run(["-s", "http://localhost:\(origin.port)/hello.bin"],
                                      environment: ["ALL_PROXY": "socks5h://127.0.0.1:\(socks.port)"])
        #expect(viaSocks.status == 0 && viaSocks.text == "proxied\n", "\(viaSocks.stderr)")
        #expect(socks.log.contains("connected to localhost:\(origin.port)"), "\(socks.log)")
    }

    struct EnvironmentRow: Sendable, CustomTestStringConvertible {
        let why: String
        let environment: [String: String]
        var noproxy: String?
        let direct: Bool
        var testDescription: String { why }
    }

    /// `UNREACHABLE` stands for a port nothing listens on: a request that goes there fails.
    static let environmentRows = [
        EnvironmentRow(why: "HTTP_PROXY is used outside CGI", environment: ["HTTP_PROXY": "127.0.0.1:UNREACHABLE"],
                       direct: false),
        EnvironmentRow(why: "HTTP_PROXY is ignored under CGI (httpoxy)",
                       environment: ["HTTP_PROXY": "127.0.0.1:UNREACHABLE", "REQUEST_METHOD": "GET"], direct: true),
        EnvironmentRow(why: "no_proxy with a CIDR range",
                       environment: ["http_proxy": "127.0.0.1:UNREACHABLE", "no_proxy": "10.0.0.0/8, 127.0.0.0/8"],
                       direct: true),
        EnvironmentRow(why: "--noproxy replaces no_proxy",
                       environment: ["http_proxy": "127.0.0.1:UNREACHABLE", "no_proxy": "*"], noproxy: "example.org",
                       direct: false),
    ]

    @Test(arguments: environmentRows)
    func theEnvironmentsRules(_ row: EnvironmentRow) throws {
        let origin = try NginxServer(files: Self.file)
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let unreachable = "\(refusing.port)"
        let environment = row.environment.mapValues { $0.replacingOccurrences(of: "UNREACHABLE", with: unreachable) }
        let noproxy = row.noproxy.map { ["--noproxy", $0] } ?? []
        let run = try Fwcurl.run(noproxy + ["-s", "\(origin.baseURL)/hello.bin"], environment: environment)
        #expect((run.status == 0 && run.text == "proxied\n") == row.direct, "\(run.status) \(run.stderr)")
    }

    @Test func anUnreachableProxyIsReportedAsOne() throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let unreachable = refusing.port
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
