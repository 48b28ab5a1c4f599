"""Server-side faults for the legacy server's WebSocket connections, outside the GraphQL protocol.

Each `/graphql` WebSocket runs the strawberry app through a `Connection`, which sits between the
ASGI server and the app: it can close the socket with a chosen code (a server drop, as a restart or a
load balancer does), and it can hold everything the app sends (a stall: the server goes silent, so
`ka` frames and `pong` messages stop, as on a dead network path). The protocol itself is strawberry's.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, Awaitable, Callable

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]


class Connection:
    def __init__(self, number: int, send: Send) -> None:
        self.number = number
        self._send = send
        self._inbound: asyncio.Queue[Message] = asyncio.Queue()
        self._released = asyncio.Event()
        self._released.set()
        self._gone = asyncio.Event()
        self._closed = False
        self.held = 0

    async def pump(self, receive: Receive) -> None:
        """Reads from the ASGI server, so a client's disconnect is seen even while the app is held."""
        while True:
            message = await receive()
            await self._inbound.put(message)
            if message["type"] == "websocket.disconnect":
                self._gone.set()
                return

    async def receive(self) -> Message:
        return await self._inbound.get()

    async def send(self, message: Message) -> None:
        while not self._released.is_set() and not self._gone.is_set():
            released = asyncio.ensure_future(self._released.wait())
            gone = asyncio.ensure_future(self._gone.wait())
            self.held += 1
            try:
                await asyncio.wait({released, gone}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self.held -= 1
                released.cancel()
                gone.cancel()
        if self._closed or self._gone.is_set():
            return  # the socket is closed: what the app still sends goes nowhere
        if message["type"] == "websocket.close":
            self._closed = True
        await self._send(message)

    def stall(self) -> None:
        self._released.clear()

    def release(self) -> None:
        self._released.set()

    async def drop(self, code: int, reason: str) -> bool:
        """Closes the socket with `code` and tells the app the client is gone; False if already closed."""
        if self._closed or self._gone.is_set():
            return False
        self._closed = True
        await self._send({"type": "websocket.close", "code": code, "reason": reason})
        await self._inbound.put({"type": "websocket.disconnect", "code": code, "reason": reason})
        return True


class Connections:
    """The open `/graphql` connections, numbered from 1 in the order they opened."""

    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self._open: dict[int, Connection] = {}

    async def serve(self, scope: dict[str, Any], receive: Receive, send: Send, app: App) -> None:
        connection = Connection(next(self._numbers), send)
        scope = dict(scope)
        scope["legacy_server.connection"] = connection.number
        self._open[connection.number] = connection
        pump = asyncio.create_task(connection.pump(receive))
        try:
            await app(scope, connection.receive, connection.send)
        finally:
            self._open.pop(connection.number, None)
            pump.cancel()

    async def drop_all(self, code: int, reason: str) -> int:
        dropped = 0
        for connection in list(self._open.values()):
            if await connection.drop(code, reason):
                dropped += 1
        return dropped

    def stall_all(self) -> int:
        """Holds what the app sends on every open connection (not on later ones) until `release_all`."""
        for connection in self._open.values():
            connection.stall()
        return len(self._open)

    def release_all(self) -> None:
        for connection in self._open.values():
            connection.release()

    @property
    def held(self) -> int:
        """Messages the app is waiting to send on stalled connections."""
        return sum(connection.held for connection in self._open.values())

    @property
    def count(self) -> int:
        return len(self._open)
