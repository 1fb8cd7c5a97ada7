import Foundation

// MARK: - PythonHTTPServer: a CRL distribution point behind a proxy

extension PythonHTTPServer {
    /// A CRL distribution point that also acts as the HTTP proxy in front of it: `GET` in origin form
    /// (`/intermediate-ca.crl`) or absolute form (`http://crl.fwnetworking.test/intermediate-ca.crl`, as
    /// a client sends it to a proxy) answers the file of `files` with that path's last component (200,
    /// Content-Length), 404 when there is none. A file whose name has a companion `NAME.endless` in
    /// `files` is streamed without Content-Length, 64 KiB at a time, for up to 64 MiB, then closed (a body
    /// no size bound may wait for). A file with a companion `NAME.gated` is answered only once `release()`
    /// was called (at most 60 s later). Every request's target is appended, one a line, to `requests.log`
    /// in `directory` when it arrives: `requestTargets()` reads them.
    public static func revocationListServer(files: [String: [UInt8]]) throws -> PythonHTTPServer {
        try PythonHTTPServer(files: files.merging(["crl-server.py": Array(revocationListProgram.utf8)]) { $1 },
                             program: "crl-server.py")
    }

    /// Lets the answers to `NAME.gated` files go out.
    public func release() throws {
        try Data().write(to: URL(fileURLWithPath: directory + "/release"))
    }

    /// The request targets the revocation list server received, in order.
    public func requestTargets() -> [String] {
        let text = (try? String(contentsOfFile: directory + "/requests.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    private static let revocationListProgram = #"""
    import http.server, os, select, urllib.parse

    ROOT = os.path.dirname(os.path.abspath(__file__))

    class Distribution(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            with open(os.path.join(ROOT, "requests.log"), "a") as log:
                log.write(self.path + "\n")
            name = os.path.basename(urllib.parse.urlsplit(self.path).path)
            path = os.path.join(ROOT, name)
            if not name or not os.path.isfile(path):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if os.path.exists(path + ".gated"):
                for _ in range(1200):
                    if os.path.exists(os.path.join(ROOT, "release")):
                        break
                    select.select([], [], [], 0.05)  # time.sleep fails under libfaketime (time travel)
            with open(path, "rb") as served:
                body = served.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/pkix-crl")
            if os.path.exists(path + ".endless"):
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b"\0" * 65536
                try:
                    for _ in range(1024):
                        self.wfile.write(chunk)
                except OSError:
                    pass
                self.close_connection = True
                return
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Distribution)
    print("Serving HTTP on 127.0.0.1 port %d (crl)" % server.server_address[1], flush=True)
    server.serve_forever()
    """#
}
