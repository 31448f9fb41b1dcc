"""Hollywood Gin: two-player Gin Rummy in the browser.

`__version__` and `__commit__` come from git at build time: the wheel's build
(hatch-vcs and hatch_build.py) writes them into `hollywood_gin/_build.py`. A source
checkout has no such file: the version is then the installed distribution's (an
editable install's, from git when it was installed), and the commit is read from
git at start-up (`config.read_commit`).
"""

from __future__ import annotations

from importlib import metadata

try:
    from hollywood_gin import _build  # type: ignore[attr-defined, unused-ignore]

    _built: tuple[str | None, str | None] = (_build.version, _build.commit)
except ImportError:  # a checkout, never built
    _built = (None, None)


def _installed_version() -> str:
    try:
        return metadata.version("hollywood-gin")
    except metadata.PackageNotFoundError:
        return "0.0.0+unknown"


__version__: str = _built[0] or _installed_version()
# The short commit the wheel was built from (`278c452`), or None (a checkout: git says).
__commit__: str | None = _built[1]
