"""Hollywood Gin: two-player Gin Rummy in the browser.

`__version__` is set here and nowhere else: the wheel, the sdist, `hollywood-gin
--version`, `/healthz`, the footer and the image's label all read it, so a clone says
the same as a release built from it (no tags needed). `python scripts/release.py
X.Y.Z` changes it: `X.Y.Z` on a release's commit (tag `vX.Y.Z`), then the next
version's `.dev0` until that one is released (README, "Releases").

`__commit__` is the short commit a wheel was built from: its build (hatch_build.py)
writes it into `hollywood_gin/_build.py`. A source checkout has no such file; the
commit is then read from git at start-up (`config.read_commit`).
"""

from __future__ import annotations

__version__ = "0.2.0.dev0"

try:
    from hollywood_gin import _build  # type: ignore[attr-defined, unused-ignore]

    __commit__: str | None = _build.commit
except ImportError:  # a checkout, never built
    __commit__ = None
