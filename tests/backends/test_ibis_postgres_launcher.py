"""The PostgreSQL server launcher (``initdb``, ``pg_ctl``, ``runuser`` as root) is test
tooling, ``tests/support/postgres.py``: the package neither holds nor exports it, and the
``ibis-postgres`` face runs only on a connection it is given (``use_connection``) or the URL
in ``RANKFRAME_POSTGRES_URL``, saying so when it has neither."""
# ruff: noqa: E402  (imports after the check of what the module needs)

from __future__ import annotations

import pytest

from tests.support import needs

pytestmark = needs.module_level("ibis")

import rankframe.ibis as rfi
from rankframe.errors import RankframeError
from rankframe.faces.ibis import POSTGRES_URL_ENV, IbisFace
from tests.support import REPO
from tests.support import postgres as launcher


def test_the_package_holds_no_server_launcher() -> None:
    for name in ("TemporaryPostgres", "temporary_postgres", "postgres_bin"):
        assert not hasattr(rfi, name), name
    starting = [path.relative_to(REPO).as_posix()
                for path in (REPO / "rankframe").rglob("*.py")
                if any(word in path.read_text(encoding="utf-8")
                       for word in ("runuser", "initdb", "pg_ctl"))]
    assert starting == []


def test_the_launcher_lives_in_the_test_support() -> None:
    assert callable(launcher.temporary_postgres)
    assert launcher.TemporaryPostgres().url.startswith("postgres://postgres@/postgres?host=")


def test_without_a_server_the_postgres_face_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(POSTGRES_URL_ENV, raising=False)
    face = IbisFace("postgres")
    reason = face.unavailable()
    assert reason is not None and "no PostgreSQL server" in reason and POSTGRES_URL_ENV in reason
    with pytest.raises(RankframeError, match="ibis-postgres face: no PostgreSQL server"):
        face.connection()


def test_a_given_connection_or_url_makes_it_available(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(POSTGRES_URL_ENV, raising=False)
    face = IbisFace("postgres")
    face.use_connection(object())
    assert face.unavailable() is None
    face.use_connection(None)
    monkeypatch.setenv(POSTGRES_URL_ENV, "postgres://nobody@/nowhere")
    assert face.unavailable() is None
