# A raw-stream test peer for stream tasks, Python standard library only (socketserver, ssl): three servers on
# 127.0.0.1, each a thread per connection. The first line on stdout is "PORTS <echo> <starttls> <http>".
#
#   echo      echoes every byte; once the client ends its side (EOF), ends its own (shutdown SHUT_WR)
#   starttls  line protocol, one reply line per line: "STARTTLS" answers "GO" and switches to TLS (the fixture
#             chain given on the command line); "STOPTLS" (over TLS) does the TLS close both ways, then says
#             "PLAIN" in plaintext; "QUIT" closes; any other line comes back as "ECHO <line>"
#   http      reads one HTTP request head, answers "200 OK" without a length (the body runs until close),
#             sends "hello\n", then echoes every byte as the echo server does; for "GET /complete" it answers
#             "hello\n" with a Content-Length instead (a complete response) and waits for the client's end
import socket
import socketserver
import ssl
import sys
import threading

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])


def echo(conn):
    while True:
        data = conn.recv(65536)
        if not data:
            break
        conn.sendall(data)
    conn.shutdown(socket.SHUT_WR)


def read_line(conn):
    """One line without its LF (None at EOF), read a byte at a time so no TLS record is taken early."""
    line = b""
    while True:
        byte = conn.recv(1)
        if not byte:
            return None
        if byte == b"\n":
            return line
        line += byte


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        echo(self.request)


class StartTLS(socketserver.BaseRequestHandler):
    def handle(self):
        conn = self.request
        while True:
            line = read_line(conn)
            if line is None or line == b"QUIT":
                break
            if line == b"STARTTLS":
                conn.sendall(b"GO\n")
                conn = context.wrap_socket(conn, server_side=True)
            elif line == b"STOPTLS":
                conn = conn.unwrap()
                conn.sendall(b"PLAIN\n")
            else:
                conn.sendall(b"ECHO " + line + b"\n")


class HTTPThenEcho(socketserver.BaseRequestHandler):
    def handle(self):
        conn = self.request
        head = b""
        while b"\r\n\r\n" not in head:
            data = conn.recv(1)
            if not data:
                return
            head += data
        if head.startswith(b"GET /complete "):
            # A complete response in one segment: it ends before the client's delegate can answer it.
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
            while conn.recv(65536):
                pass
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\nhello\n")
        echo(conn)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


servers = [Server(("127.0.0.1", 0), handler) for handler in (Echo, StartTLS, HTTPThenEcho)]
for server in servers:
    threading.Thread(target=server.serve_forever, daemon=True).start()
print("PORTS " + " ".join(str(server.server_address[1]) for server in servers), flush=True)
threading.Event().wait()
