"""What callers see, built without the database: a table's JSON, a round as one player may
see it (no hidden card before its reveal), a round's recall step by step, a rule set's
summary, and the state every live watcher of a table shares (:class:`TableState`).

The services read what these need and call them; the same round view answers a bet, a
decision, ``GET /api/v1/rounds/{id}`` and every live update.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from feltlab.core import jsontext, registry
from feltlab.core.cards import format_cards
from feltlab.core.engine import Action, HandState, Phase, action_to_json
from feltlab.core.rules import load_rules
from feltlab.server.clock import aware
from feltlab.server.models import GameTable, RoundSeat

if TYPE_CHECKING:
    from feltlab.server.services.round_store import LoadedRound


# --- tables and rule sets -----------------------------------------------------------------

def table_json(table: GameTable, seats: list[tuple[int, str]] | None = None,
               next_commitment: str | None = None) -> dict[str, Any]:
    """A table as its callers see it; a shared table with who sits where (``seats``), a
    private one, to its owner, with the commitment of its next round's seed
    (``next_commitment``), so that the player sees it before betting and choosing a
    client seed."""
    rules = load_rules(table.rules_id)
    view: dict[str, Any] = {
        "id": table.id, "rules": table.rules_id, "name": table.name or rules.name,
        "fingerprint": table.fingerprint, "currency": table.currency,
        "practice": table.currency == "practice",  # one meaning: the chips it plays
        "shared": table.shared, "status": table.status, "seats": rules.seats,
        "limits": {name: {"min": limit.min, "max": limit.max}
                   for name, limit in rules.limits.items()},
        "required_wagers": list(rules.required_wagers),
    }
    if next_commitment is not None and not table.shared:  # only ever shown to the owner
        view["next_commitment"] = next_commitment
    if table.shared:
        view |= {"betting_seconds": table.betting_seconds,
                 "decision_seconds": table.decision_seconds,
                 "seated": [{"seat": seat, "player": name} for seat, name in seats or []]}
    return view


def rules_summary(rules_id: str) -> dict[str, Any]:
    """A built-in rule set's wagers and limits (``GET /api/v1/rules``)."""
    rules = load_rules(rules_id)
    return {"id": rules.id, "name": rules.name, "game": rules.game, "seats": rules.seats,
            "fingerprint": rules.fingerprint, "required_wagers": list(rules.required_wagers),
            "limits": {name: {"min": limit.min, "max": limit.max}
                       for name, limit in rules.limits.items()},
            "max_aggregate_payout": rules.max_aggregate_payout}


def rules_definition(rules_id: str) -> dict[str, Any]:
    """A rule set in full, pay tables included, as its file defines it."""
    return {**rules_summary(rules_id),
            "definition": load_rules(rules_id).model_dump(mode="json")}


# --- a round as one player sees it ------------------------------------------------------------

def options(state: HandState, seat: int) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
    """The legal decisions of ``seat`` now, in the actions' JSON form, and the raise range."""
    if state.phase is not Phase.DECISIONS or state.to_act != seat:
        return [], None
    return state.steps.options_json(state, seat)


def seat_cards(state: HandState, seat: int, visible: bool) -> dict[str, Any]:
    hand = state.seats.get(seat)
    if hand is None or not visible:
        return {}
    return {"player": format_cards(hand.cards)} if hand.cards else {}


def table_cards(state: HandState) -> dict[str, Any]:
    """Cards every seat may see now: the community cards turned, the dealer's at the end."""
    cards: dict[str, Any] = {}
    if state.visible_community:
        cards["community"] = format_cards(state.visible_community)
    if state.phase is Phase.COMPLETE and state.dealer_cards:
        cards["dealer"] = format_cards(state.dealer_cards)
    return cards


SeatViews = list[tuple[int, dict[str, Any]]]
"""What every other player may see of each seat of a round, by seat number."""


def seat_views(loaded: LoadedRound, usernames: dict[int, str]) -> SeatViews:
    """Each seat as the round's other players (and onlookers) see it: its wagers and
    decisions, its cards and result only once the round is complete."""
    complete = loaded.state.phase is Phase.COMPLETE
    views = []
    for seat in loaded.seats:
        number = seat.seat
        hand = loaded.state.seats.get(number)
        view: dict[str, Any] = {"seat": number, "username": usernames.get(seat.user_id, ""),
                                "wagers": dict(hand.wagers) if hand else {},
                                "decisions": list(hand.decisions) if hand else []}
        view |= seat_cards(loaded.state, number, complete)
        if complete and seat.total is not None:
            view["total"] = seat.total
        views.append((number, view))
    return views


