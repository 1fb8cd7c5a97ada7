// MultipartEchoServer: a Python http.server (HTTP/1.1, so it answers Expect: 100-continue) that parses
// multipart/form-data bodies and answers with what it saw, as JSON: for each part its name, file name,
// Content-Type, length and SHA-256. `/parse` reads the whole body and parses it with `email.parser`
// (BytesParser with a synthetic header); `/stream` parses it while reading, in 1 MiB pieces, for bodies
// too large to hold (the part headers still go through email's header parser). Used by the integration
// tests and the HTTPSessionManager tests.

import Foundation

// MARK: - MultipartEchoServer

/// A Python server that parses multipart/form-data bodies and answers with what it saw, as JSON.
public final class MultipartEchoServer {
    /// What the server saw of one request.
    public struct Reply: Decodable, Sendable {
        /// The request method.
        public var method: String
        /// The request's Content-Type (with the boundary).
        public var contentType: String?
        /// The request's Content-Length, as sent.
        public var contentLength: String?
        /// Body bytes read.
        public var received: Int
        /// The parts, in order.
        public var parts: [Part]
    }

    /// One part as the server parsed it.
    public struct Part: Decodable, Equatable, Sendable {
        /// The `name` of the part's Content-Disposition.
        public var name: String?
        /// The `filename` of the part's Content-Disposition.
        public var filename: String?
        /// The part's Content-Type.
        public var contentType: String?
        /// The payload's length.
        public var length: Int
        /// The payload's SHA-256, hex.
        public var sha256: String

        /// A part with these fields.
        public init(name: String?, filename: String?, contentType: String?, length: Int, sha256: String) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.length = length
            self.sha256 = sha256
        }
    }

    /// The port on 127.0.0.1.
    public let port: Int
    private let process: SpawnedProcess
    private let directory: String

    /// Starts the server on a free port of 127.0.0.1 (the script binds port 0 and prints it).
    public init() throws {
        directory = NSTemporaryDirectory() + "/fwnetworking-multipart-echo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = directory + "/echo.py"
        try Data(Self.program.utf8).write(to: URL(fileURLWithPath: script))
        let process = try SpawnedProcess.spawn(["python3", "-u", script], logPath: directory + "/server.log")
        var found: Int?
        _ = waitUntil(timeout: 10) {
            found = Self.port(in: process.log)
            return found != nil || process.hasExited()
        }
        guard let found else {
            process.stop()
            try? FileManager.default.removeItem(atPath: directory)
            throw TestSupportError.serverUnavailable("the multipart echo server did not start: \(process.log)")
        }
        port = found
        self.process = process
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops the server and removes its directory.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Decodes a reply body.
    public static func reply(_ data: Data) throws -> Reply {
        try JSONDecoder().decode(Reply.self, from: data)
    }

    private static func port(in log: String) -> Int? {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }) else { return nil }
        return Int(line.dropFirst(5))
    }

    private static let program = #"""
    import email.parser, email.policy, hashlib, http.server, json

    POLICY = email.policy.HTTP

    def describe(headers, payload_length, digest):
        return {"name": headers.get_param("name", header="content-disposition"),
                "filename": headers.get_filename(), "contentType": headers.get("Content-Type"),
                "length": payload_length, "sha256": digest}

    def parse_whole(content_type, body):
        message = email.parser.BytesParser(policy=POLICY).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1") + b"\r\nMIME-Version: 1.0\r\n\r\n" + body)
        if not message.is_multipart() or message.defects:
            raise ValueError("not a valid multipart body: %r" % message.defects)
        parts = []
        for part in message.iter_parts():
            payload = part.get_payload(decode=True) or b""
            parts.append(describe(part, len(payload), hashlib.sha256(payload).hexdigest()))
        return parts

    class Reader:
        def __init__(self, rfile, remaining):
            self.rfile, self.remaining, self.buffer = rfile, remaining, b""

        def more(self):
            if self.remaining == 0:
                raise ValueError("the body ended inside a part")
            piece = self.rfile.read(min(self.remaining, 1 << 20))
            if not piece:
                raise ValueError("the connection ended early")
            self.remaining -= len(piece)
            self.buffer += piece

    def parse_streaming(content_type, rfile, length):
        boundary = email.parser.BytesHeaderParser(policy=POLICY).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n").get_param("boundary").encode()
        delimiter = b"\r\n--" + boundary
        reader = Reader(rfile, length)
        reader.buffer = b"\r\n"
        parts, current = [], None
        while True:
            index = reader.buffer.find(delimiter)
            if index < 0:
                keep = len(delimiter) - 1
                if current is not None and len(reader.buffer) > keep:
                    current[1].update(reader.buffer[:-keep])
                    current[2] += len(reader.buffer) - keep
                    reader.buffer = reader.buffer[-keep:]
                reader.more()
                continue
            if current is not None:
                current[1].update(reader.buffer[:index])
                parts.append(describe(current[0], current[2] + index, current[1].hexdigest()))
            reader.buffer = reader.buffer[index + len(delimiter):]
            while len(reader.buffer) < 2:
                reader.more()
            if reader.buffer.startswith(b"--"):
                while reader.remaining:
                    reader.more()
                return parts
            if not reader.buffer.startswith(b"\r\n"):
                raise ValueError("junk after a delimiter")
            while (end := reader.buffer.find(b"\r\n\r\n")) < 0:
                reader.more()
            headers = email.parser.BytesHeaderParser(policy=POLICY).parsebytes(reader.buffer[2:end] + b"\r\n\r\n")
            current = [headers, hashlib.sha256(), 0]
            reader.buffer = reader.buffer[end + 4:]

    class Echo(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.echo()

        def do_PUT(self):
            self.echo()

        def echo(self):
            length = self.headers.get("Content-Length")
            content_type = self.headers.get("Content-Type", "")
            try:
                if length is None:
                    raise ValueError("no Content-Length")
                if self.path == "/stream":
                    parts = parse_streaming(content_type, self.rfile, int(length))
                else:
                    parts = parse_whole(content_type, self.rfile.read(int(length)))
                status, reply = 200, {"method": self.command, "contentType": content_type,
                                      "contentLength": length, "received": int(length), "parts": parts}
            except Exception as error:
                status, reply = 400, {"error": str(error)}
                self.close_connection = True
            body = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()
    """#
}
