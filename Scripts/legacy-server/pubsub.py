"""In-process publish/subscribe for the legacy server: topics are (subscription field, argument)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any


class PubSub:
    def __init__(self) -> None:
        self._queues: dict[tuple[str, str], list[tuple[int, asyncio.Queue[Any]]]] = {}

    @asynccontextmanager
    async def subscription(self, field: str, argument: str, connection: int) -> AsyncIterator[asyncio.Queue[Any]]:
        """A queue that receives what is published to `field` for `argument` while the context is open."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        entry = (connection, queue)
        self._queues.setdefault((field, argument), []).append(entry)
        try:
            yield queue
        finally:
            subscribers = self._queues.get((field, argument), [])
            if entry in subscribers:
                subscribers.remove(entry)
            if not subscribers:
                self._queues.pop((field, argument), None)

    def publish(self, field: str, argument: str, item: Any) -> int:
        """Queues `item` for every subscriber of the topic; returns how many there are."""
        subscribers = self._queues.get((field, argument), [])
        for _, queue in subscribers:
            queue.put_nowait(item)
        return len(subscribers)

    def counts_by_connection(self) -> dict[int, int]:
        """How many subscriptions each connection holds."""
        counts: Counter[int] = Counter()
        for subscribers in self._queues.values():
            for connection, _ in subscribers:
                counts[connection] += 1
        return dict(counts)