def needs_names(loaded: LoadedRound, user_id: int) -> bool:
    """Whether ``user_id``'s view of the round names other players."""
    return len(loaded.seats) > 1 or loaded.seat_of(user_id) is None


def view_of(loaded: LoadedRound, user_id: int, names: dict[int, str],
            state: TableState | None = None) -> dict[str, Any]:
    """The round as ``user_id`` may see it, from the seated players' ``names``: the live
    updates build every watcher's view from one loaded round this way. ``state``: the
    table's state built from the same round and names (a money request's, for its
    watchers); the view is then made of the parts its watchers are shown."""
    if state is not None and state.loaded is loaded and state.names is names:
        mine = _seats_by_user(state, loaded).get(user_id)
        return {**_common(state, loaded), **_personal_part(state, loaded, mine)}
    return {**common_view(loaded), **personal_view(loaded, user_id, names)}


def common_view(loaded: LoadedRound) -> dict[str, Any]:
    """The part of a round's view that every watcher sees alike (no hidden card)."""
    record, state = loaded.record, loaded.state
    view: dict[str, Any] = {
        "id": record.id, "table": record.table_id, "number": record.number,
        "rules": loaded.rules.id,
        "fingerprint": record.fingerprint, "currency": record.currency,
        "phase": state.phase.value, "commitment": record.commitment,
        "client_seed": record.client_seed, "to_act": state.to_act,
        "deadline": aware(record.deadline).isoformat() if record.deadline else None,
        "log": [action_to_json(action) for action in state.log],
        "created_at": aware(record.created_at).isoformat(),
    }
    if loaded.shared:
        view["client_seeds"] = {str(item.seat): item.client_seed for item in loaded.seats}
    if state.phase is Phase.COMPLETE:
        view["seed"] = record.server_seed
        view["completed_at"] = (aware(record.completed_at).isoformat()
                                if record.completed_at else None)
        view |= rules_text_field(loaded.rules.id)
    return view


def personal_view(loaded: LoadedRound, user_id: int, names: dict[int, str],
                  seats: SeatViews | None = None) -> dict[str, Any]:
    """The part of a round's view that is ``user_id``'s own: their seat, cards, options
    and results, and what they may see of the others (``seats``: :func:`seat_views`,
    made once for every watcher of one state)."""
    return _personal(loaded, loaded.seat_of(user_id), names, seats)


def _personal(loaded: LoadedRound, mine: RoundSeat | None, names: dict[int, str],
              seats: SeatViews | None) -> dict[str, Any]:
    """:func:`personal_view` of the player of the seat ``mine`` (None: not in the round)."""
    state = loaded.state
    seat = mine.seat if mine else None
    hand = state.seats.get(seat) if seat is not None else None
    choices, raise_range = options(state, seat) if seat is not None else ([], None)
    view: dict[str, Any] = {
        "seat": seat, "wagers": dict(hand.wagers) if hand else {},
        "decisions": list(hand.decisions) if hand else [], "options": choices,
        "staked": mine.staked if mine else 0,
        "cards": {**(seat_cards(state, seat, True) if seat is not None else {}),
                  **table_cards(state)},
    }
    if state.steps.colours:
        view["colour"] = hand.colour if hand else None
    if raise_range:
        view["raise_range"] = raise_range
    if mine is None or len(loaded.seats) > 1:  # needs_names
        every = seats if seats is not None else seat_views(loaded, names)
        view["others"] = [other for number, other in every if number != seat]
    if state.phase is Phase.COMPLETE and mine is not None:
        view |= _complete_fields(loaded, mine)
    return view


def _complete_fields(loaded: LoadedRound, mine: RoundSeat) -> dict[str, Any]:
    settlement = loaded.state.seats[mine.seat].settlement
    assert settlement is not None
    return {
        "results": dict(settlement.results), "total": settlement.total,
        "capped": settlement.capped, "settlement": settlement.as_json(),
        "balance_before": mine.balance_before, "balance_after": mine.balance_after,
        "payout_request": loaded.state.steps.payout_request(loaded.state, mine.seat),
    }


# --- recall ------------------------------------------------------------------------------------

