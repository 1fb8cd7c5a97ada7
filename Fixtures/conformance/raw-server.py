# A raw HTTP/1.1 test server for the conformance kit, Python standard library only: it answers with bytes
# written by hand (each one needs a named deviation) and records what it read.
# One thread per connection on 127.0.0.1; the first line on stdout is "PORTS <plain> <tls>": the same server
# on a plain port and on a TLS port, whose certificate chain and key are the two arguments (the fixture chain
# and key given to every port-announcing script). Recording is shared: `/recorded` on either port returns the
# bytes (decrypted) of the previous connection on either port.
#
#   GET /deviation/<name>   the canned response of RESPONSES[name], then the connection stays open for the
#                           next request (unless the response is close-delimited)
#   GET /recorded           the bytes the previous connection sent, all of them (as a 200 body), once that
#                           connection ended
#   GET /chunks             CHUNKED: a chunked body of chunks of 5, 0x1a (with extensions) and 3 bytes, the
#                           last-chunk (with an extension) and a trailer, sent in three writes
#   anything else           "200 OK" with body "ok"
import socket
import ssl
import sys
import threading

RESPONSES = {
    "bare-lf": b"HTTP/1.1 200 OK\nContent-Length: 2\n\nhi",
    "obs-fold": b"HTTP/1.1 200 OK\r\nX-Folded: one\r\n two\r\nContent-Length: 2\r\n\r\nhi",
    "missing-reason-phrase": b"HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nhi",
    "empty-chunk-extension": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;\r\nhi\r\n0\r\n\r\n",
    "whitespace-before-chunk-crlf":
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nhi\r\n0\r\n\r\n",
    "duplicate-identical-content-length":
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi",
    "transfer-encoding-with-content-length":
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
    "transfer-encoding-in-http10": b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nhi",
    "none": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
}
CLOSE_AFTER = {"transfer-encoding-in-http10"}
CHUNKED = [
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
    b"1a;name=value;q=\"a b\"\r\nabcdefghijklmnopqrstuvwxyz\r\n",
    b"3\r\nxyz\r\n0;last\r\nX-Sum: 34\r\n\r\n",
]

lock = threading.Condition()
previous = {"bytes": None}


def ok(body):
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


class Connection:
    def __init__(self, conn):
        self.conn = conn
        self.buffer = b""
        self.received = b""

    def read_head(self):
        """The next request head (its target), or None at EOF; a head ends with a blank line (CRLF or LF)."""
        while True:
            for end in (b"\r\n\r\n", b"\n\n"):
                index = self.buffer.find(end)
                if index >= 0:
                    head, self.buffer = self.buffer[:index], self.buffer[index + len(end):]
                    parts = head.split(b"\n", 1)[0].split(b" ")
                    return parts[1].decode("latin-1") if len(parts) > 1 else ""
            data = self.conn.recv(65536)
            if not data:
                return None
            self.buffer += data
            self.received += data

    def drain(self):
        while True:
            data = self.conn.recv(65536)
            if not data:
                return
            self.received += data


def serve(conn):
    connection = Connection(conn)
    try:
        while True:
            target = connection.read_head()
            if target is None:
                break
            if target.startswith("/deviation/"):
                name = target[len("/deviation/"):]
                conn.sendall(RESPONSES.get(name, ok(b"unknown")))
                if name in CLOSE_AFTER:
                    break
            elif target == "/chunks":
                for piece in CHUNKED:
                    conn.sendall(piece)
            elif target == "/recorded":
                with lock:
                    lock.wait_for(lambda: previous["bytes"] is not None, timeout=10)
                    recorded = previous["bytes"] or b""
                conn.sendall(ok(recorded))
            else:
                conn.sendall(ok(b"ok"))
        if not isinstance(conn, ssl.SSLSocket):
            conn.shutdown(socket.SHUT_WR)
            connection.drain()
    except OSError:
        pass
    finally:
        conn.close()
        if not connection.received.startswith(b"GET /recorded"):
            with lock:
                previous["bytes"] = connection.received
                lock.notify_all()


def serve_tls(conn, context):
    try:
        conn.settimeout(10)
        wrapped = context.wrap_socket(conn, server_side=True)
        wrapped.settimeout(None)
    except OSError:
        conn.close()
        return
    serve(wrapped)


def listen():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return listener


def accept_loop(listener, context):
    while True:
        conn, _ = listener.accept()
        if context is None:
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
        else:
            threading.Thread(target=serve_tls, args=(conn, context), daemon=True).start()


def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    plain, secure = listen(), listen()
    print("PORTS %d %d" % (plain.getsockname()[1], secure.getsockname()[1]), flush=True)
    threading.Thread(target=accept_loop, args=(secure, context), daemon=True).start()
    accept_loop(plain, None)


main()
