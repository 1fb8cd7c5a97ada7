# A raw HTTP/1.1 test server for pipelining (issue 27), Python standard library only. One thread per
# connection on 127.0.0.1; the first line on stdout is "PORTS <port>". Arguments (the fixture chain and key,
# given to every port-announcing script) are not used.
#
# Every request is a GET or HEAD (or a POST with a Content-Length body) whose target is
#
#   /wait/<n>/<ms>/<name>         answer once <n> request heads are read and unanswered on this connection,
#                                 or once no byte came for <ms> milliseconds (a client that does not pipeline
#                                 gets its answer late, never none), then answer every pending one, in order
#   /closefirst/<n>/<ms>/<name>   the same, but the first connection that serves such a request closes right
#                                 after its first response, without `Connection: close` (a server that stops
#                                 mid-pipeline); later connections answer everything
#
# Each response is 200 with the body <name> and these fields: `X-Pending`, how many heads this connection
# had read and not yet answered when it answered this one (itself included); `X-Max-Pending`, the most it
# ever had; `X-Connection`, the connection's number (1, 2, ... in accept order).
import socket
import sys
import threading

lock = threading.Lock()
state = {"connections": 0, "closed_first": False}


class Connection:
    def __init__(self, conn, number):
        self.conn = conn
        self.number = number
        self.buffer = b""
        self.eof = False

    def next_head(self):
        """A complete request (method, target) from the buffer, its body consumed, or None."""
        index = self.buffer.find(b"\r\n\r\n")
        if index < 0:
            return None
        head = self.buffer[:index].decode("latin-1")
        lines = head.split("\r\n")
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if len(self.buffer) < index + 4 + length:
            return None
        self.buffer = self.buffer[index + 4 + length:]
        parts = lines[0].split(" ")
        return parts[0], parts[1]

    def read_more(self, timeout):
        """Reads what comes within `timeout` seconds; False when nothing came (or EOF)."""
        if self.eof:
            return False
        self.conn.settimeout(timeout)
        try:
            data = self.conn.recv(65536)
        except socket.timeout:
            return False
        if not data:
            self.eof = True
            return False
        self.buffer += data
        return True


def settings(target):
    parts = target.split("/")
    if len(parts) >= 5 and parts[1] in ("wait", "closefirst"):
        return parts[1], int(parts[2]), int(parts[3]) / 1000.0, "/".join(parts[4:])
    return "wait", 1, 0.0, target


def serve(conn, number):
    connection = Connection(conn, number)
    pending = []
    max_pending = 0
    try:
        while True:
            # Collect heads until the first pending request's wish is met or the client goes quiet.
            while True:
                head = connection.next_head()
                if head is not None:
                    pending.append(head)
                    max_pending = max(max_pending, len(pending))
                    continue
                if pending:
                    _, wanted, wait, _ = settings(pending[0][1])
                    if len(pending) >= wanted:
                        break
                    if not connection.read_more(wait):
                        break
                else:
                    if not connection.read_more(None):
                        return
            close_now = False
            answered = 0
            count = len(pending)
            for method, target in pending:
                mode, _, _, name = settings(target)
                body = name.encode("latin-1")
                head = ("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-Pending: %d\r\nX-Max-Pending: %d\r\n"
                        "X-Connection: %d\r\n\r\n" % (len(body), count - answered, max_pending, number))
                conn.sendall(head.encode("latin-1") + (b"" if method == "HEAD" else body))
                answered += 1
                if mode == "closefirst":
                    with lock:
                        if not state["closed_first"]:
                            state["closed_first"] = True
                            close_now = True
                if close_now:
                    return
            pending = []
    except OSError:
        pass
    finally:
        conn.close()


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("PORTS %d" % listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        with lock:
            state["connections"] += 1
            number = state["connections"]
        threading.Thread(target=serve, args=(conn, number), daemon=True).start()


main()
