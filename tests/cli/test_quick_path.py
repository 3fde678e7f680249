"""The quick commands' usual forms run without Typer and pydantic (``feltlab.cli.quick``),
and answer byte for byte as the full command line does; every other form, and every
refusal, is the full command line's.

Each case runs twice in fresh processes: ``feltlab ARGS`` as installed, and the full
command line alone (``feltlab.cli.program.main``), which is what ran before the quick path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.test_bad_flags import run_fresh
from feltlab.core.registry import builtin_ids

HCF = ["--player", "Ah Kh Qh 9s 7d 5c 2c", "--dealer", "Ad Kd Qd Js 8h 6c 3c"]
NINE = ["--player", "5h 6d 7c 8c 9s Ts", "--community", "2h 3h 4s", "--colour", "red"]
STUD = ["--player", "Jh Js", "--community", "2c 7d 9s"]
QUICK_FORMS = [
    ["rules"],
    *(["rules", rules_id] for rules_id in builtin_ids()),
    ["payout", "--rules", "high-card-flush", "--wagers", "ante=5,flush=5", *HCF, "--raise", "5"],
    ["payout", "--rules=nh-flush-poker", "--wagers=ante=10", *HCF, "--raise=0"],
    ["payout", *HCF, "--raise", "5", "--wagers", "ante=5", "--rules", "high-card-flush-toledo"],
    ["payout", "--rules", "nine-card-flush", "--wagers", "all9=5,bonus9=5", *NINE, "--play"],
    ["payout", "--rules", "nine-card-flush", "--wagers", '{"all9": 3}', *NINE, "--fold"],
    ["payout", "--rules", "nh-holdem-stud", "--wagers", "ante=5,bonus3=5", *STUD,
     "--streets", "5,5,10"],
    ["payout", "--rules", "nh-holdem-stud", "--wagers", "ante=5", *STUD, "--streets", "5"],
]
FULL_FORMS = [
    ["rules", "high-card-flush", "--markdown"],
    ["rules", "no-such-rules"],
    ["rules", "high-card-flush", "nh-flush-poker"],
    ["rules", "--help"],
    ["payout", "--rules", "high-card-flush", "--wagers", "ante=0", *HCF, "--raise", "5"],
    ["payout", "--rules", "high-card-flush", "--wagers", "ante=5", *HCF, "--raise", "-1"],
    ["payout", "--rules", "high-card-flush", "--wagers", "ante=5", *HCF, "--raise", "1.5"],
    ["payout", "--rules", "high-card-flush", "--rules", "nh-flush-poker", "--wagers", "ante=5"],
    ["payout", "--rules", "nine-card-flush", "--wagers", "all9=5", *NINE, "--play", "--fold"],
    ["payout", "--rules", "high-card-flush", "--wagers", "ante=5", "--player"],
    ["payout", "--rules", "high-card-flush", "--wagers", "ante=5", "--bogus", "1"],
    ["payout", "--rules", "nh-holdem-stud", "--wagers", "ante=5", *STUD, "--streets", "5,x"],
    ["payout", "--wagers", "ante=5", *HCF],
    ["--debug", "rules"],
    ["verify", "no-such-round.json"],
    ["verify"],
]
TYPER_OR_PYDANTIC = ("typer", "pydantic", "pydantic_core", "click")


@pytest.fixture
def environment(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "100"}
    env.pop("FELTLAB_DATABASE_URL", None)
    return env


def run_full(args: list[str], env: dict[str, str], stdin: str = ""
             ) -> subprocess.CompletedProcess[str]:
    """``feltlab ARGS`` through the full command line alone, in a fresh process."""
    program = "import sys; sys.argv[0] = 'feltlab'; from feltlab.cli.program import main; main()"
    return subprocess.run([sys.executable, "-c", program, *args], env=env, text=True,
                          capture_output=True, timeout=120, input=stdin, check=False)


def loaded(imported: set[str], packages: tuple[str, ...]) -> set[str]:
    return {name for name in imported if name.split(".")[0] in packages}


@pytest.mark.parametrize("args", QUICK_FORMS, ids=" ".join)
def test_a_usual_form_answers_as_the_full_command_line_without_typer(
        args: list[str], environment: dict[str, str]) -> None:
    quick, imported = run_fresh(args, environment)
    full = run_full(args, environment)
    assert quick.returncode == 0, quick.stderr
    assert (quick.stdout, quick.stderr, quick.returncode) == (
        full.stdout, full.stderr, full.returncode)
    assert not loaded(imported, (*TYPER_OR_PYDANTIC, "numba", "numpy"))
    if args[0] == "payout":
        assert json.loads(quick.stdout)["fingerprint"]


@pytest.mark.parametrize("args", FULL_FORMS, ids=" ".join)
def test_any_other_form_or_refusal_is_the_full_command_lines(
        args: list[str], environment: dict[str, str]) -> None:
    quick, imported = run_fresh(args, environment)
    full = run_full(args, environment)
    assert (quick.stdout, quick.stderr, quick.returncode) == (
        full.stdout, full.stderr, full.returncode)
    assert "typer" in imported  # the full command line answered


HAND = {"rules": "high-card-flush", "wagers": {"ante": 5}, "player": "Ah Kh Qh 9s 7d 5c 2c",
        "dealer": "Ad Kd Qd Js 8h 6c 3c", "raise": 5}
STUD_HAND = {"rules": "nh-holdem-stud", "wagers": {"ante": 5}, "player": "Jh Js",
             "community": "2c 7d 9s", "streets": [5, 5, 10]}
STANDARD_INPUT = {
    "one hand": (json.dumps(HAND), 0),
    "two hands": (json.dumps([HAND, STUD_HAND]), 0),
    "no hands": ("[]", 0),
    "a refused hand": (json.dumps([HAND, {**STUD_HAND, "player": "Jh Jh"}]), 2),
    "a rule set not known": (json.dumps({**HAND, "rules": "house-special"}), 2),
    "not JSON": ("{\"rules\": ", 2),
}


@pytest.mark.parametrize("case", STANDARD_INPUT)
def test_payout_from_standard_input_answers_as_the_full_command_line(
        case: str, environment: dict[str, str]) -> None:
    """Standard input cannot be read twice: the quick path settles it, or refuses it in
    the one line the full command line writes."""
    text, status = STANDARD_INPUT[case]
    quick, imported = run_fresh(["payout"], environment, text)
    full = run_full(["payout"], environment, text)
    assert quick.returncode == status, quick.stderr
    assert (quick.stdout, quick.stderr, quick.returncode) == (
        full.stdout, full.stderr, full.returncode)
    assert not loaded(imported, (*TYPER_OR_PYDANTIC, "numba", "numpy"))
    if status:
        assert quick.stdout == "" and len(quick.stderr.splitlines()) == 1


def test_a_payout_refusal_after_the_quick_path_tried_is_one_line(
        environment: dict[str, str]) -> None:
    """The quick path settled nothing and printed nothing: the refusal is the one line the
    full command line writes."""
    args = ["payout", "--rules", "high-card-flush", "--wagers", "ante=0", *HCF]
    done, _ = run_fresh(args, environment)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(("raised", "status", "words"), [
    (RuntimeError("a bug"), 70, "error: unexpected RuntimeError: a bug (details in "),
    (KeyboardInterrupt(), 130, "Aborted."),
])
def test_a_failure_while_reading_standard_input_is_one_line(
        raised: BaseException, status: int, words: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """As the full command line reports them: a bug in one line naming its report file, an
    interrupt as "Aborted."."""
    import io

    import feltlab.core.payout
    from feltlab.cli.quick import quick_status

    def broken(source: object, out: object) -> None:
        raise raised

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("FELTLAB_DEBUG", raising=False)
    monkeypatch.delenv("FELTLAB_DATABASE_URL", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(HAND)))
    monkeypatch.setattr(feltlab.core.payout, "settle_stream", broken)
    assert quick_status(["payout"]) == status
    shown = capsys.readouterr()
    assert shown.out == "" and shown.err.startswith(words) and shown.err.count("\n") == 1
