"""Django's ORM (its ``auth`` models, over SQLite in a temp dir and the corpus's real PostgreSQL through psycopg 3).

Django re-raises every driver error as its own PEP 249 class of the same name (``django.db.utils.IntegrityError``,
``OperationalError``), raised ``from`` the driver's, so the SQLSTATE (or SQLite's result code) inside still
decides. Its own lookups raise a per-model ``DoesNotExist`` (``ObjectDoesNotExist``) and
``MultipleObjectsReturned``; ``get_object_or_404`` raises ``Http404``; a query inside an ``atomic`` block whose
statement failed raises ``TransactionManagementError`` (the tool's own mistake).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import django
import psycopg
import pytest
from django.conf import settings

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import PASSWORD, Postgres, postgres_server
from tests.classification.upstreams import HOST, closed_port
from tests.conftest import require


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres_server() as server:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE ROLE reader LOGIN PASSWORD 'corpus-pw'")
        yield server


@pytest.fixture(scope="module")
def django_dbs(pg: Postgres, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    sqlite_path = tmp_path_factory.mktemp("django") / "app.db"
    pg_settings: dict[str, Any] = {"ENGINE": "django.db.backends.postgresql", "NAME": "postgres", "USER": "postgres",
                                   "PASSWORD": PASSWORD, "HOST": HOST, "PORT": str(pg.port),
                                   "OPTIONS": {"connect_timeout": 5}}
    databases = {
        "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(sqlite_path), "OPTIONS": {"timeout": 0.05}},
        "pg": pg_settings,
        "pg_slow": {**pg_settings, "OPTIONS": {"connect_timeout": 5, "options": "-c statement_timeout=200"}},
        "pg_reader": {**pg_settings, "USER": "reader"},
        "pg_wrong_password": {**pg_settings, "PASSWORD": "not-it"},
        "pg_down": {**pg_settings, "PORT": str(closed_port())},
    }
    require(not settings.configured, "Django is already configured in this process")
    settings.configure(DATABASES=databases, INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth"],
                       USE_TZ=True, DEFAULT_AUTO_FIELD="django.db.models.AutoField")
    django.setup()
    from django.core.management import call_command

    for alias in ("default", "pg"):
        call_command("migrate", database=alias, verbosity=0, interactive=False)
    from django.contrib.auth.models import Group

    for alias in ("default", "pg"):
        Group.objects.using(alias).create(name="refunds")
        Group.objects.using(alias).create(name="refunds-eu")
    with psycopg.connect(pg.dsn(), autocommit=True) as conn:
        conn.execute("GRANT SELECT ON auth_group TO reader")
    yield sqlite_path
    from django.db import connections

    connections.close_all()


@pytest.mark.parametrize("alias", ["default", "pg"])
class TestBothDatabases:
    def test_duplicate_name(self, django_dbs: Path, alias: str) -> None:
        from django.contrib.auth.models import Group
        from django.db import IntegrityError

        exc = raised(lambda: Group.objects.using(alias).create(name="refunds"))
        assert isinstance(exc, IntegrityError)
        result = check(exc, C.INVALID_INPUT, False)
        if alias == "pg":
            assert result.upstream is not None and result.upstream.status == "23505"

    def test_no_such_row(self, django_dbs: Path, alias: str) -> None:
        from django.contrib.auth.models import Group

        exc = raised(lambda: Group.objects.using(alias).get(name="chargebacks"))
        assert isinstance(exc, Group.DoesNotExist)
        check(exc, C.NOT_FOUND, None)

    def test_get_object_or_404(self, django_dbs: Path, alias: str) -> None:
        from django.contrib.auth.models import Group
        from django.http import Http404
        from django.shortcuts import get_object_or_404

        exc = raised(lambda: get_object_or_404(Group.objects.using(alias), name="chargebacks"))
        assert isinstance(exc, Http404)
        check(exc, C.NOT_FOUND, None)

    def test_more_than_one_row(self, django_dbs: Path, alias: str) -> None:
        # get() whose filter matched two rows: the tool's query was not specific enough (its own bug).
        from django.contrib.auth.models import Group

        exc = raised(lambda: Group.objects.using(alias).get(name__startswith="refunds"))
        assert isinstance(exc, Group.MultipleObjectsReturned)
        check(exc, C.UNKNOWN, None)

    def test_query_in_a_broken_transaction(self, django_dbs: Path, alias: str) -> None:
        # The tool swallowed an IntegrityError inside atomic() and queried on: Django refuses, raising from the
        # error that broke the transaction (a duplicate the model can fix), which decides.
        from django.contrib.auth.models import Group
        from django.db import IntegrityError, transaction

        def run() -> None:
            with transaction.atomic(using=alias):
                try:
                    Group.objects.using(alias).create(name="refunds")
                except IntegrityError:
                    pass
                Group.objects.using(alias).count()

        exc = raised(run)
        assert type(exc).__name__ == "TransactionManagementError" and isinstance(exc.__cause__, IntegrityError)
        check(exc, C.INVALID_INPUT, False)


class TestPostgres:
    def test_connection_refused(self, django_dbs: Path) -> None:
        from django.contrib.auth.models import Group
        from django.db import OperationalError

        exc = raised(lambda: Group.objects.using("pg_down").count())
        assert isinstance(exc, OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_wrong_password(self, django_dbs: Path) -> None:
        from django.contrib.auth.models import Group
        from django.db import OperationalError

        exc = raised(lambda: Group.objects.using("pg_wrong_password").count())
        assert isinstance(exc, OperationalError)
        result = check(exc, C.PERMISSION_DENIED, False)
        assert result.upstream is not None and result.upstream.status == "28P01"

    def test_insufficient_privilege(self, django_dbs: Path) -> None:
        from django.contrib.auth.models import Group
        from django.db import ProgrammingError

        exc = raised(lambda: Group.objects.using("pg_reader").filter(name="refunds").delete())
        assert isinstance(exc, ProgrammingError)
        result = check(exc, C.PERMISSION_DENIED, False)
        assert result.upstream is not None and result.upstream.status == "42501"

    def test_statement_timeout(self, django_dbs: Path) -> None:
        from django.db import OperationalError, connections

        def run() -> None:
            with connections["pg_slow"].cursor() as cursor:
                cursor.execute("SELECT pg_sleep(5)")

        exc = raised(run)
        assert isinstance(exc, OperationalError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.status == "57014"

    def test_row_locked_nowait(self, django_dbs: Path, pg: Postgres) -> None:
        # select_for_update(nowait=True) on a row another transaction holds: refused at once (55P03), nothing done.
        from django.contrib.auth.models import Group
        from django.db import OperationalError, transaction

        holder = psycopg.connect(pg.dsn())
        holder.execute("SELECT * FROM auth_group WHERE name = 'refunds' FOR UPDATE")

        def run() -> None:
            with transaction.atomic(using="pg"):
                list(Group.objects.using("pg").select_for_update(nowait=True).filter(name="refunds"))

        try:
            exc = raised(run)
        finally:
            holder.rollback()
            holder.close()
        assert isinstance(exc, OperationalError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.status == "55P03"


def test_sqlite_locked(django_dbs: Path) -> None:
    from django.contrib.auth.models import Group
    from django.db import OperationalError

    holder = sqlite3.connect(django_dbs)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = raised(lambda: Group.objects.create(name="disputes"))
    finally:
        holder.rollback()
        holder.close()
    assert isinstance(exc, OperationalError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestTheToolsOwnMistakes:
    """Django's errors about the tool's own code and settings, named "DoesNotExist" like a missing row: a field the
    model class does not have, a database alias not in the settings. Neither is what the model asked for."""

    def test_field_not_on_the_model(self, django_dbs: Path) -> None:
        from django.contrib.auth.models import Group
        from django.core.exceptions import FieldDoesNotExist

        exc = raised(lambda: Group._meta.get_field("colour"))
        assert isinstance(exc, FieldDoesNotExist)
        check(exc, C.UNKNOWN, False)

    def test_database_alias_not_configured(self, django_dbs: Path) -> None:
        from django.contrib.auth.models import Group
        from django.utils.connection import ConnectionDoesNotExist

        exc = raised(lambda: Group.objects.using("analytics").count())
        assert isinstance(exc, ConnectionDoesNotExist)
        check(exc, C.UNKNOWN, False)

    def test_lookup_on_a_field_that_is_not_there(self, django_dbs: Path) -> None:
        from django.contrib.auth.models import Group
        from django.core.exceptions import FieldError

        exc = raised(lambda: Group.objects.filter(colour="blue").count())
        assert isinstance(exc, FieldError)
        check(exc, C.UNKNOWN, None)
