"""axe-core in the browser tests: :func:`assert_axe_clean` runs it on a page as it is and
fails on any critical, serious or moderate finding.

axe runs under the page's real Content-Security-Policy (``script-src 'self'``), with no
bypass: the page loads it as one more script of its own origin, from a path
(:data:`AXE_PATH`) the test answers itself with the bundled ``axe.min.js`` (axe-core,
MPL-2.0: see ``AXE.md``). Every run's full result is saved beside the screenshots as
``axe-NAME.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AXE_FILE = Path(__file__).with_name("axe.min.js")
AXE_PATH = "/__tests__/axe.min.js"
"""Where the page loads axe from: its own origin, so the CSP's ``'self'`` allows it."""
FAILING_IMPACTS = ("critical", "serious", "moderate")
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"]
"""Every rule of WCAG 2.2 A and AA, axe's best practices and its experimental rules (such
as label-content-name-mismatch)."""

_RUN = """async (tags) => {
  const result = await window.axe.run(document, {runOnly: {type: 'tag', values: tags},
                                                 resultTypes: ['violations']});
  return {violations: result.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => ({target: n.target.join(' '), impact: n.impact,
                                      summary: n.failureSummary, html: n.html}))})),
          passes: result.passes.length};
}"""


def _serve_axe(route: Any) -> None:
    route.fulfill(status=200, content_type="text/javascript; charset=utf-8",
                  body=AXE_FILE.read_bytes())


def inject_axe(page: Any) -> None:
    """Load axe into ``page`` as a script of its own origin (once a page)."""
    if page.evaluate("() => typeof window.axe === 'object'"):
        return
    origin = page.evaluate("() => location.origin")
    page.route(origin + AXE_PATH, _serve_axe)
    page.add_script_tag(url=origin + AXE_PATH)
    page.wait_for_function("() => typeof window.axe === 'object'")


def axe_findings(page: Any) -> list[dict[str, Any]]:
    """axe's violations on ``page`` as it is now, each with its impact and nodes."""
    inject_axe(page)
    result: dict[str, Any] = page.evaluate(_RUN, TAGS)
    violations: list[dict[str, Any]] = result["violations"]
    return violations


def describe(findings: list[dict[str, Any]]) -> str:
    lines = []
    for finding in findings:
        lines.append(f"{finding['impact']}: {finding['id']} ({finding['help']})")
        lines += [f"    {node['target']}: {node['html'][:160]}" for node in finding["nodes"][:6]]
    return "\n".join(lines)


def assert_axe_clean(page: Any, name: str, artifacts: Path | None = None) -> None:
    """Fail when axe finds anything critical, serious or moderate on ``page`` (named
    ``name`` in the message and in ``axe-NAME.json`` under ``artifacts``)."""
    findings = axe_findings(page)
    if artifacts is not None:
        (artifacts / f"axe-{name}.json").write_text(json.dumps(findings, indent=1))
    failing = [finding for finding in findings if finding["impact"] in FAILING_IMPACTS]
    assert not failing, f"axe on {name} ({page.url}):\n{describe(failing)}"
