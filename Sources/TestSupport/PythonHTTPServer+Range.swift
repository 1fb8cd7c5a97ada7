import Foundation

// MARK: - PythonHTTPServer: a resumable large file

extension PythonHTTPServer {
    /// A server for resumed downloads: `GET /file.bin` serves `root/file.bin` (`size` seeded random bytes,
    /// written when the server starts) with `ETag` = the text of `root/etag` ("\"v1\"" at first) and
    /// `Accept-Ranges: bytes`. `Range: bytes=N-` gets a 206 from N when `If-Range` is absent or equals the
    /// current ETag, else a 200 with the whole file. The body goes out in 256 KiB pieces with a pause of
    /// `root/delay` seconds between them (a throttle: 0.01 at first). Every request is logged to
    /// `root/requests.log` as `GET /file.bin range=R if-range=I status=S` (`-` for an absent field), and every
    /// response's last byte sent as `sent START-END` once it ends (or the peer goes).
    ///
    /// To change the resource, call `replaceRangeFile(seed:etag:)`; to reset a response's connection in the
    /// middle of its body, `resetNextResponse(atByte:)`.
    public static func rangeFile(size: Int, seed: Int = 1) throws -> PythonHTTPServer {
        let program = rangeFileProgram.replacingOccurrences(of: "SIZE", with: "\(size)")
            .replacingOccurrences(of: "SEED", with: "\(seed)")
        return try PythonHTTPServer(files: ["range.py": Array(program.utf8), "etag": Array("\"v1\"".utf8),
                                           "delay": Array("0.01".utf8)], program: "range.py")
    }

    /// The served file's path.
    public var rangeFilePath: String { directory + "/file.bin" }

    /// The request log's lines so far.
    public var rangeRequests: [String] {
        ((try? String(contentsOfFile: directory + "/requests.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// Replaces the served file with new seeded bytes of the same size, served with `etag`.
    public func replaceRangeFile(seed: Int, etag: String) throws {
        let size = (try FileManager.default.attributesOfItem(atPath: rangeFilePath)[.size] as? Int) ?? 0
        var random = SplitMix64(seed: UInt64(seed))
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { buffer in
            for offset in stride(from: 0, to: size - size % 8, by: 8) {
                buffer.storeBytes(of: random.next(), toByteOffset: offset, as: UInt64.self)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: rangeFilePath + ".new"))
        _ = rename(rangeFilePath + ".new", rangeFilePath)
        try Data(etag.utf8).write(to: URL(fileURLWithPath: directory + "/etag"))
    }

    /// Makes the next response reset its connection (RST) once its body reached file offset `offset` (at a
    /// 256 KiB piece boundary at or past it); the responses after it are whole. Logged as `reset at N`.
    public func resetNextResponse(atByte offset: Int) throws {
        try Data("\(offset)".utf8).write(to: URL(fileURLWithPath: directory + "/reset"))
    }

    /// Sets the pause between 256 KiB pieces.
    public func setRangeDelay(_ seconds: Double) throws {
        try Data("\(seconds)".utf8).write(to: URL(fileURLWithPath: directory + "/delay"))
    }

    private static let rangeFileProgram = #"""
    import http.server, os, random, re, select, socket, struct, threading

    ROOT = os.path.dirname(os.path.abspath(__file__))
    PATH = os.path.join(ROOT, "file.bin")
    with open(PATH, "wb") as out:
        out.write(random.Random(SEED).randbytes(SIZE))
    LOCK = threading.Lock()

    def read(name):
        with open(os.path.join(ROOT, name)) as f:
            return f.read().strip()

    def log(line):
        with LOCK, open(os.path.join(ROOT, "requests.log"), "a") as f:
            f.write(line + "\n")

    class Ranges(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            etag = read("etag")
            delay = float(read("delay"))
            with open(PATH, "rb") as f:
                data = f.read()
            size = len(data)
            wanted = self.headers.get("Range")
            condition = self.headers.get("If-Range")
            start = 0
            match = re.fullmatch(r"bytes=(\d+)-", wanted or "")
            partial = match is not None and int(match.group(1)) < size and (condition is None or condition == etag)
            if partial:
                start = int(match.group(1))
            status = 206 if partial else 200
            log("GET %s range=%s if-range=%s status=%d" % (self.path, wanted or "-", condition or "-", status))
            self.send_response(status)
            self.send_header("ETag", etag)
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(size - start))
            if partial:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
            self.end_headers()
            offset = start
            reset_at = None
            with LOCK:
                if os.path.exists(os.path.join(ROOT, "reset")):
                    reset_at = int(read("reset"))
                    os.remove(os.path.join(ROOT, "reset"))
            try:
                while offset < size:
                    if reset_at is not None and offset >= reset_at:
                        # SO_LINGER 0: closing sends RST, not FIN.
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        self.rfile.close()
                        self.connection.close()
                        self.close_connection = True
                        log("reset at %d" % offset)
                        log("sent %d-%d" % (start, offset))
                        return
                    piece = data[offset:offset + 262144]
                    self.wfile.write(piece)
                    offset += len(piece)
                    if delay > 0:
                        # select, not time.sleep: under libfaketime (Scripts/time-travel.sh) Python's sleep,
                        # a clock_nanosleep on the monotonic clock, fails with EINVAL.
                        select.select([], [], [], delay)
            except (BrokenPipeError, ConnectionResetError):
                pass
            log("sent %d-%d" % (start, offset))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ranges)
    server.daemon_threads = True
    print("Serving HTTP on 127.0.0.1 port %d (ranges)" % server.server_address[1], flush=True)
    server.serve_forever()
    """#
}
