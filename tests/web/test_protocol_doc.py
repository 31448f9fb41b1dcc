"""docs/protocol.md is generated from hollywood_gin/web/socket/messages.py, state_bodies.py and
hollywood_gin/web/http/bodies.py and must be current."""

from __future__ import annotations

import importlib.util
import json
import re
from types import ModuleType

from hollywood_gin.web.socket import messages
from tests.conftest import REPO


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_protocol", REPO / "scripts" / "gen_protocol.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_protocol_doc_is_current() -> None:
    text = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert text == generator().render(), "run: python scripts/gen_protocol.py"


def test_protocol_doc_has_a_valid_schema_per_message() -> None:
    text = generator().render()
    blocks = re.findall(r"### (\w+)\n\n.*?\n\n```json\n(.*?)\n```", text, re.S)
    names = [name for name, _ in blocks]
    for wanted in ("ClientMessage", "Action", "StateMessage", "ErrorMessage", "Pong"):
        assert wanted in names
    schemas = {name: json.loads(body) for name, body in blocks}
    client_types = {
        ref.split("/")[-1] for ref in schemas["ClientMessage"]["discriminator"]["mapping"].values()
    }
    assert client_types == {"Hello", "ActionMessage", "Arrange", "Ping", "React", "Hint"}
    codes = set(schemas["ErrorMessage"]["properties"]["code"]["enum"])
    assert codes == set(messages.ErrorCode.__args__)  # type: ignore[attr-defined]
    assert "bad_message" in codes and "too_large" in codes


def test_the_check_mode_notices_a_stale_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    gen = generator()
    monkeypatch.setattr(gen, "TARGET", tmp_path / "protocol.md")
    (tmp_path / "protocol.md").write_text("old", encoding="utf-8")
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0
