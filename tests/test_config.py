from pathlib import Path

import pytest

from app.config import Settings, SettingsError


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
