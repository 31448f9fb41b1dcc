import os
from pathlib import Path

import pytest

from hollywood_gin.config import Settings, SettingsError
from tests.conftest import run_gin


def test_defaults() -> None:
    s = Settings.from_env({})
    assert s.host == "127.0.0.1"
    assert s.port == 8000
    assert s.data_file == Path("data/tables.sqlite3")
    assert s.public_url is None
    assert s.allowed_origins == []
    assert s.log_level == "info"
    assert s.table_expiry_days == 30


def test_values_from_environment() -> None:
    s = Settings.from_env(
        {
            "HOLLYWOOD_GIN_PORT": "9123",
            "HOLLYWOOD_GIN_ALLOWED_ORIGINS": "https://a.example, https://b.example",
            "HOLLYWOOD_GIN_PUBLIC_URL": "https://gin.example.org/",
            "HOLLYWOOD_GIN_LOG_LEVEL": "debug",
            "UNRELATED": "x",
        }
    )
    assert s.port == 9123
    assert s.allowed_origins == ["https://a.example", "https://b.example"]
    assert s.public_url == "https://gin.example.org"
    assert s.log_level == "debug"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HOLLYWOOD_GIN_PORT", "eighty"),
        ("HOLLYWOOD_GIN_PORT", "70000"),
        ("HOLLYWOOD_GIN_LOG_LEVEL", "loud"),
        ("HOLLYWOOD_GIN_PUBLIC_URL", "gin.example.org"),
        ("HOLLYWOOD_GIN_TABLE_EXPIRY_DAYS", "-1"),
    ],
)
def test_bad_value_names_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_env({name: value})
    assert name in str(info.value)


@pytest.mark.parametrize("value", ["10.0.0.1, proxy.local", "10.0.0.0/33", "127.0.0.1;10.0.0.2"])
def test_a_malformed_trusted_proxy_fails_start_up(value: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_env({"HOLLYWOOD_GIN_TRUSTED_PROXIES": value})
    assert "HOLLYWOOD_GIN_TRUSTED_PROXIES" in str(info.value)


def test_trusted_proxies_take_addresses_and_networks() -> None:
    s = Settings.from_env({"HOLLYWOOD_GIN_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8, ::1"})
    assert s.trusted_proxies == ["127.0.0.1", "10.0.0.0/8", "::1"]


def test_a_dotenv_file_is_read_and_the_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HOLLYWOOD_GIN_PORT", "HOLLYWOOD_GIN_PUBLIC_URL", "HOLLYWOOD_GIN_LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        "# settings of this host\n"
        "HOLLYWOOD_GIN_PORT=9001\n"
        "HOLLYWOOD_GIN_PUBLIC_URL=https://gin.example.org\n"
        "HOLLYWOOD_GIN_LOG_FORMAT=json\n"
    )
    monkeypatch.setenv("HOLLYWOOD_GIN_LOG_FORMAT", "text")
    s = Settings.from_env()
    assert s.port == 9001 and s.public_url == "https://gin.example.org"
    assert s.log_format == "text"
    (tmp_path / ".env").write_text("HOLLYWOOD_GIN_TRUSTED_PROXIES=10.0.0.1,proxy\n")
    with pytest.raises(SettingsError, match="HOLLYWOOD_GIN_TRUSTED_PROXIES"):
        Settings.from_env()


def test_the_server_refuses_to_start_with_a_malformed_proxy_list(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOLLYWOOD_GIN_TRUSTED_PROXIES": "10.0.0.1,not-an-address",
        "HOLLYWOOD_GIN_DATA_FILE": str(tmp_path / "t.sqlite3"),
    }
    done = run_gin(env=env)
    assert done.returncode == 2
    assert "HOLLYWOOD_GIN_TRUSTED_PROXIES" in done.stderr and "not-an-address" in done.stderr
