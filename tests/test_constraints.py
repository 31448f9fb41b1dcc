"""`constraints.txt` pins every dependency, within what pyproject.toml asks, and every
install the project documents or runs uses it."""

from __future__ import annotations

import tomllib

import grimp
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO


def pins() -> dict[str, str]:
    out = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            out[canonicalize_name(name)] = version
    return out


def test_every_dependency_is_pinned_within_its_range() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    specs = [
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["dev"],
        *project["project"]["optional-dependencies"]["bots"],
        *project["build-system"]["requires"],
    ]
    pinned = pins()
    for spec in specs:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} has no pin: python scripts/make_constraints.py"
        assert requirement.specifier.contains(pinned[name], prereleases=True), spec


def test_ci_the_readme_and_docker_install_with_the_constraints() -> None:
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    command = "pip install -c constraints.txt -e '.[dev,bots]' && python -m pytest"
    assert command in readme and command in ci
    assert "constraints.txt" in (REPO / "Dockerfile").read_text()
    assert "python3 -m venv" in readme  # PEP 668 systems refuse a global install


def locked() -> dict[str, tuple[str, int]]:
    """requirements.lock: name -> (version, number of hashes)."""
    out: dict[str, tuple[str, int]] = {}
    text = (REPO / "requirements.lock").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if line and not line.startswith(("#", " ")):
            spec = line.split(";")[0].split()[0]
            name, version = spec.split("==")
            out[canonicalize_name(name)] = (version, line.count("--hash=sha256:"))
    return out


def test_the_lock_hashes_the_servers_dependencies_at_the_pinned_versions() -> None:
    """`pip install --require-hashes -r requirements.lock` (Dockerfile, README): every
    runtime dependency and the postgres extra, at constraints.txt's versions, hashed."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    lock, pinned = locked(), pins()
    for spec in [
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["postgres"],
    ]:
        assert canonicalize_name(Requirement(spec).name) in lock, spec
    for name, (version, hashes) in lock.items():
        assert hashes >= 1, name
        if name in pinned:
            assert version == pinned[name], (name, version, pinned[name])
    # No hash in constraints.txt: one would put every `pip install -c` in hash mode.
    assert "--hash" not in (REPO / "constraints.txt").read_text()


def test_the_server_posts_with_one_http_client_and_needs_no_other() -> None:
    """Web Push posts with aiohttp in the worker and on the loop alike (`push.post`):
    httpx is the tests' and benchmarks' client, not a dependency of the server."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    server = {canonicalize_name(Requirement(s).name) for s in project["project"]["dependencies"]}
    assert "aiohttp" in server and "httpx" not in server
    assert "httpx" in {
        canonicalize_name(Requirement(s).name)
        for s in project["project"]["optional-dependencies"]["dev"]
    }
    assert "httpx" not in locked()
    graph = grimp.build_graph("hollywood_gin", include_external_packages=True)
    assert graph.find_modules_that_directly_import("aiohttp")
    # An external package none of the package imports is not in the graph at all.
    assert "httpx" not in graph.modules
