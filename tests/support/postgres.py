"""A PostgreSQL server for the ``ibis-postgres`` face, started once per test session.

``initdb`` and ``pg_ctl`` put a server in a temporary directory, listening only on a Unix
socket there (no TCP port); as root it runs as the ``postgres`` user, who owns the
directory. It is stopped and removed at the end of the session. With
``RANKFRAME_POSTGRES_URL`` set, that server is used instead and nothing is started.
Without the server programs (``apt-get install postgresql``) the postgres face is skipped
with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """The Ibis connection the ``ibis-postgres`` face evaluates with for the session."""
    pytest.importorskip("ibis", reason="Ibis is not installed (rankframe[ibis])")
    from rankframe import faces
    from rankframe.faces.ibis import POSTGRES_URL_ENV, IbisFace, TemporaryPostgres, postgres_bin

    face = faces.get("ibis-postgres")
    assert isinstance(face, IbisFace)
    if os.environ.get(POSTGRES_URL_ENV):
        yield face.connection()
        return
    if postgres_bin() is None:
        pytest.skip("no PostgreSQL server programs (initdb); apt-get install postgresql")
    server = TemporaryPostgres()
    try:
        connection = server.start()
    except (RuntimeError, OSError, KeyError) as exc:  # KeyError: no postgres user
        pytest.skip(f"a temporary PostgreSQL server did not start: {exc}")
    face.use_connection(connection)
    try:
        yield connection
    finally:
        face.use_connection(None)
        server.stop()
