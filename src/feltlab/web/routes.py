"""The browser's pages and assets (:func:`mount_web` adds them to an application; the
JSON they read is API v1's, served by :mod:`feltlab.server`).

Pages are static files shipped in the package (``feltlab/web/static``: no CDN, no build
step): each page file holds its ``<main>``, set into ``layout.html`` (the one ``<head>``
every page shares) under its top bar (``topbar.html``, the site's navigation) with the rule
cards inlined, so the lobby shows the games before anyone signs in. The game page
operators frame (:mod:`feltlab.web.play`) has ``topbar-framed.html`` instead: none of the
site's navigation.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from feltlab.core.rules import builtin_ids, is_known
from feltlab.present import catalogue
from feltlab.web import mathpages

STATIC = Path(str(resources.files("feltlab.web") / "static"))


def content_security_policy(frame_ancestors: Sequence[str] = ("'none'",)) -> str:
    """The pages' policy: nothing but this origin's own scripts, styles and requests, and
    framed by ``frame_ancestors`` only (nobody, but for the operators' game page)."""
    return ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; connect-src 'self'; "
            f"frame-ancestors {' '.join(frame_ancestors)}; base-uri 'none'; "
            "form-action 'self'")


PAGE_HEADERS = {
    "Content-Security-Policy": content_security_policy(),
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}


@dataclass(frozen=True)
class Page:
    """A page: the file holding its ``<main>``, its title, its script (none if empty),
    its nav section, and its top bar."""

    body: str
    title: str
    script: str
    section: str
    topbar: str = "topbar.html"


NAV = (("/", "Lobby"), ("/trainer", "Strategy trainer"), ("/dealer", "Dealer trainer"),
       ("/math", "Math"), ("/designer", "Designer"))
PAGES = {"/": Page("lobby.html", "lobby", "lobby.js", "/"),
         "/dealer": Page("dealer.html", "dealer trainer", "dealer.js", "/dealer"),
         "/trainer": Page("trainer.html", "strategy trainer", "trainer.js", "/trainer"),
         "/math": Page("math.html", "math", "math.js", "/math"),
         "/designer": Page("designer.html", "variant designer", "designer.js", "/designer")}
ADMIN_PATH = "/admin"
ADMIN_NAV = (ADMIN_PATH, "Console")
"""The console's link in the top bar: hidden until the page's script finds an admin
signed in (shown at once on the console itself, which only admins are served)."""
ADMIN_PAGE = Page("admin.html", "operator's console", "admin.js", ADMIN_PATH)
"""The operator's console: every figure in it comes from API v1's admin routes, and the
application serves it at ``/admin`` to admins only (:mod:`feltlab.app`, which knows the
callers)."""
ADMIN_SIGN_IN_PAGE = Page("admin-signin.html", "operator's console: sign in",
                          "admin-gate.js", "")
"""What ``/admin`` shows a caller who is not signed in: a sign-in form, no admin data."""
ADMIN_ONLY_PAGE = Page("admin-only.html", "operator's console: admins only",
                       "admin-gate.js", "")
"""What ``/admin`` shows a signed-in caller who is not an admin."""
TABLE_PAGE = Page("table.html", "table", "table.js", "/")
MATH_RULES_PAGE = Page("mathrules.html", "strategy card and charts", "mathrules.js", "/math")


def known_rules(rules_id: str) -> str:
    """A built-in or published rule set's id; any other page is not found."""
    if not is_known(rules_id):
        raise HTTPException(404, f"there is no built-in rule set {rules_id[:64]!r}; rule sets "
                                 f"are {', '.join(builtin_ids())}")
    return rules_id


@cache
def _template(name: str) -> str:
    return (STATIC / name).read_text("utf-8")


def _inline_cards() -> str:
    text = json.dumps(catalogue.rule_cards(), separators=(",", ":"))
    return text.replace("<", "\\u003c")


def _nav(section: str) -> str:
    current = ' aria-current="page"'
    links = [f'    <a href="{path}"{current if path == section else ""}>{label}</a>'
             for path, label in NAV]
    path, label = ADMIN_NAV
    shown = current if path == section else " hidden data-admin-only"
    return "\n".join([*links, f'    <a href="{path}"{shown}>{label}</a>'])


def _body(name: str) -> str:
    """A page's ``<main>`` with its parts (``{{PART:felt}}`` is ``felt.html``) set in: the
    two table pages share their felt's markup, whose ids their scripts share."""
    return re.sub(r"\{\{PART:([a-z-]+)\}\}", lambda found: _template(found.group(1) + ".html"),
                  _template(name))


def _script(name: str) -> str:
    return f'<script type="module" src="/static/{name}"></script>' if name else ""


def render_page(page: Page) -> str:
    """The page's ``<main>`` in the layout under its top bar (one pass: nothing inserted
    is expanded)."""
    topbar = _template(page.topbar).replace("{{NAV}}", _nav(page.section))
    values = {"TITLE": html.escape(page.title), "SCRIPT": _script(page.script),
              "TOPBAR": topbar, "BODY": _body(page.body), "RULECARDS": _inline_cards()}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda found: values[found.group(1)],
                  _template("layout.html"))


def page(shown: Page, status_code: int = 200, headers: dict[str, str] | None = None
         ) -> HTMLResponse:
    return HTMLResponse(render_page(shown), status_code,
                        headers={**PAGE_HEADERS, **(headers or {})})


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
    """Add the pages and their assets to ``app``."""
    app.include_router(pages_router())
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
