"""``pitch serve --config``: every key optional, every mistake one line naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitch_referee.errors import PitchError
from pitch_web.settings import ServeSettings


def _load(tmp_path: Path, text: str) -> ServeSettings:
    path = tmp_path / "arena.toml"
    path.write_text(text)
    return ServeSettings.load(path)


def test_a_settings_file_sets_the_server_the_scheduler_and_the_upload_limits(tmp_path):
    settings = _load(
        tmp_path,
        "[server]\nport = 8123\n[scheduler]\nworkers = 1\ninterval_s = 2\n"
        "quartets_per_step = 2\nrules = { hand_cap = 3 }\n[uploads]\nmax_entries = 10\n",
    )
    assert settings.server.port == 8123 and settings.server.host == "127.0.0.1"
    scheduler = settings.scheduler.settings()
    assert scheduler.interval_s == 2 and scheduler.rules["hand_cap"] == 3
    assert scheduler.pairing.quartets == 2
    assert settings.scheduler.workers == 1 and settings.uploads.max_entries == 10


def test_the_server_table_sets_the_timeouts_and_the_limits_table_the_quotas(tmp_path):
    settings = _load(
        tmp_path,
        "[server]\nheader_timeout_s = 3\nbody_timeout_s = 30.5\nkeep_alive_s = 2\n"
        "max_connections = 50\nmax_header_bytes = 8192\n"
        "[limits]\nuploads_per_hour = 5\nchecks = 1\nversions = 7\ndisk_bytes = 1000\n"
        "checks_at_once = 3\nchecks_queued = 9\n",
    )
    server = settings.server
    assert (server.header_timeout_s, server.body_timeout_s, server.keep_alive_s) == (3, 30.5, 2)
    assert (server.max_connections, server.max_header_bytes) == (50, 8192)
    limits = settings.limits
    assert (limits.uploads_per_hour, limits.checks, limits.versions) == (5, 1, 7)
    assert (limits.disk_bytes, limits.checks_at_once, limits.checks_queued) == (1000, 3, 9)
    assert limits.per_author().disk_bytes == 1000


def test_no_file_is_the_defaults():
    assert ServeSettings.load(None) == ServeSettings()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[server]\nport = "x"', "[server] port must be int, not 'x'"),
        ("[server]\nport = 70000", "70000 is not a port"),
        ("[nope]\n", "unknown table [nope]"),
        ("[scheduler]\nenabled = 1", "[scheduler] enabled must be bool"),
        ("[scheduler]\nspeed = 1", "[scheduler] has no setting 'speed'"),
        ("[scheduler]\nworkers = 0", "workers must be at least 1"),
        ("[scheduler]\ngames_per_match = 0", "at least one game"),
        ("[scheduler]\nquartets_per_step = -1", "quartets per step cannot be negative"),
        ("[scheduler]\nrules = { bogus = 1 }", "unknown rule option 'bogus'"),
        ("[uploads]\nmax_entries = true", "[uploads] max_entries must be int, not True"),
        ("server = 3", "server must be a table"),
        ("[server]\nheader_timeout_s = 0", "header_timeout_s must be more than 0"),
        ('[server]\nbody_timeout_s = "1m"', "[server] body_timeout_s must be float or int"),
        ("[limits]\nversions = 0", "[limits]: versions must be at least 1"),
        ("[limits]\nchecks_at_once = 0", "checks_at_once must be at least 1"),
        ("[limits]\nspeed = 1", "[limits] has no setting 'speed'"),
        ("x = ", "not valid TOML"),
    ],
)
def test_a_mistake_in_the_file_is_one_line_naming_it(tmp_path, text, message):
    with pytest.raises(PitchError) as refusal:
        _load(tmp_path, text)
    assert message in str(refusal.value)
    assert "\n" not in str(refusal.value)


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(PitchError, match="cannot read the settings file"):
        ServeSettings.load(tmp_path / "missing.toml")


def test_the_documented_example_settings_file_loads():
    example = Path(__file__).resolve().parents[2] / "deploy" / "arena.toml"
    settings = ServeSettings.load(example)
    assert settings.scheduler.settings().rules["hand_cap"] == 30


def test_the_retention_table_sets_how_long_and_how_much_of_the_logs_the_server_keeps(tmp_path):
    settings = _load(
        tmp_path,
        "[retention]\nmatch_log_days = 14\nrefused_log_days = 7.5\nmax_log_bytes = 1000000\n"
        "sweep_minutes = 10\n",
    )
    retention = settings.retention
    assert (retention.match_log_days, retention.refused_log_days) == (14, 7.5)
    assert (retention.max_log_bytes, retention.sweep_minutes) == (1_000_000, 10)
    assert ServeSettings.load(None).retention.match_log_days == 90
    for text, message in [
        ("[retention]\nkeep = 1", "[retention] has no setting 'keep'"),
        ("[retention]\nmax_log_bytes = -1", "max_log_bytes must not be negative"),
        ('[retention]\nmatch_log_days = "long"', "[retention] match_log_days must be float"),
    ]:
        with pytest.raises(PitchError, match=message.replace("[", r"\[").replace("]", r"\]")):
            _load(tmp_path, text)


def test_the_service_releases_requests_on_a_25_ms_timing_grid_unless_the_file_says_otherwise(
    tmp_path,
):
    assert ServeSettings.load(None).scheduler.settings().timing_grid_ms == 25
    off = _load(tmp_path, "[scheduler]\ntiming_grid_ms = 0\n")
    assert off.scheduler.settings().timing_grid_ms == 0
    example = Path(__file__).resolve().parents[2] / "deploy" / "arena.toml"
    assert ServeSettings.load(example).scheduler.settings().timing_grid_ms == 25
    with pytest.raises(PitchError, match=r"\[scheduler\]: timing_grid_ms must be 0 \(none\)"):
        _load(tmp_path, "[scheduler]\ntiming_grid_ms = -5\n")