def recall(loaded: LoadedRound, mine: RoundSeat) -> dict[str, Any]:
    """The round step by step as the seat ``mine`` saw it: after each event, the cards
    then visible, its stake so far and its balance, ending with the results."""
    steps = []
    staked, balance = 0, mine.balance_before
    partial = HandState(loaded.rules, loaded.state.deck)
    for action in loaded.state.log:
        partial.apply(action)
        stake = partial.stake_of(action) if getattr(action, "seat", None) == mine.seat else 0
        staked += stake
        balance -= stake
        if partial.phase is Phase.COMPLETE and mine.balance_after is not None:
            balance = mine.balance_after
        steps.append(_step(partial, action, mine.seat, staked, balance))
    return {"id": loaded.record.id, "rules": loaded.rules.id,
            "phase": loaded.state.phase.value, "balance_before": mine.balance_before,
            "balance_after": mine.balance_after, "steps": steps,
            **rules_text_field(loaded.rules.id)}


def rules_text_field(rules_id: str) -> dict[str, str]:
    """``rules_toml``: a published rule set's whole text, so that ``feltlab verify`` checks
    the round offline, where only the built-in rule sets are known (none for a built-in)."""
    text = registry.published_text(rules_id)
    return {} if text is None else {"rules_toml": text}


def _step(state: HandState, action: Action, seat: int, staked: int, balance: int
          ) -> dict[str, Any]:
    cards = {**seat_cards(state, seat, True), **table_cards(state)}
    step: dict[str, Any] = {"action": action_to_json(action), "phase": state.phase.value,
                            "cards": cards, "staked": staked, "balance": balance}
    if state.phase is Phase.COMPLETE:
        settlement = state.seats[seat].settlement
        if settlement is not None:
            step["results"], step["total"] = dict(settlement.results), settlement.total
    return step


# --- the live state of a table ------------------------------------------------------------------

@dataclass(frozen=True)
class TableState:
    """What every watcher of a table shares at one announcement: built once per worker,
    then each watcher's view is cut from it without another database read."""

    stamp: int
    owner_id: int | None
    shared: bool
    view: dict[str, Any]
    loaded: LoadedRound | None
    names: dict[int, str]
    version: tuple[object, ...]
    encoded: dict[object, str] = field(default_factory=dict, compare=False)
    """Its JSON, encoded once: the parts every watcher shares, and each seat's message."""
    seat_numbers: dict[int, int] | None = None
    """A state another worker sent (:func:`state_from_wire`): who sits in which seat of
    its round, its messages all in ``encoded`` and no ``loaded`` round."""
    phase: str | None = None
    """Its round's phase (None: the table has had no round)."""
    memo: dict[object, Any] = field(default_factory=dict, compare=False)
    """What its messages are made of, made once: its round's seats by player, the views
    of its seats (:func:`seat_views`), its common part and each seat's own part."""

    @property
    def order(self) -> tuple[int, int]:
        """Where the state stands among the table's changes: its round's id and events.
        Every change of a round appends to its log and a new round has a higher id, so of
        two states of a table the later money change has the greater order."""
        round_id, events = self.version[2], self.version[3]
        return (round_id if isinstance(round_id, int) else 0,
                events if isinstance(events, int) else 0)


@dataclass(frozen=True)
class Fresh:
    """A table state built by the transaction that changed the table, with the worker's
    announcement count for the table seen while the table was locked: it becomes the
    table's live state at once if nothing else was announced meanwhile."""

    seen: int
    state: TableState


def table_state(table: GameTable, sitting: list[tuple[int, str]] | None,
                loaded: LoadedRound | None, names: dict[int, str], stamp: int = -1
                ) -> TableState:
    """The table's state with ``loaded`` as its current round (the unfinished one, or
    between rounds the last one), ``sitting`` its seats (shared tables) and ``names`` the
    round's players."""
    version = (table.status, tuple(sitting or ()),
               None if loaded is None else loaded.record.id,
               None if loaded is None else loaded.events)
    return TableState(stamp, table.owner_id, table.shared, table_json(table, sitting),
                      loaded, names, version,
                      phase=None if loaded is None else loaded.state.phase.value)


def watcher_text(state: TableState, user_id: int) -> str:
    """:func:`watcher_view` as JSON text, encoded once per state for every watcher who
    sees the same (each seat's player; everyone else alike); the table and the round's
    common part are encoded once for all of them and each message spliced from them."""
    loaded = state.loaded
    if loaded is None and state.seat_numbers is not None:  # another worker's: all encoded
        return state.encoded[("seat", state.seat_numbers.get(user_id))]
    if loaded is None:
        return _head(state)
    return _seat_text(state, loaded, _seats_by_user(state, loaded).get(user_id))


