"""The legacy server's own checks: it serves contract §4's schema exactly, and its test endpoints work.

Run with the server's virtual environment: `VENV/bin/python -m unittest discover -s Scripts/legacy-server`.
The Swift suites (EndToEndTests, MigrationTests) drive it with the Switchboard client.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

from graphql import build_schema, lexicographic_sort_schema, print_schema
from websockets.asyncio.client import connect

from legacy_schema import PayloadError, build_payload, schema

HERE = pathlib.Path(__file__).resolve().parent


class SchemaTests(unittest.TestCase):
    def test_serves_the_contract_sdl(self) -> None:
        contract = build_schema((HERE / "schema.graphql").read_text())
        served = lexicographic_sort_schema(schema._schema)
        self.assertEqual(print_schema(served), print_schema(lexicographic_sort_schema(contract)))

    def test_payloads_keep_published_values_for_the_executor(self) -> None:
        state = build_payload("subscribeOrganizationState", {"orgId": "o", "licensePhase": "Suspended"})
        self.assertEqual(state.licensePhase, "Suspended")
        setting = build_payload(
            "subscribeOrganizationState", {"AIControlSetting": {"options": [{"key": "k", "enabled": True}]}}
        ).ai_control_setting
        self.assertEqual(setting.options[0].key, "k")

    def test_a_payload_with_an_unknown_field_is_refused(self) -> None:
        with self.assertRaises(PayloadError):
            build_payload("subscribeRoleChange", {"reason": "r", "eventType": "user/roleChanged"})
        with self.assertRaises(PayloadError):
            build_payload("subscribeNothing", {})


class ServerTests(unittest.TestCase):
    def setUp(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "server.py"), "--token", "good", "--exit-on-stdin-eof", "--max-subscriptions", "2"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        line = self.process.stdout.readline()
        self.assertTrue(line, "the server did not start")
        self.port = json.loads(line)["port"]

    def tearDown(self) -> None:
        self.process.stdin.close()
        self.assertEqual(self.process.wait(timeout=30), 0)
        self.process.stdout.close()

    def request(self, method: str, path: str, body: object | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    async def frames(self, socket, count: int) -> list[dict]:
        received = []
        while len(received) < count:
            frame = json.loads(await asyncio.wait_for(socket.recv(), 30))
            if frame["type"] != "ka":
                received.append(frame)
        return received

    async def subscribed(self, count: int) -> None:
        while sum(self.request("GET", "/control/subscriptions")[1]["connections"].values()) < count:
            await asyncio.sleep(0.01)

    def test_publish_reaches_subscribers_in_both_dialects_and_the_limit_refuses(self) -> None:
        async def run(protocol: str, start: str, result: str) -> None:
            async with connect(f"ws://127.0.0.1:{self.port}/graphql", subprotocols=[protocol]) as socket:
                await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "good"}}))
                self.assertEqual((await self.frames(socket, 1))[0]["type"], "connection_ack")
                query = 'subscription { subscribeRoleChange(userId: "u") { reason } }'
                for operation in ("1", "2", "3"):
                    await socket.send(json.dumps({"id": operation, "type": start, "payload": {"query": query}}))
                refused = (await self.frames(socket, 1))[0]
                self.assertEqual((refused["type"], refused["id"]), ("error", "3"))
                await self.subscribed(2)
                status, body = self.request("POST", "/publish",
                                            {"field": "subscribeRoleChange", "argument": "u", "payload": {"reason": "r"}})
                self.assertEqual((status, body), (200, {"subscribers": 2}))
                delivered = await self.frames(socket, 2)
                self.assertEqual({frame["id"] for frame in delivered}, {"1", "2"})
                self.assertEqual({frame["type"] for frame in delivered}, {result})
                self.assertEqual(delivered[0]["payload"], {"data": {"subscribeRoleChange": {"reason": "r"}}})
            # The server saw the close: nothing stays subscribed.
            while self.request("GET", "/control/subscriptions")[1]["connections"]:
                await asyncio.sleep(0.01)

        asyncio.run(run("graphql-ws", "start", "data"))
        asyncio.run(run("graphql-transport-ws", "subscribe", "next"))

    def test_drop_closes_with_the_code_and_a_rejected_token_is_refused(self) -> None:
        async def run() -> None:
            async with connect(f"ws://127.0.0.1:{self.port}/graphql", subprotocols=["graphql-transport-ws"]) as socket:
                await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "good"}}))
                await self.frames(socket, 1)
                self.assertEqual(self.request("POST", "/control/drop", {"code": 1011, "reason": "restart"}),
                                 (200, {"connections": 1}))
                await socket.wait_closed()
                self.assertEqual((socket.close_code, socket.close_reason), (1011, "restart"))
            self.assertEqual(self.request("POST", "/control/reject-token", {"token": "good"})[0], 200)
            async with connect(f"ws://127.0.0.1:{self.port}/graphql", subprotocols=["graphql-transport-ws"]) as socket:
                await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "good"}}))
                await socket.wait_closed()
                self.assertEqual((socket.close_code, socket.close_reason), (4403, "Forbidden"))

        asyncio.run(run())

    def test_a_stall_holds_pongs_and_results_until_reset(self) -> None:
        async def run() -> None:
            async with connect(f"ws://127.0.0.1:{self.port}/graphql", subprotocols=["graphql-transport-ws"]) as socket:
                await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "good"}}))
                await self.frames(socket, 1)
                query = 'subscription { subscribeRoleChange(userId: "u") { reason } }'
                await socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
                await self.subscribed(1)
                self.assertEqual(self.request("POST", "/control/stall"), (200, {"connections": 1}))
                await socket.send(json.dumps({"type": "ping"}))
                self.request("POST", "/publish", {"field": "subscribeRoleChange", "argument": "u", "payload": {"reason": "r"}})
                while self.request("GET", "/control/subscriptions")[1]["held"] < 2:
                    await asyncio.sleep(0.01)
                self.assertEqual(self.request("POST", "/control/reset")[0], 200)
                frames = await self.frames(socket, 2)
                self.assertEqual(sorted(frame["type"] for frame in frames), ["next", "pong"])

        asyncio.run(run())

    def test_configure_closes_everything_and_serves_afresh(self) -> None:
        async def run() -> None:
            async with connect(f"ws://127.0.0.1:{self.port}/graphql", subprotocols=["graphql-transport-ws"]) as socket:
                await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "good"}}))
                await self.frames(socket, 1)
                query = 'subscription { subscribeRoleChange(userId: "u") { reason } }'
                await socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
                await self.subscribed(1)
                status, body = self.request("POST", "/control/configure", {"tokens": ["new"], "maxSubscriptions": 0})
                self.assertEqual((status, body), (200, {"dropped": 1}))
                # Nothing is left when it answers.
                self.assertEqual(self.request("GET", "/control/subscriptions")[1]["connections"], {})
                await socket.wait_closed()
                self.assertEqual(socket.close_code, 1001)
            async with connect(f"ws://127.0.0.1:{self.port}/graphql", subprotocols=["graphql-transport-ws"]) as socket:
                await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "good"}}))
                await socket.wait_closed()
                self.assertEqual(socket.close_code, 4403)
            async with connect(f"ws://127.0.0.1:{self.port}/graphql", subprotocols=["graphql-transport-ws"]) as socket:
                await socket.send(json.dumps({"type": "connection_init", "payload": {"Authorization": "new"}}))
                self.assertEqual((await self.frames(socket, 1))[0]["type"], "connection_ack")
                query = 'subscription { subscribeRoleChange(userId: "u") { reason } }'
                for operation in ("1", "2", "3"):  # no limit now (it was 2)
                    await socket.send(json.dumps({"id": operation, "type": "subscribe", "payload": {"query": query}}))
                await self.subscribed(3)

        asyncio.run(run())

    def test_a_bad_publish_is_refused(self) -> None:
        status, body = self.request("POST", "/publish", {"field": "subscribeRoleChange", "argument": "u",
                                                          "payload": {"eventType": "user/roleChanged"}})
        self.assertEqual(status, 400)
        self.assertIn("eventType", body["error"])


if __name__ == "__main__":
    unittest.main()
