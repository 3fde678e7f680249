"""9 Card Flush strategies as data: which community cards a player plays on, read from a
strategy file (TOML, the built-in rule set's card shipped as
``strategies/nine-card-flush.toml``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from feltlab.core.rules import describe_validation_error, parse_toml, validate_strict

NineFeature = Literal["colour_cards", "flush_cards"]


class NineStrategy(BaseModel):
    """Play when any entry of ``play_when`` is met: every feature at least its minimum.
    ``colour_cards``: community cards of the chosen colour; ``flush_cards``: most
    community cards in one suit of it. An empty list never plays.

    >>> parse_nine_strategy('play_when = [{colour_cards = 1}]').plays((1, 0, 2))
    True
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    game: Literal["nine-card-flush"] = "nine-card-flush"
    rules: str = ""
    play_when: tuple[dict[NineFeature, int], ...] = ()

    def plays(self, community: tuple[int, int, int]) -> bool:
        have = {"colour_cards": community[0] + community[1],
                "flush_cards": max(community[:2])}
        return any(all(have[name] >= least for name, least in condition.items())
                   for condition in self.play_when)


def parse_nine_strategy(text: str) -> NineStrategy:
    try:
        return validate_strict(NineStrategy, parse_toml(text, "the strategy"))
    except ValidationError as error:
        raise ValueError("invalid 9 Card Flush strategy: "
                         + describe_validation_error(error)) from error
    except ValueError as error:
        raise ValueError(f"invalid 9 Card Flush strategy: {error}") from error
