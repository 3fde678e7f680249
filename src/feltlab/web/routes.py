"""The browser's pages and assets, and the read-only JSON the pages need beside API v1
(:func:`mount_web` adds them to the table server's app).

Pages are static files shipped in the package (``feltlab/web/static``: no CDN, no build
step): each page file holds its ``<main>``, set into ``layout.html`` (the one ``<head>`` and
navigation every page shares) with the rule cards inlined, so the lobby shows the games
before anyone signs in. The JSON routes under ``/api/v1`` need a signed-in caller like every other
API route, move no money and change nothing.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from starlette.concurrency import run_in_threadpool

from feltlab.core.cards import CardError
from feltlab.core.payout import RequestError
from feltlab.core.rules import RulesError, builtin_ids, load_rules
from feltlab.core.settle import WagerError
from feltlab.present import catalogue, display, solver, trainer
from feltlab.server.api.deps import ServicesDep, current_caller
from feltlab.server.auth import Caller
from feltlab.server.errors import ApiError
from feltlab.web import mathpages, scores

STATIC = Path(str(resources.files("feltlab.web") / "static"))
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' "
                               "'unsafe-inline'; script-src 'self'; connect-src 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}


@dataclass(frozen=True)
class Page:
    """A page: the file holding its ``<main>``, its title, its script, its nav section."""

    body: str
    title: str
    script: str
    section: str


NAV = (("/", "Lobby"), ("/trainer", "Strategy trainer"), ("/dealer", "Dealer trainer"),
       ("/math", "Math"))
PAGES = {"/": Page("lobby.html", "lobby", "lobby.js", "/"),
         "/dealer": Page("dealer.html", "dealer trainer", "dealer.js", "/dealer"),
         "/trainer": Page("trainer.html", "strategy trainer", "trainer.js", "/trainer"),
         "/math": Page("math.html", "math", "math.js", "/math")}
TABLE_PAGE = Page("table.html", "table", "table.js", "/")
MATH_RULES_PAGE = Page("mathrules.html", "strategy card and charts", "mathrules.js", "/math")

Caller_ = Annotated[Caller, Depends(current_caller)]
ShortText = Annotated[str, StringConstraints(max_length=200)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class DisplayRequest(Strict):
    rules: Annotated[str, StringConstraints(max_length=64)]
    cards: dict[Annotated[str, StringConstraints(max_length=20)], ShortText] = Field(
        default_factory=dict, max_length=4)
    colour: ShortText | None = None
    round: dict[str, Any] | None = None


class AdviceRequest(Strict):
    rules: Annotated[str, StringConstraints(max_length=64)]
    player: ShortText = ""
    community: ShortText = ""
    colour: ShortText | None = None
    bets: Annotated[list[int], Field(max_length=3)] = Field(default_factory=list)
    ante: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    chosen: dict[str, Any] | None = None
    record: bool = False
    """Count the verdict on ``chosen`` in the caller's strategy-trainer score."""


class DealerCheck(Strict):
    request: dict[str, Any]
    answers: Annotated[dict[Annotated[str, StringConstraints(max_length=20)],
                            Annotated[int, Field(ge=-10**13, le=10**13)]], Field(max_length=12)]
    millis: Annotated[int, Field(ge=0, le=86_400_000)] = 0
    record: bool = False
    """Count the check (and ``millis`` taken) in the caller's dealer-trainer score."""


class SolveRequest(Strict):
    rules: Annotated[str, StringConstraints(max_length=64)]
    wager: Annotated[str, StringConstraints(max_length=20)]
    target: Annotated[str, StringConstraints(max_length=40)]
    line: Annotated[str, StringConstraints(max_length=40)] | None = None


def known_rules(rules_id: str) -> str:
    if rules_id not in builtin_ids():
        raise ApiError(404, f"there is no built-in rule set {rules_id[:64]!r}; rule sets are "
                            f"{', '.join(builtin_ids())}")
    return rules_id


def refusal(error: Exception) -> ApiError:
    return ApiError(422, str(error).splitlines()[0][:300])


