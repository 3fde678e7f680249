"""Game protection for the High Card Flush family as the protocol asks for it: which
information can matter, the cases' evaluation (:mod:`.protect`), the signals a team of
colluders could use (:mod:`.signals`) and what an operator can change."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from feltlab.core.family import ProtectionModel, ProtectTools
from feltlab.core.protection import (
    ORDER_NOTE,
    Case,
    CaseResult,
    Countermeasure,
    Leak,
    Signal,
    fewer_seats,
    find_result,
)
from feltlab.games.high_card_flush.rules import FlushRules


def _raises_capped(rules: FlushRules) -> FlushRules:
    return rules.model_copy(update={"raise_multiples": {
        length: min(1, most) for length, most in rules.raise_multiples.items()}})


class FlushProtection(ProtectionModel[FlushRules]):
    default_deals = 1_000_000

    def leaks(self, rules: FlushRules) -> tuple[Leak, ...]:
        return (
            Leak("colluders", "Colluding seats sharing their cards", True,
                 "every seat gets 7 cards: a full table of 6 knows 42 of the 52 and the "
                 "dealer's 7 come from the other 10"),
            Leak("dealer_seen", "Dealer's cards seen (hole-carding)", True,
                 "the only decision (fold or raise) is made against the dealer's hidden hand"),
            Leak("next_seen", "Next cards seen", False,
                 "there are no community cards: every card is dealt before the decision"),
        )

    def max_dealer_seen(self, rules: FlushRules) -> int:
        return rules.hand_size

    def max_next_seen(self, rules: FlushRules) -> int:
        return 0

    def check_case(self, rules: FlushRules, case: Case) -> None:
        return None

    def evaluate(self, rules: FlushRules, case: Case, deals: int, seed: int,
                 progress: Callable[[int, int], None] | None) -> CaseResult:
        from feltlab.games.high_card_flush import protect

        return protect.evaluate(rules, case, deals, seed, progress)

    def house_edge(self, rules: FlushRules) -> Fraction:
        """The lone seat's exact enumeration (proven equal to the PAR sheet's in the tests)."""
        from feltlab.games.high_card_flush import protect

        return -protect.baseline_edge(rules)

    def notes(self, rules: FlushRules) -> tuple[str, ...]:
        return ("Dealer cards seen: the seat knows that many of the dealer's 7 before "
                "deciding (the rest are unseen).",)

    def signals(self, rules: FlushRules, results: Sequence[CaseResult], deals: int,
                seed: int) -> tuple[Signal, ...]:
        """Practical signals for a full table of colluders."""
        full, lone = find_result(results, Case(rules.seats)), find_result(results, Case())
        if full is None or lone is None:
            return ()
        from feltlab.games.high_card_flush.signals import flush_signals

        return tuple(flush_signals(rules, full.edge, lone.edge, deals, seed))

    def countermeasures(self, rules: FlushRules, results: Sequence[CaseResult], deals: int,
                        seed: int, tools: ProtectTools) -> tuple[Countermeasure, ...]:
        measures = fewer_seats(rules.seats, results)
        full = find_result(results, Case(rules.seats))
        if full is not None:
            capped = _raises_capped(rules)
            after = tools.evaluate(capped, Case(rules.seats))
            lone = tools.evaluate(capped, Case())
            measures.append(Countermeasure(
                "colluders", "every raise capped at 1x", full.edge, after.edge, after.std_error,
                after.exact, f"the lone player's edge becomes {100 * lone.edge:+.4f}% (exact)"))
            measures.append(Countermeasure(
                "colluders", "deal the dealer's hand first, or burn cards", full.edge,
                full.edge, full.std_error, full.exact, ORDER_NOTE))
        seen, alone = find_result(results, Case(1, 1)), find_result(results, Case())
        if seen is not None:
            after = tools.evaluate(_raises_capped(rules), Case(1, 1))
            measures.append(Countermeasure(
                "dealer_seen", "every raise capped at 1x", seen.edge, after.edge,
                after.std_error, after.exact, "one dealer card seen, against the capped game"))
        if seen is not None and alone is not None:
            measures.append(Countermeasure(
                "dealer_seen", "deal the dealer's hand face down last and unexposed (no card "
                "seen)", seen.edge, alone.edge, 0.0, True, "what one flashed dealer card is "
                "worth is the whole gap"))
        measures.append(Countermeasure(
            "colluders", "a pay-table change", full.edge if full else 0.0,
            full.edge if full else 0.0, full.std_error if full else 0.0,
            bool(full and full.exact), "the main game pays even money and has no pay table; "
            "the bonus pay tables are untouched by information, so no pay-table change "
            "reaches this leak"))
        return tuple(measures)


protection = FlushProtection()
