"""The console's report as the pit reads it: where players shared rounds, the seats stand
beside the rounds (the Total row's rounds are fewer than its players' rounds); the win
chart's legend draws each series as the chart does; a report by rule set says so."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from web.axe import assert_axe_clean
from web.conftest import Server
from web.test_admin_console import PASSWORD, _admin, _report, sign_in
from web.test_browser import TIMEOUT, shot
from web.test_shared_table import open_shared_table

_names = itertools.count(1)


def _shared_rounds(server: Server, rounds: int) -> None:
    """Two players (API v1) bet the Ante and fold in ``rounds`` rounds of a shared table."""
    table, _ = open_shared_table(server, "high-card-flush", title="Pit seats")
    players = []
    with httpx.Client(base_url=server.base, timeout=30) as http:
        for seat in (1, 2):
            name = f"seat{int(time.time()) % 100000}x{next(_names)}"
            body = {"username": name, "password": PASSWORD}
            assert http.post("/api/v1/accounts", json=body).status_code == 201
            token = http.post("/api/v1/login", json=body).json()["token"]
            http.cookies.clear()
            headers = {"Authorization": f"Bearer {token}"}
            assert http.post(f"/api/v1/tables/{table}/seats", json={"seat": seat},
                             headers=headers).status_code == 201
            players.append(headers)
        for _ in range(rounds):
            round_id = 0
            for headers in players:
                answer = http.post(f"/api/v1/tables/{table}/rounds",
                                   json={"wagers": {"ante": 5}}, headers=headers)
                round_id = answer.json()["id"]
            for headers in players:
                assert http.post(f"/api/v1/rounds/{round_id}/actions", json={"action": "fold"},
                                 headers=headers).status_code == 200


def test_the_report_counts_seats_beside_rounds(server: Server, desktop: Any,
                                               artifacts: Path) -> None:
    _shared_rounds(server, 2)
    admin = _admin(server)
    page = desktop.new_page()
    sign_in(page, server, admin)
    page.get_by_label("Report currency").select_option("practice")
    for _ in range(5):  # other tests' shared rounds may settle meanwhile: read both again
        page.get_by_role("button", name="Show report").click()
        totals = _report(server, admin)["totals"]
        try:
            page.wait_for_function(
                "wanted => document.getElementById('pit-seats')?.textContent === wanted",
                arg=str(totals["seats"]), timeout=TIMEOUT // 5)
            break
        except PlaywrightTimeout:
            continue
    assert totals["seats"] > totals["rounds"]
    assert page.locator("#pit-rounds").text_content() == str(totals["rounds"])
    heads = page.locator("#report-table thead th").all_text_contents()
    assert heads[heads.index("Rounds") + 1] == "Seats", heads
    column = heads.index("Seats") + 1
    assert page.locator(f"#report-table tfoot td:nth-child({column})").text_content() == str(
        totals["seats"])
    assert page.locator("#to-date-table thead th").all_text_contents()[2] == "Seats"

    # the legend draws the win as the chart does: its line and its dot
    win_line = page.locator("#chart-days polyline").last.get_attribute("stroke")
    dots = page.locator("#chart-days svg > circle").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('fill'))")
    legend = page.locator('#chart-days g.legend g[data-series="win"]')
    outside = page.locator('#chart-days g.legend g[data-series="outside band"] circle')
    assert outside.count() == 1
    outside_fill = outside.get_attribute("fill")
    assert legend.locator("line").get_attribute("stroke") == win_line
    win_fill = legend.locator("circle").get_attribute("fill")
    assert win_fill != outside_fill
    # a day inside its band is drawn as the legend's win dot (every day of the shared
    # run's data may be outside it: then each dot is the other legend entry's)
    assert set(dots) <= {win_fill, outside_fill}, dots
    assert legend.locator("text").text_content() == "win"
    shot(page, artifacts, "admin-console-seats")

    page.get_by_label("Group by").select_option("rules")
    page.get_by_role("button", name="Show report").click()
    page.wait_for_function("() => document.getElementById('report-title').textContent"
                           ".startsWith('Report by rule set (')", timeout=TIMEOUT)
    assert page.get_by_label("Group by").locator("option:checked").text_content() == "Rule sets"
    assert page.locator("#report-table thead th").first.text_content() == "Rule set"
    assert_axe_clean(page, "admin-console-seats", artifacts)
    page.close()