BAD_INPUT = (ValueError, CardError, WagerError, RequestError, RulesError)


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1", tags=["web"])

    @router.get("/rulecards")
    def rule_cards(caller: Caller_) -> list[dict[str, Any]]:
        """Every built-in rule set as the pages show it: wagers under the rules card's
        names with limits and pay tables, decisions, deal order, dealing procedure."""
        return catalogue.rule_cards()

    @router.get("/rulecards/{rules_id}")
    def rule_card(rules_id: str, caller: Caller_) -> dict[str, Any]:
        return catalogue.rule_card(known_rules(rules_id))

    @router.post("/display")
    def show(body: DisplayRequest, caller: Caller_) -> dict[str, Any]:
        """Cards laid out for the page (by suit, the playing flush marked, hands named)
        and, for a complete round, one row per settled wager."""
        known_rules(body.rules)
        try:
            view = display.hand_view(body.rules, body.cards, body.colour)
            if body.round is not None and body.round.get("phase") == "complete":
                view["settlement"] = display.settlement_rows(body.rules, body.round)
        except BAD_INPUT as error:
            raise refusal(error) from None
        return view

    @router.post("/advice")
    async def advice(body: AdviceRequest, caller: Caller_, found: ServicesDep
                     ) -> dict[str, Any]:
        """The advisor's exact EV of every option for one decision, and the verdict on
        ``chosen`` (right, or the cost in units of the main wager); with ``record``, the
        verdict counts in the caller's score, answered as ``score``."""
        known_rules(body.rules)
        try:
            answer: dict[str, Any] = await run_in_threadpool(
                trainer.advice_for, body.rules, body.player, body.community, body.colour,
                body.bets, body.ante, body.chosen)
        except BAD_INPUT as error:
            raise refusal(error) from None
        if body.record and "verdict" in answer:
            answer["score"] = await run_in_threadpool(
                scores.record_verdict, found, caller.user_id, body.rules, answer["verdict"])
        return answer

    @router.get("/drills")
    async def drill(caller: Caller_, rules: Annotated[str, Query(max_length=64)],
                    close: bool = False) -> dict[str, Any]:
        """A random decision to practise, with its advice (no money moves)."""
        return await run_in_threadpool(trainer.drill, known_rules(rules), close)

    @router.get("/dealer-rounds")
    def dealer_round(caller: Caller_, rules: Annotated[str, Query(max_length=64)]
                     ) -> dict[str, Any]:
        """A finished round for the dealer trainer, without its results."""
        return trainer.dealer_round(known_rules(rules))

    @router.post("/dealer-checks")
    def dealer_check(body: DealerCheck, caller: Caller_, found: ServicesDep) -> dict[str, Any]:
        """The trainee's results checked against the engine's settlement; with ``record``,
        the check counts in the caller's score, answered as ``score``."""
        try:
            answer = trainer.check_payouts(body.request, body.answers)
        except BAD_INPUT as error:
            raise refusal(error) from None
        if body.record:
            answer["score"] = scores.record_check(found, caller.user_id,
                                                  str(body.request["rules"]), answer,
                                                  body.millis / 1000)
        return answer

    @router.get("/paytable-solver/{rules_id}")
    def solver_wagers(rules_id: str, caller: Caller_) -> list[dict[str, Any]]:
        """The wagers (and their lines) the page's pay-table solver takes."""
        return solver.solvable_wagers(load_rules(known_rules(rules_id)))

    @router.post("/paytable-solutions")
    async def solve(body: SolveRequest, caller: Caller_) -> dict[str, Any]:
        """The whole-number pays nearest a target house edge for a bonus pay table."""
        known_rules(body.rules)
        try:
            return await run_in_threadpool(solver.solve_json, load_rules(body.rules),
                                           body.wager, body.target, body.line)
        except BAD_INPUT as error:
            raise refusal(error) from None

    return router


@cache
def _template(name: str) -> str:
    return (STATIC / name).read_text("utf-8")


def _inline_cards() -> str:
    text = json.dumps(catalogue.rule_cards(), separators=(",", ":"))
    return text.replace("<", "\\u003c")


def _nav(section: str) -> str:
    current = ' aria-current="page"'
    return "\n".join(f'    <a href="{path}"{current if path == section else ""}>{label}</a>'
                      for path, label in NAV)


def render_page(page: Page) -> str:
    """The page's ``<main>`` in the shared layout (one pass: nothing inserted is expanded)."""
    values = {"TITLE": html.escape(page.title), "SCRIPT": page.script,
              "NAV": _nav(page.section), "BODY": _template(page.body),
              "RULECARDS": _inline_cards()}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda found: values[found.group(1)],
                  _template("layout.html"))


def page(shown: Page) -> HTMLResponse:
    return HTMLResponse(render_page(shown), headers=PAGE_HEADERS)


def pages_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    for path, shown in PAGES.items():
        def show(shown: Page = shown) -> HTMLResponse:
            return page(shown)
        router.add_api_route(path, show, methods=["GET"], response_class=HTMLResponse)

    @router.get("/table/{table_id}", response_class=HTMLResponse)
    def table_page(table_id: int) -> HTMLResponse:
        return page(TABLE_PAGE)

    @router.get("/math/{rules_id}", response_class=HTMLResponse)
    def math_rules_page(rules_id: str) -> HTMLResponse:
        known_rules(rules_id)
        return page(MATH_RULES_PAGE)

    @router.get("/math/{rules_id}/fragment", response_class=HTMLResponse)
    async def math_fragment(rules_id: str) -> HTMLResponse:
        known_rules(rules_id)
        text = await run_in_threadpool(mathpages.strategy_fragment, rules_id)
        return HTMLResponse(text, headers=PAGE_HEADERS)

    @router.get("/math/{rules_id}/par", response_class=HTMLResponse)
    async def par_sheet(rules_id: str) -> HTMLResponse:
        known_rules(rules_id)
        text = await run_in_threadpool(mathpages.par_sheet_html, rules_id)
        return HTMLResponse(text, headers=PAGE_HEADERS)

    @router.get("/favicon.ico")
    def favicon() -> Response:
        return Response((STATIC / "favicon.svg").read_bytes(), media_type="image/svg+xml")

    return router


def mount_web(app: FastAPI) -> None:
    """Add the pages, their assets and the pages' JSON routes to the server's app."""
    app.include_router(api_router())
    app.include_router(scores.scores_router())
    app.include_router(pages_router())
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
