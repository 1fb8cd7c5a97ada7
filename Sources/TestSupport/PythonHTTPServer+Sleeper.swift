import Foundation

// MARK: - PythonHTTPServer: a server that answers after a delay

extension PythonHTTPServer {
    /// A keep-alive HTTP/1.1 server (`ThreadingHTTPServer`, a thread per connection): `GET /sleep?ms=N` answers
    /// 200 `slept N` after N milliseconds, any other path 200 `ok` at once (TCP_NODELAY: back-to-back requests
    /// do not wait for delayed ACKs). It waits in `select`, not `time.sleep`, whose deadline libfaketime moves
    /// in Scripts/time-travel.sh's passes.
    public static func sleeper() throws -> PythonHTTPServer {
        try PythonHTTPServer(files: ["sleeper.py": Array(sleeperProgram.utf8)], program: "sleeper.py")
    }

    /// The paths of the requests the sleeper answered, in order, each once its whole response was written to
    /// its connection.
    public var answeredPaths: [String] {
        lines(of: "answered.log")
    }

    /// The paths of the requests the sleeper received, in order, each as soon as its head was read.
    public var receivedPaths: [String] {
        lines(of: "received.log")
    }

    private func lines(of file: String) -> [String] {
        let log = (try? String(contentsOfFile: directory + "/" + file, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    private static let sleeperProgram = #"""
    import http.server, os, select, socket, urllib.parse

    # Each answered request's path, once its whole response is written: a test can wait for a response to be
    # in its socket instead of guessing how long a loaded machine takes (PythonHTTPServer.answeredPaths).
    ANSWERED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "answered.log")
    # And each received request's path, as soon as its head is read (PythonHTTPServer.receivedPaths).
    RECEIVED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "received.log")

    class Sleeper(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            # The head and the body are two writes: without this, the body waits for the client's delayed ACK.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self):
            with open(RECEIVED, "a") as received:
                received.write(self.path + "\n")
            url = urllib.parse.urlsplit(self.path)
            body = b"ok"
            if url.path == "/sleep":
                milliseconds = int(urllib.parse.parse_qs(url.query).get("ms", ["0"])[0])
                select.select([], [], [], milliseconds / 1000)
                body = ("slept %d" % milliseconds).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            with open(ANSWERED, "a") as answered:
                answered.write(self.path + "\n")

        def log_message(self, format, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sleeper)
    print("Serving HTTP on 127.0.0.1 port %d (sleeper)" % server.server_address[1], flush=True)
    server.serve_forever()
    """#
}
