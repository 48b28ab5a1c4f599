"""A real GraphQL server for Switchboard's legacy contract (contract §4), for tests and fixture recording.

strawberry-graphql serves the schema and speaks both WebSocket dialects, `graphql-ws`
(subscriptions-transport-ws) and `graphql-transport-ws`, on `/graphql`; uvicorn runs it on
127.0.0.1. Beside it, plain HTTP endpoints let a test drive the server:

    POST /publish               {"field": "subscribeRoleChange", "argument": "user-1", "payload": {...}}
                                -> {"subscribers": N}; 400 when the payload does not fit the field's type
    GET  /control/subscriptions -> {"connections": {"1": 5, ...}, "held": N} (subscriptions per connection;
                                messages a stall holds)
    POST /control/drop          {"code": 1011, "reason": "server restart"} -> {"connections": N}
    POST /control/stall         -> the open connections go silent (nothing is sent) until /control/reset
    POST /control/reject-token  {"token": "..."} -> a connection_init with this token is refused from now on
    POST /control/reset         -> ends stalls and rejections
    POST /control/configure     {"tokens": [...], "maxSubscriptions": N} -> closes every connection (1001), waits
                                until they are gone, then serves afresh with these tokens and this limit (0: none);
                                so one process serves test after test

Auth is the contract's legacy auth: `{"Authorization": "<token>"}` in the `connection_init` payload,
checked against `--token` (repeatable). A refused init is strawberry's: `connection_error` then close
1011 on graphql-ws, close 4403 on graphql-transport-ws.

Start: `python server.py --port 0 --token T` prints one JSON line, `{"port": N}`, once it listens.
With `--exit-on-stdin-eof` it stops when its standard input closes (the test that started it is gone).
`--print-schema` prints the schema and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import socket
import sys
import threading
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL

from connections import Connections
from legacy_schema import PayloadError, build_payload, schema
from pubsub import PubSub


class LegacyGraphQL(GraphQL):
    """strawberry's ASGI app with the contract's connection-init auth and the test's pub/sub in the context."""

    def __init__(self, server: "LegacyServer", **options: Any) -> None:
        super().__init__(schema, **options)
        self.server = server

    async def get_context(self, request: Any, response: Any) -> dict[str, Any]:
        return {
            "pubsub": self.server.pubsub,
            "connection": request.scope.get("legacy_server.connection", 0),
            "request": request,
            "response": response,
        }

    async def on_ws_connect(self, context: dict[str, Any]) -> Any:
        params = context.get("connection_params") or {}
        token = params.get("Authorization") if isinstance(params, dict) else None
        if not isinstance(token, str) or not self.server.accepts(token):
            raise ConnectionRejectionError({"message": "Unauthorized"})
        return await super().on_ws_connect(context)


