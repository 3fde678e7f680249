"""The operator registry on SQLite and PostgreSQL: every field checked and named when
refused, every change in the audit log, and no secret ever in it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, select

from feltlab.server.errors import Conflict, NotFound, Refused
from feltlab.server.migrate import upgrade
from feltlab.server.models import AuditRecord
from feltlab.server.services.audit import verify_database
from feltlab.server.services.database import (
    make_engine,
    normalise_url,
    session_factory,
    transaction,
)
from feltlab.server.services.operators import (
    InvalidField,
    add_operator,
    credentials,
    disable_operator,
    enable_operator,
    get_operator,
    list_operators,
    rotate_secret,
)
from feltlab.server.signatures import sign, verify

SECRET = "s3cret-shared-with-the-casino-0001"
NEW = "the-next-secret-for-the-casino-0002"
NEWER = "and-the-one-after-that-for-casino-3"
URL = "https://wallet.casino.example/feltlab"


def migrated(url: str) -> Iterator[Engine]:
    made = make_engine(normalise_url(url))
    upgrade(made)
    yield made
    made.dispose()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    yield from migrated(database_url)


@pytest.fixture(scope="module")
def sqlite_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The checks run before the database is touched: one SQLite database shows it (and
    that every refusal leaves it empty)."""
    yield from migrated(f"sqlite:///{tmp_path_factory.mktemp('operators') / 'db.sqlite3'}")


def audit_lines(engine: Engine) -> list[tuple[str, str, dict[str, object]]]:
    with transaction(session_factory(engine)) as session:
        return [(line.actor, line.kind, json.loads(line.detail)) for line in
                session.scalars(select(AuditRecord).order_by(AuditRecord.id))]


def add(engine: Engine, operator_id: str = "casino", **changes: object) -> None:
    fields: dict[str, object] = {"wallet_url": URL, "currencies": {"EUR": 1},
                                 "secret": SECRET} | changes
    add_operator(engine, "admin", operator_id, **fields)  # type: ignore[arg-type]


def test_add_get_and_list(engine: Engine) -> None:
    view = add_operator(engine, "admin", "casino", URL, {"USD": 1, "EUR": 100}, SECRET,
                        timeout_seconds=1.5,
                        frame_origins=["https://casino.example", "http://localhost:8080",
                                       "https://casino.example"])
    assert view.currencies == {"EUR": 100, "USD": 1}
    assert view.frame_origins == ("https://casino.example", "http://localhost:8080")
    assert (view.timeout_seconds, view.disabled, view.rotating) == (1.5, False, False)
    assert view.created_at.tzinfo is not None
    add(engine, "another")
    assert get_operator(engine, "casino") == view
    assert [found.id for found in list_operators(engine)] == ["another", "casino"]
    assert get_operator(engine, "another").timeout_seconds == 3.0
    assert SECRET not in repr(view) and SECRET not in json.dumps(view.as_json())


def test_a_duplicate_id_is_refused(engine: Engine) -> None:
    add(engine)
    with pytest.raises(Conflict, match="'casino' already exists"):
        add(engine, wallet_url="https://other.example")
    assert len(list_operators(engine)) == 1


