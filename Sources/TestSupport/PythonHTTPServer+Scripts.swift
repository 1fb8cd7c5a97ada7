import Foundation

// MARK: - PythonHTTPServer: scripted servers for cookies and authentication

extension PythonHTTPServer {
    /// A cookie server: every response's body is `cookie=VALUE\n`, VALUE being the request's Cookie field
    /// (`-` without one). `GET /set?c=SETCOOKIE&c=...` answers 200 with one `Set-Cookie: SETCOOKIE` per `c`
    /// (URL-encoded); `GET /redirect?to=PATH&c=...` answers 302 to PATH with those Set-Cookie fields.
    public static func cookieEcho() throws -> PythonHTTPServer {
        try PythonHTTPServer(files: ["cookies.py": Array(cookieEchoProgram.utf8)], program: "cookies.py")
    }

    /// A server that protects every path with both Basic and Digest (MD5, qop=auth), offering Basic
    /// first, for `user` and `password` in realm "both": the body of a 200 is `basic ok\n` or
    /// `digest ok\n`, whichever the request used; a missing or wrong answer gets a 401 with both challenges.
    public static func basicAndDigest(user: String, password: String) throws -> PythonHTTPServer {
        let program = basicAndDigestProgram.replacingOccurrences(of: "USER", with: user)
            .replacingOccurrences(of: "PASSWORD", with: password)
        return try PythonHTTPServer(files: ["auth.py": Array(program.utf8)], program: "auth.py")
    }

    private static let cookieEchoProgram = #"""
    import http.server, urllib.parse

    class Cookies(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            body = ("cookie=%s\n" % self.headers.get("Cookie", "-")).encode()
            self.send_response(302 if url.path == "/redirect" else 200)
            if url.path == "/redirect":
                self.send_header("Location", query.get("to", ["/"])[0])
            for value in query.get("c", []):
                self.send_header("Set-Cookie", value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Cookies)
    print("Serving HTTP on 127.0.0.1 port %d (cookies)" % server.server_address[1], flush=True)
    server.serve_forever()
    """#

    private static let basicAndDigestProgram = #"""
    import base64, hashlib, http.server, re

    USERNAME, SECRET, REALM, NONCE = "USER", "PASSWORD", "both", "6f2a1c9e0b7d4e3f"

    def md5(text):
        return hashlib.md5(text.encode()).hexdigest()

    class Both(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def scheme(self):
            value = self.headers.get("Authorization", "")
            if value.startswith("Basic "):
                expected = base64.b64encode(("%s:%s" % (USERNAME, SECRET)).encode()).decode()
                return "basic" if value[6:].strip() == expected else None
            if value.startswith("Digest "):
                fields = dict(re.findall(r'(\w+)="?([^",]*)"?', value[7:]))
                ha1 = md5("%s:%s:%s" % (USERNAME, REALM, SECRET))
                ha2 = md5("%s:%s" % (self.command, fields.get("uri", "")))
                expected = md5(":".join([ha1, NONCE, fields.get("nc", ""), fields.get("cnonce", ""), "auth", ha2]))
                good = fields.get("username") == USERNAME and fields.get("nonce") == NONCE
                return "digest" if good and fields.get("response") == expected else None
            return None

        def do_GET(self):
            scheme = self.scheme()
            body = ("%s ok\n" % scheme if scheme else "denied\n").encode()
            self.send_response(200 if scheme else 401)
            if not scheme:
                self.send_header("WWW-Authenticate", 'Basic realm="%s"' % REALM)
                self.send_header("WWW-Authenticate",
                                 'Digest realm="%s", nonce="%s", qop="auth", algorithm=MD5' % (REALM, NONCE))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Both)
    print("Serving HTTP on 127.0.0.1 port %d (basic and digest)" % server.server_address[1], flush=True)
    server.serve_forever()
    """#
}
