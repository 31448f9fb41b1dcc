"""Asset URLs carry a content stamp, imported modules included, and are cached for long."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urljoin

from fastapi.testclient import TestClient

from hollywood_gin.main import create_app
from hollywood_gin.web.http.site import STATIC_DIR, static_stamp
from tests.tables.helpers import make_settings

IMPORT = re.compile(r"""(?:import|from)\s*["'](\.[^"']+)["']""")
REFERENCE = re.compile(r"""(?:src|href)="(/static/[^"]+)\"""")


def test_every_asset_of_every_page_is_stamped_and_long_cached(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        table_id = client.post("/api/tables", json={"name": "Ann"}).json()["table_id"]
        stamp = static_stamp()
        seen: set[str] = set()
        for page in ("/en/", "/en/rules", "/de/variants/oklahoma", f"/t/{table_id}"):
            html = client.get(page).text
            assert "?v=" not in html
            refs = REFERENCE.findall(html)
            assert refs, page
            queue = list(refs)
            while queue:
                url = queue.pop()
                if url in seen:
                    continue
                seen.add(url)
                assert url.startswith(f"/static/{stamp}/"), url
                r = client.get(url)
                assert r.status_code == 200, url
                assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
                if url.endswith(".js"):
                    # What the browser fetches for `import ... from "./x.js"`.
                    queue += [urljoin(url, rel) for rel in IMPORT.findall(r.text)]
        assert f"/static/{stamp}/js/cards.js" in seen  # reached only through imports
        # The plain paths still answer, revalidated on each use.
        plain = client.get("/static/js/table.js")
        assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"


def test_the_stamp_follows_the_content(tmp_path: Path) -> None:
    copy = tmp_path / "static"
    shutil.copytree(STATIC_DIR, copy)
    before = static_stamp(copy)
    assert static_stamp(copy) == before
    script = copy / "js" / "cards.js"
    script.write_text(script.read_text() + "\n// changed\n")
    assert static_stamp(copy) != before
