"""Settings: discovery order, validation messages, environment overrides, init."""

from pathlib import Path

import pytest

from nonseq.config import DEFAULT_CATEGORIES, Settings, env_overrides, load_settings, render_toml
from nonseq.errors import ConfigError

REPO = Path(__file__).resolve().parent.parent


def test_defaults_apply_without_a_file(isolated: Path) -> None:
    settings = load_settings()
    assert settings.source is None
    assert settings.categories.names == DEFAULT_CATEGORIES
    assert len(DEFAULT_CATEGORIES) == 12
    assert settings.data_dir == isolated / ".nonseq"


def test_discovery_order(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (isolated / "config.toml").write_text('[gate]\nmin_chunks = 3\n')
    other = isolated / "other.toml"
    other.write_text('[gate]\nmin_chunks = 4\n')
    explicit = isolated / "explicit.toml"
    explicit.write_text('[gate]\nmin_chunks = 6\n')
    assert load_settings().gate.min_chunks == 3
    monkeypatch.setenv("NONSEQ_CONFIG", str(other))
    assert load_settings().gate.min_chunks == 4
    assert load_settings(explicit).gate.min_chunks == 6


def test_paths_resolve_from_the_config_folder(isolated: Path) -> None:
    sub = isolated / "proj"
    sub.mkdir()
    (sub / "config.toml").write_text('[paths]\ndata_dir = "state"\n')
    settings = load_settings(sub / "config.toml")
    assert settings.data_dir == sub / "state"


@pytest.mark.parametrize(("toml", "needle"), [
    ('[fetch]\ntimeout = -1\n', "fetch.timeout"),
    ('[fetch]\ntimout = 3\n', "unknown key"),
    ('[nosuch]\na = 1\n', "unknown section"),
    ('[llm]\nbackend = "gpt"\n', "llm.backend"),
    ('[categories]\nnames = []\n', "categories.names"),
    ('[gate\n', "not valid TOML"),
])
def test_bad_values_give_one_line_naming_the_key(isolated: Path, toml: str, needle: str) -> None:
    path = isolated / "config.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_settings(path)
    message = str(err.value)
    assert needle in message
    assert "\n" not in message


def test_environment_overrides_single_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NONSEQ_SEARXNG__URL", "http://127.0.0.1:9999")
    monkeypatch.setenv("NONSEQ_FETCH__ALLOW_PRIVATE", "true")
    monkeypatch.setenv("NONSEQ_FETCH__ALLOW_HOSTS", '["127.0.0.1"]')
    settings = load_settings()
    assert settings.searxng.url == "http://127.0.0.1:9999"
    assert settings.fetch.allow_private is True
    assert settings.fetch.allow_hosts == ["127.0.0.1"]


def test_unknown_env_section_is_an_error() -> None:
    with pytest.raises(ConfigError, match="unknown section"):
        env_overrides({"NONSEQ_BOGUS__X": "1"})
    assert env_overrides({"NONSEQ_CONFIG": "x", "OTHER": "y"}) == {}


def test_rendered_config_parses_back_to_the_defaults(no_env: Path) -> None:
    path = no_env / "config.toml"
    path.write_text(render_toml())
    loaded = load_settings(path)
    assert loaded.model_dump() == Settings().model_dump()


def test_repo_config_toml_is_the_rendered_default() -> None:
    assert (REPO / "config.toml").read_text() == render_toml()


def test_init_writes_a_commented_config_and_refuses_to_overwrite(cli, isolated: Path) -> None:
    cli("init")
    text = (isolated / "config.toml").read_text()
    assert "[retrieval]" in text and "# " in text
    result = cli("init", code=2)
    assert "already exists" in result.stderr
    cli("init", "--force")


def test_config_show_and_path(cli, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "built-in defaults" in cli("config", "path").stdout
    monkeypatch.setenv("NONSEQ_LLM__API_KEY", "secret")
    shown = cli("config", "show", "--json").stdout
    assert '"api_key": "***"' in shown and "secret" not in shown
    (isolated / "config.toml").write_text('[gate]\nmin_chunks = 9\n')
    assert "min_chunks = 9" in cli("config", "show").stdout
    assert str(isolated / "config.toml") in cli("config", "path").stdout


def test_bad_config_is_one_line_and_exit_2(cli, isolated: Path) -> None:
    (isolated / "config.toml").write_text('[retrieval]\nprerank_top = "many"\n')
    result = cli("queue", "list", code=2)
    assert result.stderr.count("\n") == 1
    assert "retrieval.prerank_top" in result.stderr
