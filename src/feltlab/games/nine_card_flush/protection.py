"""Game protection for 9 Card Flush as the protocol asks for it: colluders gain nothing
(the decision comes before any player's cards), and a card flashed off the stub is one
of the player's own six; every case is exact (:mod:`.protect`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from feltlab.core.family import ProtectionModel, ProtectTools
from feltlab.core.protection import Case, CaseResult, Countermeasure, Leak, Signal, find_result
from feltlab.games.nine_card_flush.engine import PLAYER
from feltlab.games.nine_card_flush.rules import NineCardRules


class NineProtection(ProtectionModel[NineCardRules]):
    default_deals = 0

    def leaks(self, rules: NineCardRules) -> tuple[Leak, ...]:
        return (
            Leak("colluders", "Colluding seats sharing their cards", False,
                 "the only decision (fold or Play) comes after the 3 community cards and "
                 "before any player's own cards are dealt: other seats have nothing to share, "
                 "so colluders gain exactly nothing"),
            Leak("dealer_seen", "Dealer's cards seen", False, "there is no dealer hand"),
            Leak("next_seen", "Player's own cards seen before the decision", True,
                 "a card flashed off the stub before the decision is one of the cards the "
                 "players are about to get"),
        )

    def max_dealer_seen(self, rules: NineCardRules) -> int:
        return 0

    def max_next_seen(self, rules: NineCardRules) -> int:
        return PLAYER

    def check_case(self, rules: NineCardRules, case: Case) -> None:
        if case.colluders > 1 and case.next_seen:
            raise ValueError("--colluders with --next-seen: in 9 Card Flush colluders gain "
                             "nothing; give one of them")

    def evaluate(self, rules: NineCardRules, case: Case, deals: int, seed: int,
                 progress: Callable[[int, int], None] | None) -> CaseResult:
        from feltlab.games.nine_card_flush import protect

        return protect.evaluate(rules, case)

    def house_edge(self, rules: NineCardRules) -> Fraction:
        from feltlab.games.nine_card_flush import protect

        return protect.house_edge(rules)

    def notes(self, rules: NineCardRules) -> tuple[str, ...]:
        return ("Next cards seen: N of the player's own six cards seen before the decision.",)

    def signals(self, rules: NineCardRules, results: Sequence[CaseResult], deals: int,
                seed: int) -> tuple[Signal, ...]:
        return ()

    def countermeasures(self, rules: NineCardRules, results: Sequence[CaseResult], deals: int,
                        seed: int, tools: ProtectTools) -> tuple[Countermeasure, ...]:
        seen = find_result(results, Case(1, 0, 1))
        lone = find_result(results, Case())
        if seen is None or lone is None:
            return ()
        return (Countermeasure(
            "next_seen", "deal the players' cards from a shuffler or shoe, burning the top "
            "card", seen.edge, lone.edge, 0.0, True, "a flashed top card then belongs to no "
            "one"),)


protection = NineProtection()
