import Foundation
import Testing
import TestSupport

// fwcurl's -b, -c and -j against a Python server that sets the cookies a query names and echoes the Cookie
// field it receives (`PythonHTTPServer.cookieEcho()`): strings sent as given, the cookie engine on with a
// file, the jar written in curl's Netscape format and read back, session cookies junked.
@Suite struct FwcurlCookieTests {
    /// `/set?c=...` (or `/redirect?to=...&c=...`) setting the given Set-Cookie values.
    static func path(_ base: String, _ setCookies: [String], redirectTo: String? = nil) -> String {
        var items = setCookies.map { URLQueryItem(name: "c", value: $0) }
        if let redirectTo { items.insert(URLQueryItem(name: "to", value: redirectTo), at: 0) }
        var components = URLComponents()
        components.path = redirectTo == nil ? "/set" : "/redirect"
        components.queryItems = items
        return base + (components.string ?? "/set")
    }

    /// A session cookie and an HttpOnly cookie with an expiry, both for path /.
    static let setCookies = [
        "session=s1; Path=/",
        "keep=k1; Path=/; Expires=Fri, 01 Jan 2100 00:00:00 GMT; HttpOnly",
    ]

    @Test func cookieStringsAreSentAsGivenAndTheEngineStaysOff() throws {
        let server = try PythonHTTPServer.cookieEcho()
        defer { server.stop() }
        let run = try Fwcurl.run(["-b", "a=1; b=2", "-b", "c=3", server.baseURL + "/echo"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "cookie=a=1; b=2; c=3\n")
        // Without a file or a jar, cookies a redirect sets are not kept (curl's engine is off).
        let redirect = Self.path(server.baseURL, ["hop=h1; Path=/"], redirectTo: "/echo")
        let plain = try Fwcurl.run(["-L", redirect])
        #expect(plain.text == "cookie=-\n")
    }

    @Test func aCookieFileTurnsTheEngineOnForRedirects() throws {
        let server = try PythonHTTPServer.cookieEcho()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "fwcurl-cookies")
        let redirect = Self.path(server.baseURL, ["hop=h1; Path=/"], redirectTo: "/echo")
        // A missing file is not an error: the engine is on and starts empty, as with curl.
        let run = try Fwcurl.run(["-L", "-b", directory.file("missing"), redirect])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "cookie=hop=h1\n")
    }

    @Test func theJarIsWrittenInCurlsFormatAndReadBack() throws {
        let server = try PythonHTTPServer.cookieEcho()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "fwcurl-cookies")
        let jar = directory.file("jar.txt")
        let set = try Fwcurl.run(["-c", jar, Self.path(server.baseURL, Self.setCookies)])
        #expect(set.status == 0, "\(set.stderr)")
        let written = try String(contentsOfFile: jar, encoding: .utf8)
        // Newest first, as curl writes them.
        #expect(written == NetscapeHeader.text
            + "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tkeep\tk1\n"
            + "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts1\n")

        let echo = try Fwcurl.run(["-b", jar, server.baseURL + "/echo"])
        // Read in the file's order, so keep is now the older one: same path, older first (RFC 6265 §5.4).
        #expect(echo.text == "cookie=keep=k1; session=s1\n", "\(echo.stderr)")
        // A jar with nothing in it still gets curl's header.
        let empty = try Fwcurl.run(["-c", directory.file("empty.txt"), server.baseURL + "/echo"])
        #expect(empty.status == 0)
        #expect(try String(contentsOfFile: directory.file("empty.txt"), encoding: .utf8) == NetscapeHeader.text)
    }

    @Test func junkSessionCookiesDropsTheFilesSessionCookies() throws {
        let server = try PythonHTTPServer.cookieEcho()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "fwcurl-cookies")
        let jar = directory.file("jar.txt")
        _ = try Fwcurl.run(["-c", jar, Self.path(server.baseURL, Self.setCookies)])
        let next = directory.file("next.txt")
        let run = try Fwcurl.run(["-j", "-b", jar, "-c", next, server.baseURL + "/echo"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "cookie=keep=k1\n")
        let written = try String(contentsOfFile: next, encoding: .utf8)
        #expect(written.contains("\tkeep\tk1\n"))
        #expect(!written.contains("session"))
    }

    @Test func jarLinesAreReadAsCurlReadsThemAndWrittenBackToStdout() throws {
        let server = try PythonHTTPServer.cookieEcho()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "fwcurl-cookies")
        let file = directory.file("edges.txt")
        // Runs of tabs are one separator; six fields mean an empty value; a leading "." with FALSE is dropped;
        // CRLF line ends; a line with a bad expiry and a line of junk are skipped.
        try ("# comment\n\n"
            + ".example.com\t\tTRUE\t/\tFALSE\t0\truns\tof-tabs\n"
            + ".host-only.example\tFALSE\t/p\tTRUE\t0\tsixfields\n"
            + "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t4102444800\thttponly\tyes\r\n"
            + "127.0.0.1\tFALSE\t/\tFALSE\tsoon\tbad\tx\n"
            + "junk\n").write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Fwcurl.run(["-b", file, "-c", "-", "-o", "/dev/null", server.baseURL + "/echo"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == NetscapeHeader.text
            + "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t4102444800\thttponly\tyes\n"
            + "host-only.example\tFALSE\t/p\tTRUE\t0\tsixfields\t\n"
            + ".example.com\tTRUE\t/\tFALSE\t0\truns\tof-tabs\n")
    }

    @Test func setCookieLinesAndJarLinesAreReadFromOneFile() throws {
        let server = try PythonHTTPServer.cookieEcho()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "fwcurl-cookies")
        let file = directory.file("mixed.txt")
        try """
            # a comment, then a jar line for another host, one for this host and a header line
            .example.com\tTRUE\t/\tFALSE\t0\telsewhere\tno
            #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tjarred\tyes
            Set-Cookie: everywhere=1; Path=/

            """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Fwcurl.run(["-b", file, server.baseURL + "/echo"])
        #expect(run.status == 0, "\(run.stderr)")
        // The header line's cookie names no host: it goes everywhere, like a -b string, before the stored ones.
        #expect(run.text == "cookie=everywhere=1; jarred=yes\n")
    }
}

/// The first lines of every jar curl writes.
enum NetscapeHeader {
    static let text = """
        # Netscape HTTP Cookie File
        # https://curl.se/docs/http-cookies.html
        # This file was generated by libcurl! Edit at your own risk.


        """
}
