// HTTPCookie+PythonInteropTests.swift
//
// Round trips with an independent implementation: Set-Cookie fields written by Python's
// http.cookies.SimpleCookie (with the date formats of email.utils, http.cookiejar and time.asctime) are
// parsed here and compared with what Python put in them; and the Cookie field made here is read back by
// SimpleCookie.load.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPCookiePythonInteropTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// Writes one JSON object per Set-Cookie field: the field and what Python put in it.
    static let writer = """
        import json, re, time
        from http.cookies import SimpleCookie
        from email.utils import formatdate, parsedate_to_datetime
        from http.cookiejar import time2netscape
        when = 1924992000
        jar = SimpleCookie()
        jar["sid"] = "abc123"
        jar["sid"].update({"path": "/", "httponly": True, "secure": True, "samesite": "Strict"})
        jar["pref"] = "dark mode; wide"
        jar["pref"].update({"max-age": 3600, "domain": "example.com", "path": "/app"})
        jar["rfc1123"] = "1"
        jar["rfc1123"]["expires"] = formatdate(when, usegmt=True)
        jar["netscape"] = "2"
        jar["netscape"]["expires"] = time2netscape(when)
        jar["asctime"] = "3"
        jar["asctime"]["expires"] = time.asctime(time.gmtime(when))
        jar["relative"] = "4"
        jar["relative"]["expires"] = 0
        rows = []
        for name, morsel in jar.items():
            expires = morsel["expires"]
            if isinstance(expires, int):
                written = re.search(r"expires=([^;]*)", morsel.OutputString(), re.I).group(1)
                expires = int(parsedate_to_datetime(written).timestamp())
            else:
                expires = when if expires else None
            rows.append({
                "field": morsel.OutputString(), "name": name, "value": morsel.coded_value, "expires": expires,
                "maxAge": morsel["max-age"] or None, "secure": bool(morsel["secure"]),
                "httpOnly": bool(morsel["httponly"]), "sameSite": morsel["samesite"] or None,
                "path": morsel["path"] or None, "domain": morsel["domain"] or None,
            })
        print(json.dumps(rows))
        """

    struct Row: Decodable {
        var field: String
        var name: String
        var value: String
        var expires: TimeInterval?
        var maxAge: Int?
        var secure: Bool
        var httpOnly: Bool
        var sameSite: String?
        var path: String?
        var domain: String?
    }

    static func python(_ program: String, input: String = "") throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", program]
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardInput = stdin
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed")
        return data
    }

    @Test func parsesWhatSimpleCookieWrites() throws {
        let rows = try JSONDecoder().decode([Row].self, from: Self.python(Self.writer))
        #expect(rows.count == 6)
        let url = try #require(URL(string: "https://www.example.com/app/page"))
        for row in rows {
            let parsed = HTTPCookie.cookies(fromSetCookieFields: [row.field], for: url, now: Self.now)
            let cookie = try #require(parsed.first, "\(row.field)")
            #expect(cookie.name == row.name, "\(row.field)")
            #expect(cookie.value == row.value, "\(row.field)")
            #expect(cookie.isSecure == row.secure, "\(row.field)")
            #expect(cookie.isHTTPOnly == row.httpOnly, "\(row.field)")
            #expect(cookie.sameSitePolicy?.rawValue == row.sameSite?.lowercased(), "\(row.field)")
            #expect(cookie.path == (row.path ?? "/app"), "\(row.field)")
            #expect(cookie.domain == (row.domain.map { "." + $0 } ?? "www.example.com"), "\(row.field)")
            let expected = row.maxAge.map { Self.now.addingTimeInterval(TimeInterval($0)) }
                ?? row.expires.map { Date(timeIntervalSince1970: $0) }
            #expect(cookie.expiresDate == expected, "\(row.field)")
        }
    }

    @Test func simpleCookieReadsTheCookieField() throws {
        let cookies = try [("sid", "abc123"), ("pref", "\"dark mode; wide\""), ("empty", "")].map { name, value in
            try #require(HTTPCookie(properties: [.name: name, .value: value, .path: "/", .domain: "h.test"]))
        }
        let field = try #require(HTTPCookie.requestHeaderFields(with: cookies)["Cookie"])
        let reader = """
            import json, sys
            from http.cookies import SimpleCookie
            jar = SimpleCookie()
            jar.load(sys.stdin.read())
            print(json.dumps({name: morsel.value for name, morsel in jar.items()}))
            """
        let read = try JSONDecoder().decode([String: String].self, from: Self.python(reader, input: field))
        #expect(read == ["sid": "abc123", "pref": "dark mode; wide", "empty": ""])
    }
}
