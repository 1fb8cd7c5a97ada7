# A WebSocket test peer built on Debian's python3-websockets (legacy asyncio API, 10.x): three servers on
# 127.0.0.1 — without compression, with permessage-deflate, and with TLS (the fixture chain given on the
# command line) — each offering the subprotocols chat.v2 and chat.v1. The first line on stdout is
# "PORTS <plain> <deflate> <tls>". What a connection does depends on its path:
#
#   /echo                      echoes every message (text as text, binary as binary)
#   /echo-in-order             echoes each message as soon as it is read, before the next frame: a client's
#                              close that follows its messages closely is read after their echoes went out
#                              (on /echo the library may read and answer the close first, and the handler's
#                              echoes are then refused)
#   /extensions                sends the negotiated extensions' names, comma-separated
#   /subprotocol               sends the chosen subprotocol ("" for none)
#   /fragments/COUNT/SIZE      sends one text message in COUNT fragments of SIZE bytes
#   /big/SIZE                  sends one binary message of SIZE bytes
#   /ping                      pings the client and sends "pong received" once its pong arrived
#   /close/CODE/REASON         sends "closing", then closes with CODE and REASON
#   /abrupt                    sends "hello", then drops the TCP connection without a close frame
#
# Every other connection waits for the client to close.
import asyncio
import ssl
import sys

import websockets


class InOrderEchoProtocol(websockets.WebSocketServerProtocol):
    """On /echo-in-order, echoes each message from the reading task itself, before the next frame is read."""

    async def read_message(self):
        message = await super().read_message()
        if message is not None and self.path == "/echo-in-order":
            await self.send(message)
        return message


async def handler(ws):
    parts = ws.path.strip("/").split("/")
    kind = parts[0]
    try:
        if kind == "echo":
            async for message in ws:
                await ws.send(message)
        elif kind == "extensions":
            await ws.send(",".join(extension.name for extension in ws.extensions))
        elif kind == "subprotocol":
            await ws.send(ws.subprotocol or "")
        elif kind == "fragments":
            count, size = int(parts[1]), int(parts[2])
            await ws.send([chr(ord("a") + index % 26) * size for index in range(count)])
        elif kind == "big":
            await ws.send(bytes(int(parts[1])))
        elif kind == "ping":
            pong = await ws.ping(b"are you there")
            await asyncio.wait_for(pong, 20)
            await ws.send("pong received")
        elif kind == "close":
            await ws.send("closing")
            await ws.close(int(parts[1]), parts[2] if len(parts) > 2 else "")
            return
        elif kind == "abrupt":
            await ws.send("hello")
            await asyncio.sleep(0.05)
            ws.transport.abort()
            return
        await ws.wait_closed()
    except websockets.ConnectionClosed:
        pass


async def main():
    chain, key = sys.argv[1], sys.argv[2]
    options = dict(subprotocols=["chat.v2", "chat.v1"], max_size=None, ping_interval=None,
                   create_protocol=InOrderEchoProtocol)
    plain = await websockets.serve(handler, "127.0.0.1", 0, compression=None, **options)
    deflate = await websockets.serve(handler, "127.0.0.1", 0, **options)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certfile=chain, keyfile=key)
    secure = await websockets.serve(handler, "127.0.0.1", 0, ssl=context, compression=None, **options)
    ports = [server.sockets[0].getsockname()[1] for server in (plain, deflate, secure)]
    print("PORTS %d %d %d" % tuple(ports), flush=True)
    await asyncio.Future()


asyncio.run(main())
