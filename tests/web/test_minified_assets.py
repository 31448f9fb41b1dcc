"""Scripts and stylesheets are served minified (web/http/site.py): smaller, still the
same program. Every script the server sends must parse as a module in Node (a
minifier slip, such as a regex or a template literal read as a comment, fails here
before it reaches a browser), carry no comment, keep each import, answer its ETag with
a 304, and be sent as written when the host turns minifying off."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hollywood_gin.config import Settings
from hollywood_gin.main import create_app
from tests.conftest import REPO

STATIC = REPO / "static"
SCRIPTS = sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*.js"))
SHEETS = sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*.css"))
IMPORT = re.compile(r"""\bfrom\s*["'](\./[\w.]+)["']|\bimport\s*\(\s*["'](\./[\w.]+)["']""")


def make_client(tmp_path: Path, **settings: object) -> Iterator[TestClient]:
    config = Settings(data_file=tmp_path / "t.sqlite3", allowed_hosts=["testserver"], **settings)  # type: ignore[arg-type]
    with TestClient(create_app(config)) as c:
        yield c


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from make_client(tmp_path)


def test_every_script_is_smaller_parses_and_keeps_its_imports(
    client: TestClient, tmp_path: Path
) -> None:
    node = shutil.which("node")
    assert node, "Node.js runs the parse check: apt-get install nodejs"
    for name in SCRIPTS:
        source = (STATIC / name).read_text()
        answer = client.get(f"/static/{name}")
        assert answer.status_code == 200, name
        assert answer.headers["content-type"].startswith("text/javascript"), name
        sent = answer.text
        assert len(sent) < len(source), name
        assert "\n//" not in sent and "/**" not in sent, name
        # The same modules imported, in the same order.
        assert [a or b for a, b in IMPORT.findall(sent)] == [
            a or b for a, b in IMPORT.findall(source)
        ], name
        module = tmp_path / (Path(name).stem + ".mjs")
        module.write_text(sent)
        check = subprocess.run([node, "--check", str(module)], capture_output=True, text=True)
        assert check.returncode == 0, f"{name}: {check.stderr[-800:]}"


def test_stylesheets_are_smaller_and_keep_every_rule(client: TestClient) -> None:
    for name in SHEETS:
        source = (STATIC / name).read_text()
        sent = client.get(f"/static/{name}").text
        assert len(sent) < len(source), name
        assert "/*" not in sent, name
        # Every selector's block survives: as many rule bodies as the source has.
        assert sent.count("{") == re.sub(r"/\*.*?\*/", "", source, flags=re.S).count("{"), name


def test_an_unchanged_script_is_a_304_and_the_stamped_one_is_kept_a_year(
    client: TestClient,
) -> None:
    first = client.get("/static/js/table.js")
    etag = first.headers["etag"]
    again = client.get("/static/js/table.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert first.headers["cache-control"] == "no-cache"
    stamp = client.app.state.site.stamp  # type: ignore[attr-defined]
    stamped = client.get(f"/static/{stamp}/js/table.js")
    assert stamped.text == first.text
    assert "immutable" in stamped.headers["cache-control"]


def test_a_host_may_send_them_as_written(tmp_path: Path) -> None:
    for c in make_client(tmp_path, minify_assets=False):
        for name in ("js/table.js", "css/site.css"):
            assert c.get(f"/static/{name}").content == (STATIC / name).read_bytes()
