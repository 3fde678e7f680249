"""The designer's limit, held in the database on SQLite and PostgreSQL: one design per
account and ``designer_jobs`` in the deployment, whichever app instance asks; a killed
worker's slot (a row whose lease ran out) frees itself."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from feltlab.server.clock import now
from feltlab.server.designer_models import DesignerJob
from feltlab.server.errors import TooMany
from feltlab.server.models import User
from feltlab.server.services import designer_slots
from feltlab.server.services.context import Services, open_services
from server.conftest import sign_up
from server.designs import design

CHEAP = design("high-card-flush", lambda data: None)


def user_ids(found: Services, count: int, client: TestClient) -> list[int]:
    names = [client.get("/api/v1/me", headers=sign_up(client)).json()["username"]
             for _ in range(count)]
    with found.read() as session:
        return [session.scalars(select(User.id).where(User.username == name)).one()
                for name in names]


def running(found: Services) -> int:
    with found.read() as session:
        return int(session.scalar(select(func.count()).select_from(DesignerJob)) or 0)


@pytest.fixture
def other_instance(database_url: str) -> Iterator[Services]:
    """A second app instance's services on the same database (another worker or host)."""
    found = open_services(database_url)
    yield found
    found.close()


def test_k_designs_in_the_deployment_and_one_per_account(
        client: TestClient, other_instance: Services) -> None:
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    ann, bob, cid = user_ids(found, 3, client)
    held = designer_slots.claim(found, ann, "par", 2, "here:1:1")
    with pytest.raises(TooMany, match="a design of yours"):
        designer_slots.claim(other_instance, ann, "par", 2, "there:2:1")
    second = designer_slots.claim(other_instance, bob, "protection", 2, "there:2:2")
    assert {held.slot, second.slot} == {0, 1}
    with pytest.raises(TooMany, match="busy") as refused:
        designer_slots.claim(found, cid, "par", 2, "here:1:2")
    assert refused.value.retry_after == 1
    designer_slots.release(other_instance, second)
    third = designer_slots.claim(found, cid, "par", 2, "here:1:3")
    assert third.slot == second.slot
    designer_slots.release(found, held)
    designer_slots.release(found, third)
    assert running(found) == 0


def test_over_k_is_refused_by_the_route_with_429(client: TestClient,
                                                 other_instance: Services) -> None:
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    (bob,) = user_ids(found, 1, client)
    held = designer_slots.claim(other_instance, bob, "protection", 1, "there:2:1")
    headers = sign_up(client)
    for path, body in (("par", {"rules": CHEAP}), ("strategy", {"rules": CHEAP})):
        answer = client.post(f"/api/v1/designer/{path}", json=body, headers=headers)
        assert answer.status_code == 429, answer.text
        assert answer.headers["Retry-After"] == "1"
        assert "the designer is busy" in answer.json()["detail"]
    solver = client.post("/api/v1/paytable-solutions", headers=headers, json={
        "rules": "high-card-flush", "wager": "flush", "target": "5%", "line": "5"})
    assert solver.status_code == 429, solver.text
    designer_slots.release(other_instance, held)


def test_a_killed_workers_slot_frees_itself(client: TestClient,
                                            other_instance: Services) -> None:
    """A worker killed mid-design leaves its row; once the row has not been renewed for
    the lease, the next claim deletes it and takes the slot."""
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    ann, bob = user_ids(found, 2, client)
    designer_slots.claim(other_instance, bob, "protection", 1, "killed:9:1")
    with pytest.raises(TooMany, match="busy"):
        designer_slots.claim(found, ann, "par", 1, "here:1:1")
    with other_instance.transaction() as session:  # the killed worker renews no more
        session.execute(update(DesignerJob).values(
            renewed_at=now() - designer_slots.LEASE - timedelta(seconds=1)))
    held = designer_slots.claim(found, ann, "par", 1, "here:1:2")
    with found.read() as session:
        assert session.scalars(select(DesignerJob.user_id)).all() == [ann]
    designer_slots.release(found, held)


def test_a_renewed_slot_is_not_freed(client: TestClient, other_instance: Services) -> None:
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    ann, bob = user_ids(found, 2, client)
    held = designer_slots.claim(other_instance, bob, "protection", 1, "there:2:1")
    with other_instance.transaction() as session:
        session.execute(update(DesignerJob).values(
            renewed_at=now() - designer_slots.LEASE + timedelta(seconds=5)))
    designer_slots.renew(other_instance, held)
    with pytest.raises(TooMany, match="busy"):
        designer_slots.claim(found, ann, "par", 1, "here:1:1")
    designer_slots.release(other_instance, held)
