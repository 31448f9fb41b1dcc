"""Web Push and idle tables (`hollywood_gin.tables.idle`), over the wire: a push
service's 404/410 deletes the subscription even when the table has left memory
between the message and the answer (a real server, a real SQLite file, a push
service on loopback that answers when the test says)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.conftest import running_server
from tests.pushservice import PushService
from tests.web.test_idle_tables import ENV as IDLE_ENV
from tests.web.test_idle_tables import wait_held
from tests.web.test_push_wire import (
    create,
    env_for,
    join,
    play_turn,
    service,  # noqa: F401 (fixture)
    stored_push,
    subscribe,
)


def test_a_410_for_a_table_out_of_memory_deletes_the_subscription(
    tmp_path: Path,
    service: PushService,  # noqa: F811
) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env={**env_for(service), **IDLE_ENV}) as (base, _):
        table_id, ann = create(base)
        sub = service.subscriber("/push/gone")
        service.status["/push/gone"] = 410
        answer = service.holds["/push/gone"] = threading.Event()
        assert subscribe(base, table_id, ann, sub.json(service.origin)).status_code == 201
        bob = join(base, table_id)
        play_turn(base, table_id, bob)  # Ann waits: a message is posted
        service.next()
        wait_held(base, 0)  # the table leaves memory while the answer is held back
        answer.set()  # now the 410
        end = time.monotonic() + 60  # a bound on a hang: the 410 comes in its own time
        while stored_push(data, table_id)[0] and time.monotonic() < end:
            time.sleep(0.05)  # the server forgets it once the 410 is in
        assert stored_push(data, table_id)[0] == []