def _seats_by_user(state: TableState, loaded: LoadedRound) -> dict[int, RoundSeat]:
    """The round's seats by their players' ids (the first, as ``seat_of``), once a state."""
    found: dict[int, RoundSeat] | None = state.memo.get("by_user")
    if found is None:
        found = state.memo["by_user"] = {seat.user_id: seat for seat in loaded.seats[::-1]}
    return found


def _seat_text(state: TableState, loaded: LoadedRound, mine: RoundSeat | None) -> str:
    """The message of the seat ``mine``'s player (None: anyone not in the round)."""
    key = ("seat", None if mine is None else mine.seat)
    text = state.encoded.get(key)
    if text is None:
        tail = "," + jsontext.dumps_text(_personal_part(state, loaded, mine))[1:] + "}"
        text = state.encoded[key] = _head(state) + tail
    return text


def _personal_part(state: TableState, loaded: LoadedRound, mine: RoundSeat | None
                   ) -> dict[str, Any]:
    key = ("personal", None if mine is None else mine.seat)
    part: dict[str, Any] | None = state.memo.get(key)
    if part is None:
        seats = state.memo.get("seats")
        if seats is None:
            seats = state.memo["seats"] = seat_views(loaded, state.names)
        part = state.memo[key] = _personal(loaded, mine, state.names, seats)
    return part


def _common(state: TableState, loaded: LoadedRound) -> dict[str, Any]:
    common: dict[str, Any] | None = state.memo.get("common")
    if common is None:
        common = state.memo["common"] = common_view(loaded)
    return common


def _head(state: TableState) -> str:
    """The start of every watcher's message: the table and the round's common part (the
    whole message when the table has no round)."""
    head = state.encoded.get("head")
    if head is None:
        table = jsontext.dumps_text(state.view)[:-1] + ',"round":'
        head = state.encoded["head"] = (
            table + "null}" if state.loaded is None
            else table + jsontext.dumps_text(_common(state, state.loaded))[:-1])
    return head


def wire_text(state: TableState) -> str:
    """The state as the table's watchers in another worker see it: lines of JSON (none of
    its texts holds a line break), the first its order and version, who sits in which
    seat and the keys of the seats' endings (``-``: everyone not in the round), then the
    common start of every message and each seat's own ending, each as is (not quoted
    inside another JSON text: no escaping, and a settled round of several seats fits in
    one NOTIFY). Every watcher's message is made here, so this worker's watchers are
    served from the same encoding."""
    loaded = state.loaded
    keys: list[str] = []
    tails: list[str] = []
    seat_numbers: dict[str, int] = {}
    head = _head(state)
    if loaded is not None:
        by_user = _seats_by_user(state, loaded)
        for seat in [None, *loaded.seats]:
            mine = None if seat is None else by_user[seat.user_id]  # as watcher_text finds
            keys.append("-" if seat is None else str(seat.seat))
            tails.append(_seat_text(state, loaded, mine)[len(head):])
            if seat is not None:
                seat_numbers[str(seat.user_id)] = seat.seat
    about = jsontext.dumps_text({
        "owner": state.owner_id, "shared": state.shared, "phase": state.phase,
        "version": list(state.version), "seats": seat_numbers, "tails": keys})
    return "\n".join([about, head, *tails])


def state_from_wire(text: str, stamp: int) -> TableState:
    """A state another worker sent (:func:`wire_text`), to show at ``stamp``."""
    about, head, *tails = text.split("\n")
    wire = jsontext.loads(about)
    if len(tails) != len(wire["tails"]):
        raise ValueError("a live update's state has not one ending for each seat")
    status, sitting, round_id, events = wire["version"]
    version = (status, tuple(tuple(item) for item in sitting), round_id, events)
    encoded: dict[object, str] = {("seat", None if key == "-" else int(key)): head + tail
                                  for key, tail in zip(wire["tails"], tails, strict=True)}
    encoded.setdefault(("seat", None), head)
    seat_numbers = {int(user_id): seat for user_id, seat in wire["seats"].items()}
    return TableState(stamp, wire["owner"], wire["shared"], {}, None, {}, version, encoded,
                      seat_numbers, wire["phase"])


def watcher_view(state: TableState, user_id: int) -> dict[str, Any]:
    """What ``GET /api/v1/tables/{id}`` answers ``user_id`` (the table's current round or,
    between rounds, its last one), from the shared state without a database read."""
    if state.seat_numbers is not None:  # another worker's state: its messages only
        answer: dict[str, Any] = jsontext.loads(watcher_text(state, user_id))
        return answer
    view = dict(state.view)
    view["round"] = None if state.loaded is None else view_of(state.loaded, user_id,
                                                               state.names)
    return view
