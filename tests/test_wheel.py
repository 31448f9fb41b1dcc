"""The wheel is enough to run the site: built, installed in a fresh virtualenv, served
from another directory, with its pages, its assets and the `hollywood-gin` commands.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import httpx

from tests.conftest import REPO, serving

PIP = [sys.executable, "-m", "pip"]


def build_wheel(out: Path, source: Path = REPO) -> Path:
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        check=True,
        timeout=300,
    )
    (wheel,) = out.glob("hollywood_gin-*.whl")
    return wheel


def fresh_venv(where: Path) -> Path:
    """A virtualenv whose only Hollywood Gin is the wheel installed into it.

    The dependencies come from this interpreter's site-packages, added as a plain
    path: its `.pth` files (the editable install of the source tree) are not run.
    """
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return python


def test_the_wheel_installs_and_serves_from_anywhere(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert not (REPO / "hollywood_gin" / "_build.py").exists()  # written into the wheel only
    assert (
        "hollywood_gin/templates/table.html" in names
        and "hollywood_gin/static/js/table.js" in names
    )
    # One top-level package, named for the project: no `app/` to collide with.
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"hollywood_gin"}, tops
    python = fresh_venv(tmp_path / "venv")
    subprocess.run(
        [*PIP, "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    command = tmp_path / "venv" / "bin" / "hollywood-gin"
    # Not the source tree's package, even where PYTHONPATH names it (HELPERS.md's set-up).
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [str(python), "-c", "import hollywood_gin; print(hollywood_gin.__file__)"],
        env=clean,
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(tmp_path / "venv"))

    env = {
        **{k: v for k, v in clean.items() if not k.startswith("HOLLYWOOD_GIN_")},
        "HOLLYWOOD_GIN_DATA_FILE": "data/tables.sqlite3",
        "HOLLYWOOD_GIN_LOG_LEVEL": "warning",
    }

    def start(port: int) -> subprocess.Popen[bytes]:
        served = {**env, "HOLLYWOOD_GIN_PORT": str(port)}
        return subprocess.Popen([str(command), "serve"], cwd=elsewhere, env=served)

    with serving(start) as (base, _server):
        # Built from a commit, it says which one, with no checkout around it.
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        version = wheel.name.split("-")[1]
        health = httpx.get(base + "/healthz", timeout=5).json()
        assert health == {"ok": True, "version": version, "commit": head}, health
        page = httpx.get(base + "/en/rules", timeout=5)
        # The footer: the version without its local part (the commit follows it).
        assert f"v{version.split('+')[0]} · {head}" in page.text
        assert f'data-build="{version} {head}"' in page.text
        assert page.status_code == 200 and "<html" in page.text
        script = httpx.get(base + "/static/js/table.js", timeout=5)
        assert script.status_code == 200 and "import" in script.text
    assert (elsewhere / "data" / "tables.sqlite3").exists()

    said = subprocess.run(
        [str(command), "--version"], cwd=elsewhere, env=env, capture_output=True, text=True
    ).stdout
    assert said == f"hollywood-gin {version} (commit {head})\n", said
    assert (
        "hollywood_gin/_build.py" in names and "hollywood_gin/deploy/hollywood-gin.service" in names
    )

    check = subprocess.run(
        [str(command), "check"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "tables: 0 load, 0 damaged" in check.stdout
    copy = subprocess.run(
        [str(command), "backup", "copy.sqlite3"], cwd=elsewhere, env=env, capture_output=True
    )
    assert copy.returncode == 0 and (elsewhere / "copy.sqlite3").exists()


def test_a_wheel_built_from_the_sdist_keeps_the_commit(tmp_path: Path) -> None:
    """The sdist carries the build record (no git in it): a wheel made from the sdist
    says the same version and commit, and carries the deploy files."""
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (sdist,) = tmp_path.glob("hollywood_gin-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (tree,) = (tmp_path / "unpacked").iterdir()
    wheel = build_wheel(tmp_path / "dist", source=tree)
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    record = zipfile.ZipFile(wheel).read("hollywood_gin/_build.py").decode()
    assert f"commit = {head!r}" in record
    assert f"version = {wheel.name.split('-')[1]!r}" in record
    assert "hollywood_gin/deploy/hollywood-gin-backup.timer" in zipfile.ZipFile(wheel).namelist()


def test_the_wheel_says_what_it_is_and_carries_its_lock(tmp_path: Path) -> None:
    """Its metadata: the SPDX licence, the Pythons it is tested on, who wrote it, the
    version set in the source; the server's dependencies by name (not `uvicorn[standard]`,
    which pulls watchfiles and PyYAML the server never imports); and `requirements.lock`
    inside, so the README's systemd set-up needs nothing but the wheel."""
    import hollywood_gin

    wheel = build_wheel(tmp_path / "dist")
    archive = zipfile.ZipFile(wheel)
    (meta_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    meta = archive.read(meta_name).decode()
    headers = [line for line in meta.split("\n\n", 1)[0].splitlines()]
    assert f"Version: {hollywood_gin.__version__}" in headers
    assert "License-Expression: MIT" in headers
    for python in ("3.11", "3.12", "3.13"):
        assert f"Classifier: Programming Language :: Python :: {python}" in headers
    assert "Author: The Hollywood Gin authors" in headers
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in archive.namelist())
    needs = [line.removeprefix("Requires-Dist: ") for line in headers if "Requires-Dist" in line]
    server = [n for n in needs if "extra ==" not in n]
    assert not any("[standard]" in n for n in server), server
    names = {n.split(";")[0].split(">")[0].split("=")[0].strip() for n in server}
    assert {"uvicorn", "uvloop", "httptools", "websockets"} <= names
    lock = archive.read("hollywood_gin/requirements.lock").decode()
    assert lock == (REPO / "requirements.lock").read_text()
    pinned = {line.split("==")[0] for line in lock.splitlines() if "==" in line}
    assert {"uvicorn", "uvloop", "httptools", "websockets", "asyncpg"} <= pinned
    assert not pinned & {"watchfiles", "pyyaml"}, pinned & {"watchfiles", "pyyaml"}


def test_the_readme_systemd_steps_need_only_the_wheel(tmp_path: Path) -> None:
    """The README's set-up opens the wheel with Python's zipfile and takes the lock and
    the units from it: every file its later lines name is there."""
    text = (REPO / "README.md").read_text()
    block = text.split("**systemd**, from the wheel:", 1)[1].split("```sh\n", 1)[1]
    lines = block.split("```", 1)[0].splitlines()
    [unpack] = [line for line in lines if "-m zipfile -e" in line]
    words = unpack.split("#")[0].split()
    where = words[-1]
    wheel = build_wheel(tmp_path / "dist")
    target = tmp_path / "unpacked"
    command = [sys.executable, *words[1:-2], str(wheel), str(target)]
    subprocess.run(command, check=True, timeout=60)
    named = [
        word
        for line in lines
        for word in line.split("#")[0].split()
        if word.startswith(where + "/")
    ]
    assert any(w.endswith("requirements.lock") for w in named), named
    assert any(w.endswith("hollywood-gin.service") for w in named), named
    for word in named:
        found = list(target.glob(word.removeprefix(where + "/")))
        assert found, f"{word} is not in the wheel"
