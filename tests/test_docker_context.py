"""The Docker image's wheel stage, run without Docker: its exact `RUN` command on exactly
the files its `COPY` lines take from the build context, the context filtered through
`.dockerignore` as Docker filters it. A file the wheel needs but the stage never copies
(or the context leaves out) fails here in seconds, as it fails `docker build`.

What is Docker's here: the context (every file under the repository not excluded by
`.dockerignore`: the last matching pattern decides, a pattern matching a folder
matches everything in it, `!` takes back), `COPY src... dest` relative to `WORKDIR`,
the stage's `ENV` and `ARG` values in the command's environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

from tests.conftest import REPO


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    out = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), " ".join(rest.split())))
    return out


def stages(text: str) -> dict[str, list[tuple[str, str]]]:
    """The Dockerfile's stages by name (`FROM … AS name`; unnamed ones by number)."""
    found: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for word, rest in instructions(text):
        if word == "FROM":
            name = rest.split()[-1] if " AS " in rest.upper() else str(len(found))
            current = found.setdefault(name, [])
        elif current is not None:
            current.append((word, rest))
    return found


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern (Go's filepath.Match plus `**`) as a regex of a whole path."""
    out = ""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            end = pattern.index("]", i)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out += "[" + ("^" + body[1:] if body.startswith("^") else body) + "]"
            i = end
        else:
            out += re.escape(c)
        i += 1
    return re.compile(out)


def ignore_rules(text: str) -> list[tuple[bool, re.Pattern[str], str]]:
    """(taken back, regex, the cleaned pattern) for each line of a .dockerignore."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        back = line.startswith("!")
        cleaned = os.path.normpath(line.removeprefix("!").strip()).lstrip("/")
        rules.append((back, pattern_regex(cleaned), cleaned))
    return rules


def excluded(path: str, rules: list[tuple[bool, re.Pattern[str], str]]) -> bool:
    """Docker's answer for one context path: the last pattern that matches the path or
    one of its parent folders decides."""
    parts = PurePosixPath(path).parts
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    out = False
    for back, regex, _ in rules:
        if any(regex.fullmatch(c) for c in candidates):
            out = not back
    return out


def context_files(root: Path, rules: list[tuple[bool, re.Pattern[str], str]]) -> set[str]:
    """Every file Docker sends from `root` (a folder that is out and that no `!`
    pattern reaches into is not walked)."""
    kept: set[str] = set()
    taken_back = [cleaned for back, _, cleaned in rules if back]
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root).as_posix()
        rel = "" if rel == "." else rel + "/"
        if rel == "":
            dirs[:] = [d for d in dirs if d != ".git"]  # never in a context worth having
        dirs[:] = [
            d
            for d in dirs
            if not excluded(rel + d, rules)
            or any(p.startswith(rel + d + "/") or "*" in p.split("/")[0] for p in taken_back)
        ]
        kept |= {rel + f for f in files if not excluded(rel + f, rules)}
    return kept


DOCKERFILE = (REPO / "Dockerfile").read_text()
RULES = ignore_rules((REPO / ".dockerignore").read_text())


def copy_plan(
    stage: list[tuple[str, str]], context: set[str]
) -> tuple[PurePosixPath, list[tuple[str, PurePosixPath]], list[str]]:
    """The stage's `WORKDIR` and context `COPY` lines: its working folder, each context
    file with where it lands in the image, and the sources that are not in the context."""
    workdir = PurePosixPath("/")
    copies: list[tuple[str, PurePosixPath]] = []
    missing = []
    for word, rest in stage:
        if word == "WORKDIR":
            workdir = workdir / rest
        elif word == "COPY" and "--from" not in rest:
            *sources, target = rest.split()
            dest = workdir / target
            for source in sources:
                source = source.rstrip("/")
                taken = sorted(f for f in context if f == source or f.startswith(source + "/"))
                if not taken:
                    missing.append(source)
                for name in taken:
                    if name == source:
                        into = dest / PurePosixPath(name).name if target.endswith("/") else dest
                    else:
                        into = dest / PurePosixPath(name).relative_to(source)
                    copies.append((name, into))
    return workdir, copies, missing


def stage_environment(stage: list[tuple[str, str]], args: dict[str, str]) -> dict[str, str]:
    """The stage's `ENV` values and its `ARG`s (defaults, or `args` as `--build-arg`)."""
    env: dict[str, str] = {}
    for word, rest in stage:
        if word == "ENV":
            env.update(dict(re.findall(r"(\w+)=(\S+)", rest)))
        elif word == "ARG":
            name, _, default = rest.partition("=")
            env[name] = args.get(name, default.strip('"'))
    return env


@pytest.fixture(scope="module")
def context() -> set[str]:
    return context_files(REPO, RULES)


def test_dockerignore_is_read_as_docker_reads_it() -> None:
    rules = ignore_rules("*\n!keep/\n**/__pycache__/\nkeep/secret.txt\n!README.md\n")
    assert not excluded("README.md", rules) and excluded("other.md", rules)
    assert not excluded("keep/a/b.py", rules) and excluded("keep/secret.txt", rules)
    assert excluded("keep/a/__pycache__/b.pyc", rules) and excluded(".venv/x", rules)


def test_every_copied_source_is_in_the_context(context: set[str]) -> None:
    """Every stage's `COPY` sources reach the builder (`COPY` of a missing one fails)."""
    for name, stage in stages(DOCKERFILE).items():
        _, _, missing = copy_plan(stage, context)
        assert not missing, f"stage {name}: COPY of {missing}, not in the build context"


def run_lines(stage: list[tuple[str, str]]) -> Iterator[str]:
    yield from (rest for word, rest in stage if word == "RUN")


def test_the_wheel_stage_builds_the_wheel_from_what_it_copies(
    tmp_path: Path, context: set[str]
) -> None:
    """The stage's RUN, verbatim but for its folders, on the files its COPY lines take:
    the wheel it makes carries the deploy files, the pages and the version and commit
    passed as build arguments."""
    stage = stages(DOCKERFILE)["wheel"]
    root = tmp_path / "image"
    workdir, copies, missing = copy_plan(stage, context)
    assert not missing
    for name, into in copies:
        (root / str(into).lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / str(into).lstrip("/"))
    src = root / str(workdir).lstrip("/")
    (command,) = run_lines(stage)
    command = command.replace("/wheels", str(root / "wheels")).replace("/src/", f"{src}/")
    import hollywood_gin

    version = hollywood_gin.__version__  # the source's: VERSION only labels the image

    def build(args: dict[str, str]) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, **stage_environment(stage, args)}
        # The image's `pip` is its Python's: here this interpreter's.
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
        env.pop("PYTHONPATH", None)
        return subprocess.run(
            ["sh", "-c", command], cwd=src, env=env, capture_output=True, text=True, timeout=300
        )

    # A label that is not the source's version stops the build.
    wrong = build({"VERSION": "9.8.7", "COMMIT": "abc1234"})
    assert wrong.returncode != 0 and "VERSION=9.8.7 is not this source's version" in wrong.stderr
    for old in (root / "wheels").glob("*.whl"):
        old.unlink()
    done = build({"VERSION": version, "COMMIT": "abc1234"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = (root / "wheels").glob("hollywood_gin-*.whl")
    assert wheel.name.startswith(f"hollywood_gin-{version}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "hollywood_gin/deploy/hollywood-gin.service",
        "hollywood_gin/deploy/Caddyfile",
        "hollywood_gin/templates/table.html",
        "hollywood_gin/static/js/table.js",
    } <= names
    record = zipfile.ZipFile(wheel).read("hollywood_gin/_build.py").decode()
    assert f"version = {version!r}" in record and "commit = 'abc1234'" in record


def test_every_documented_build_takes_its_version_from_the_install() -> None:
    """One command for the image's version in every documented build, and it runs where
    the README's set-up leaves a host: the `hollywood-gin` command, no dev extra (the
    build backend, hatchling, is not needed to say the version)."""
    places = [REPO / "README.md", REPO / "Dockerfile", *sorted((REPO / "docs").glob("*.md"))]
    places += sorted((REPO / "deploy").glob("*.yml"))
    found = {
        (path.name, command)
        for path in places
        for command in re.findall(r"VERSION=(\$\([^)]*\))", path.read_text())
    }
    assert {name for name, _ in found} >= {
        "README.md",
        "Dockerfile",
        "docker-compose.yml",
        "compose.scale-out.yml",
        "scale-out.md",
    }
    (command,) = {command for _, command in found}
    assert "hatchling" not in command and command.startswith("$(hollywood-gin --version")
    script = shutil.which("hollywood-gin")
    assert script is not None, "the editable install's console script is not on PATH"
    said = subprocess.run(
        ["sh", "-c", f"echo {command}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    import hollywood_gin

    assert said == hollywood_gin.__version__