class LegacyServer:
    def __init__(self, tokens: list[str], keep_alive_interval: float, max_subscriptions: int | None) -> None:
        self.pubsub = PubSub()
        self.connections = Connections()
        self.tokens = set(tokens)
        self.rejected: set[str] = set()
        self.graphql = LegacyGraphQL(
            self,
            keep_alive=keep_alive_interval > 0,
            keep_alive_interval=keep_alive_interval if keep_alive_interval > 0 else 1,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL),
            max_subscriptions_per_connection=max_subscriptions,
        )
        self.http = Starlette(
            routes=[
                Route("/publish", self.publish, methods=["POST"]),
                Route("/control/subscriptions", self.subscriptions, methods=["GET"]),
                Route("/control/drop", self.drop, methods=["POST"]),
                Route("/control/stall", self.stall, methods=["POST"]),
                Route("/control/reject-token", self.reject_token, methods=["POST"]),
                Route("/control/reset", self.reset, methods=["POST"]),
                Route("/control/configure", self.configure, methods=["POST"]),
            ]
        )

    def accepts(self, token: str) -> bool:
        return token in self.tokens and token not in self.rejected

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and scope["path"] == "/graphql":
            await self.connections.serve(scope, receive, send, self.graphql)
        elif scope["type"] == "http" and scope["path"] == "/graphql":
            await self.graphql(scope, receive, send)
        else:
            await self.http(scope, receive, send)

    @staticmethod
    async def _body(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if not raw:
            return {}
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object")
        return body

    async def publish(self, request: Request) -> JSONResponse:
        try:
            body = await self._body(request)
            field, argument = body["field"], body["argument"]
            if not isinstance(field, str) or not isinstance(argument, str):
                raise ValueError("field and argument must be strings")
            item = build_payload(field, body.get("payload"))
        except (ValueError, KeyError, PayloadError) as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        return JSONResponse({"subscribers": self.pubsub.publish(field, argument, item)})

    async def subscriptions(self, request: Request) -> JSONResponse:
        counts = self.pubsub.counts_by_connection()
        return JSONResponse({
            "connections": {str(number): count for number, count in sorted(counts.items())},
            "held": self.connections.held,
        })

    async def drop(self, request: Request) -> JSONResponse:
        try:
            body = await self._body(request)
            code = int(body.get("code", 1011))
            reason = str(body.get("reason", ""))
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        return JSONResponse({"connections": await self.connections.drop_all(code, reason)})

    async def stall(self, request: Request) -> JSONResponse:
        return JSONResponse({"connections": self.connections.stall_all()})

    async def reject_token(self, request: Request) -> JSONResponse:
        try:
            token = (await self._body(request))["token"]
        except (ValueError, KeyError) as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        self.rejected.add(str(token))
        return JSONResponse({"rejected": len(self.rejected)})

    async def reset(self, request: Request) -> JSONResponse:
        self.connections.release_all()
        self.rejected.clear()
        return JSONResponse({"connections": self.connections.count})


    async def configure(self, request: Request) -> JSONResponse:
        try:
            body = await self._body(request)
            tokens = body.get("tokens", [])
            limit = int(body.get("maxSubscriptions", 100))
            if not isinstance(tokens, list) or not all(isinstance(token, str) for token in tokens):
                raise ValueError("tokens must be a list of strings")
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        self.connections.release_all()
        dropped = await self.connections.drop_all(1001, "server reconfigured")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while self.connections.count or self.pubsub.counts_by_connection():
            if loop.time() > deadline:
                return JSONResponse({"error": "connections still open after 30 s"}, status_code=503)
            await asyncio.sleep(0.01)
        self.tokens = set(tokens)
        self.rejected.clear()
        # strawberry reads the limit when a connection opens.
        self.graphql.max_subscriptions_per_connection = limit or None
        return JSONResponse({"dropped": dropped})


def _watch_stdin(server: uvicorn.Server, loop: asyncio.AbstractEventLoop) -> None:
    """Stops the server when standard input reaches its end."""
    def watch() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        loop.call_soon_threadsafe(setattr, server, "should_exit", True)

    threading.Thread(target=watch, name="stdin-watch", daemon=True).start()


async def _serve(arguments: argparse.Namespace) -> None:
    app = LegacyServer(arguments.token, arguments.keep_alive_interval, arguments.max_subscriptions or None)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", arguments.port))
    listener.listen(128)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        app,
        lifespan="off",
        log_level=arguments.log_level,
        access_log=False,
        ws="websockets-sansio",
        ws_ping_interval=None,
        ws_ping_timeout=None,
    )
    server = uvicorn.Server(config)
    if arguments.exit_on_stdin_eof:
        _watch_stdin(server, asyncio.get_running_loop())
    serving = asyncio.create_task(server.serve(sockets=[listener]))
    while not server.started and not serving.done():
        await asyncio.sleep(0.01)
    if server.started:
        print(json.dumps({"port": port}), flush=True)
    await serving


def _quiet_logs(level: str) -> None:
    """strawberry logs every field error with its traceback at ERROR; tests read the errors on the wire."""
    logging.basicConfig(level=level.upper(), stream=sys.stderr)
    if logging.getLogger().level > logging.DEBUG:
        logging.getLogger("strawberry").setLevel(logging.CRITICAL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--token", action="append", default=[], help="a token the connection_init may carry")
    parser.add_argument("--keep-alive-interval", type=float, default=30.0,
                        help="seconds between graphql-ws `ka` frames (one is sent right after the ack); 0: none")
    parser.add_argument("--max-subscriptions", type=int, default=100,
                        help="operations per connection (strawberry's limit); 0: no limit")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--exit-on-stdin-eof", action="store_true")
    parser.add_argument("--print-schema", action="store_true")
    arguments = parser.parse_args()
    if arguments.print_schema:
        print(schema.as_str())
        return
    _quiet_logs(arguments.log_level)
    asyncio.run(_serve(arguments))


if __name__ == "__main__":
    main()