@pytest.mark.parametrize(("changes", "field"), [
    ({"operator_id": "Casino"}, "id"),
    ({"operator_id": ""}, "id"),
    ({"operator_id": "x" * 33}, "id"),
    ({"operator_id": "casino one"}, "id"),
    ({"wallet_url": "ftp://wallet.example"}, "wallet_url"),
    ({"wallet_url": "wallet.example/api"}, "wallet_url"),
    ({"wallet_url": "https://wallet.example/api/"}, "wallet_url"),
    ({"wallet_url": "https://"}, "wallet_url"),
    ({"wallet_url": "https://user:pw@wallet.example"}, "wallet_url"),
    ({"wallet_url": "https://wallet.example/api?x=1"}, "wallet_url"),
    ({"wallet_url": "https://wallet.example/api#top"}, "wallet_url"),
    ({"wallet_url": "https://wallet.example:99999"}, "wallet_url"),
    ({"wallet_url": "https://wallet.example/a b"}, "wallet_url"),
    ({"wallet_url": "https://wallet.example/\n"}, "wallet_url"),
    ({"currencies": {}}, "currencies"),
    ({"currencies": {"eur": 1}}, "currencies"),
    ({"currencies": {"EURO": 1}}, "currencies"),
    ({"currencies": {"EUR": 0}}, "currencies"),
    ({"currencies": {"EUR": 1.5}}, "currencies"),
    ({"currencies": {"EUR": True}}, "currencies"),
    ({"frame_origins": ["casino.example"]}, "frame_origins"),
    ({"frame_origins": ["https://casino.example/"]}, "frame_origins"),
    ({"frame_origins": ["https://casino.example/play"]}, "frame_origins"),
    ({"frame_origins": ["https://Casino.example"]}, "frame_origins"),
    ({"frame_origins": ["javascript:alert(1)"]}, "frame_origins"),
    ({"timeout_seconds": 0.01}, "timeout_seconds"),
    ({"timeout_seconds": 61}, "timeout_seconds"),
    ({"timeout_seconds": float("nan")}, "timeout_seconds"),
    ({"secret": "too-short"}, "secret"),
    ({"secret": "x" * 31}, "secret"),
    ({"secret": "x" * 257}, "secret"),
    ({"secret": SECRET + "\nsecond line"}, "secret"),
    ({"secret": " " + SECRET}, "secret"),
])
def test_a_bad_field_is_refused_by_name(sqlite_engine: Engine, changes: dict[str, object],
                                        field: str) -> None:
    engine = sqlite_engine
    changes = dict(changes)  # the parameters are shared by both databases' runs
    operator_id = str(changes.pop("operator_id", "casino"))
    with pytest.raises(InvalidField) as refused:
        add(engine, operator_id, **changes)
    assert refused.value.field == field
    assert refused.value.detail.startswith(f"{field}: ")
    assert isinstance(refused.value, Refused)
    if field == "secret":
        assert SECRET not in refused.value.detail
    assert list_operators(engine) == [] and audit_lines(engine) == []


def test_disable_enable_and_rotate(engine: Engine) -> None:
    add(engine)
    assert disable_operator(engine, "admin", "casino").disabled
    assert disable_operator(engine, "admin", "casino").disabled  # no change, no line
    with pytest.raises(Refused, match="disabled"):
        credentials(engine, "casino")
    assert not enable_operator(engine, "admin", "casino").disabled
    assert credentials(engine, "casino").accepted == (SECRET,)

    view = rotate_secret(engine, "admin", "casino", NEW)
    assert view.rotating
    found = credentials(engine, "casino")
    assert (found.secret, found.accepted) == (NEW, (NEW, SECRET))
    assert SECRET not in repr(found) and NEW not in repr(found)
    # a request signed with the old secret is still accepted; feltlab signs with the new
    verify(found.accepted, sign(SECRET, b"{}", at=100), b"{}", now=100)
    with pytest.raises(InvalidField, match="secret: the new secret must differ"):
        rotate_secret(engine, "admin", "casino", SECRET)
    rotate_secret(engine, "admin", "casino", NEWER)
    assert credentials(engine, "casino").accepted == (NEWER, NEW)  # the oldest forgotten
    updated = get_operator(engine, "casino")
    assert updated.updated_at >= updated.created_at


def test_an_unknown_operator_is_not_found(engine: Engine) -> None:
    for action in (lambda: get_operator(engine, "nobody"),
                   lambda: disable_operator(engine, "admin", "nobody"),
                   lambda: enable_operator(engine, "admin", "nobody"),
                   lambda: rotate_secret(engine, "admin", "nobody", NEW),
                   lambda: credentials(engine, "nobody")):
        with pytest.raises(NotFound, match="no operator has id 'nobody'"):
            action()


def test_every_change_is_audited_without_a_secret(engine: Engine) -> None:
    add(engine, frame_origins=["https://casino.example"], currencies={"EUR": 1, "JPY": 1})
    disable_operator(engine, "admin", "casino")
    disable_operator(engine, "admin", "casino")
    enable_operator(engine, "ops", "casino")
    rotate_secret(engine, "admin", "casino", NEW)
    lines = audit_lines(engine)
    assert [(actor, kind) for actor, kind, _ in lines] == [
        ("admin", "operator_added"), ("admin", "operator_disabled"),
        ("ops", "operator_enabled"), ("admin", "operator_secret_rotated")]
    assert lines[0][2] == {"operator": "casino", "wallet_url": URL,
                           "currencies": {"EUR": 1, "JPY": 1}, "timeout_seconds": 3.0,
                           "frame_origins": ["https://casino.example"]}
    assert all(detail["operator"] == "casino" for _, _, detail in lines)
    with transaction(session_factory(engine)) as session:
        raw = " ".join(line.detail for line in session.scalars(select(AuditRecord)))
    assert SECRET not in raw and NEW not in raw
    assert verify_database(engine).intact
