"""The Dockerfile, the compose file, the systemd units and the backup units, read
against the code: every path, port, setting and command they name exists.

No container engine runs here; these files are kept simple and checked by reading.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from hollywood_gin.cli import parser
from hollywood_gin.config import ENV_PREFIX, Settings
from tests.conftest import REPO

DOCKERFILE = (REPO / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((REPO / "deploy" / "docker-compose.yml").read_text())
UNIT = (REPO / "deploy" / "hollywood-gin.service").read_text()
BACKUP = (REPO / "deploy" / "hollywood-gin-backup.service").read_text()
WORKERS = (REPO / "deploy" / "hollywood-gin@.service").read_text()
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SETTINGS = {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}
DEFAULTS = Settings.from_env({})


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def docker_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in instructions():
        if word == "ENV":
            env.update(dict(re.findall(r"(\w+)=(\S+)", rest)))
    return env


def test_every_setting_named_anywhere_exists() -> None:
    named = set()
    for text in (DOCKERFILE, UNIT, BACKUP, WORKERS, yaml.safe_dump(COMPOSE)):
        named |= set(re.findall(rf"\b{ENV_PREFIX}[A-Z_]+\b", text))
    assert named and named <= SETTINGS, named - SETTINGS


def test_the_dockerfile_copies_what_exists_and_installs_no_editable() -> None:
    copies = [rest for word, rest in instructions() if word == "COPY" and "--from" not in rest]
    for rest in copies:
        *sources, _target = rest.split()
        for source in sources:
            assert (REPO / source).exists(), source
    assert "pip install -e" not in DOCKERFILE and "--editable" not in DOCKERFILE
    # The dependencies are installed before any code reaches the final image.
    final = DOCKERFILE.split("\nFROM ")[-1]
    install = "pip install --require-hashes --no-deps -r /tmp/deps/requirements.lock"
    assert final.index(install) < final.index("COPY --from=wheel")
    assert "COPY app" not in final


def test_the_base_image_is_pinned() -> None:
    (image,) = re.findall(r"ARG PYTHON_IMAGE=(\S+)", DOCKERFILE)
    name, _, tag = image.partition(":")
    assert name == "python" and re.fullmatch(r"3\.\d+\.\d+-slim-\w+", tag), image
    minimum = PYPROJECT["project"]["requires-python"].removeprefix(">=")
    assert tuple(map(int, tag.split("-")[0].split(".")[:2])) >= tuple(map(int, minimum.split(".")))


def test_ports_volume_and_data_file_agree() -> None:
    env = docker_env()
    port = env["HOLLYWOOD_GIN_PORT"]
    assert [rest for word, rest in instructions() if word == "EXPOSE"] == [port]
    healthcheck = next(rest for word, rest in instructions() if word == "HEALTHCHECK")
    assert "HOLLYWOOD_GIN_PORT" in healthcheck and "/healthz" in healthcheck
    data = Path(env["HOLLYWOOD_GIN_DATA_FILE"])
    (volume,) = [rest for word, rest in instructions() if word == "VOLUME"]
    assert f'"{data.parent}"' in volume
    service = COMPOSE["services"]["hollywood-gin"]
    assert service["restart"] in ("unless-stopped", "always")
    published = [str(p).rsplit(":", 1)[1] for p in service["ports"]]
    assert published == [service["environment"]["HOLLYWOOD_GIN_PORT"]] == [port]
    (mount,) = service["volumes"]
    named, target = mount.split(":")
    assert named in COMPOSE["volumes"] and target == str(data.parent)
    assert service["environment"]["HOLLYWOOD_GIN_DATA_FILE"] == str(data)
    assert (REPO / "deploy" / service["build"]["context"] / service["build"]["dockerfile"]).exists()
    assert "COMMIT" in service["build"]["args"] and "ARG COMMIT" in DOCKERFILE
    assert "HOLLYWOOD_GIN_COMMIT=${COMMIT}" in DOCKERFILE


def test_commands_named_are_the_console_script_and_its_commands() -> None:
    script = "hollywood-gin"
    assert script in PYPROJECT["project"]["scripts"]
    commands = set(parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    used = set(re.findall(rf"bin/{script} (\w+)", UNIT + BACKUP + WORKERS))
    used |= set(re.findall(r'"hollywood-gin", "(\w+)"', DOCKERFILE))
    used |= set(re.findall(rf"{script} (\w+) ", yaml.safe_dump(COMPOSE["services"]["backup"])))
    assert {"serve", "check", "backup"} <= used and used <= commands, used - commands


def test_the_unit_runs_from_a_virtualenv_with_its_data_writable() -> None:
    lines = dict(line.split("=", 1) for line in UNIT.splitlines() if "=" in line and line[0] != "#")
    assert lines["ExecStart"].endswith("/bin/hollywood-gin serve")
    data = Path(re.findall(r"HOLLYWOOD_GIN_DATA_FILE=(\S+)", UNIT)[0])
    assert str(data.parent) == lines["ReadWritePaths"] == lines["WorkingDirectory"]
    assert DEFAULTS.port == int(re.findall(r"HOLLYWOOD_GIN_PORT=(\d+)", UNIT)[0])
