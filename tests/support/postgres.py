"""A throwaway PostgreSQL server for the ``ibis-postgres`` face, started once per test
session (and by the PostgreSQL example and benchmark when given no server).

``initdb`` and ``pg_ctl`` put a server in a temporary directory, listening only on a Unix
socket there (no TCP port); as root it runs as the ``postgres`` user (``runuser``), who
owns the directory. It is stopped and removed at the end of the session. With
``RANKFRAME_POSTGRES_URL`` set, that server is used instead and nothing is started.
Without the server programs (``apt-get install postgresql``) the postgres face is skipped
with the reason (under ``CI``, fails). This is test tooling: the ``rankframe`` package
neither contains nor exports it.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests.support import needs


def postgres_bin() -> Path | None:
    """The directory of PostgreSQL's server programs (``initdb``, ``pg_ctl``), or None."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(Path(p).parent.parent.name)
                      if Path(p).parent.parent.name.isdigit() else 0)
    return Path(versions[-1]).parent if versions else None


class TemporaryPostgres:
    """A PostgreSQL server in a temporary directory, listening only on a Unix socket there
    (no TCP), started with ``initdb`` and ``pg_ctl`` and removed by :meth:`stop`. As root
    the server runs as the ``postgres`` user (``runuser``), which owns the directory."""

    def __init__(self, bin_dir: Path | None = None) -> None:
        self.bin_dir = bin_dir or postgres_bin()
        self.directory: Path | None = None
        self.connection: Any = None

    def _as_server_user(self, command: list[str]) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--", *command]
        return command

    def _run(self, *command: str) -> None:
        assert self.bin_dir is not None
        args = self._as_server_user([str(self.bin_dir / command[0]), *command[1:]])
        done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed ({done.returncode}): "
                               f"{(done.stderr or done.stdout).strip()[-2000:]}")

    @property
    def url(self) -> str:
        """A URL for ``ibis.connect`` (and psql) through the socket."""
        return f"postgres://postgres@/postgres?host={self.directory}"

    def start(self) -> Any:
        """Start the server; return an Ibis PostgreSQL connection to it."""
        import ibis

        if self.bin_dir is None:
            raise RuntimeError("PostgreSQL's initdb was not found (apt-get install postgresql)")
        self.directory = Path(tempfile.mkdtemp(prefix="rankframe-pg-"))
        try:
            if os.geteuid() == 0:
                user = pwd.getpwnam("postgres")
                os.chown(self.directory, user.pw_uid, user.pw_gid)
            data = self.directory / "data"
            self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust",
                      "--encoding=UTF8", "--no-locale", "--no-sync")
            options = (f"-k {self.directory} -c listen_addresses='' -c fsync=off "
                       "-c synchronous_commit=off -c full_page_writes=off")
            self._run("pg_ctl", "-D", str(data), "-o", options, "-l",
                      str(self.directory / "server.log"), "-w", "-s", "start")
            self.connection = ibis.postgres.connect(host=str(self.directory), user="postgres",
                                                    database="postgres")
        except BaseException:
            self.stop()
            raise
        return self.connection

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its directory; idempotent."""
        if self.directory is None:
            return
        if self.connection is not None:
            with suppress(Exception):  # the server may be gone already
                self.connection.disconnect()
            self.connection = None
        data = self.directory / "data"
        if (data / "postmaster.pid").exists():
            with suppress(RuntimeError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "-s", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory = None


@contextmanager
def temporary_postgres() -> Iterator[TemporaryPostgres]:
    """A :class:`TemporaryPostgres`, started for the block and removed after it."""
    server = TemporaryPostgres()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _skip(reason: str) -> None:
    """Skip the tests that need the server; under CI (which runs every selected face), fail."""
    if os.environ.get("CI"):
        pytest.fail(reason + " (CI runs every selected face)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """The Ibis connection the ``ibis-postgres`` face evaluates with for the session."""
    needs.require("ibis")
    from rankframe import faces
    from rankframe.faces.ibis import POSTGRES_URL_ENV, IbisFace

    face = faces.get("ibis-postgres")
    assert isinstance(face, IbisFace)
    if os.environ.get(POSTGRES_URL_ENV):
        yield face.connection()
        return
    if postgres_bin() is None:
        _skip("no PostgreSQL server programs (initdb); apt-get install postgresql")
    server = TemporaryPostgres()
    try:
        connection = server.start()
    except (RuntimeError, OSError, KeyError) as exc:  # KeyError: no postgres user
        _skip(f"a temporary PostgreSQL server did not start: {exc}")
    face.use_connection(connection)
    try:
        yield connection
    finally:
        face.use_connection(None)
        server.stop()
