"""Languages: Babel catalogs compiled in memory, wired into Jinja2 and the client.

The `.po` files in `hollywood_gin/locales` are the only source; they are compiled when the
app starts (no `.mo` in the repository). The page script gets its strings as a
JSON dictionary rendered into the page (`client_strings`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES: tuple[str, ...] = ("en", "de", "da", "hu", "et")
DEFAULT_LANGUAGE = "en"
# Each language's name in itself, for the switcher.
LANGUAGE_NAMES: Mapping[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "da": "Dansk",
    "hu": "Magyar",
    "et": "Eesti",
}
LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"
DOMAIN = "messages"


def N_(message: str) -> str:
    """Mark a string for extraction; it is translated later, per request."""
    return message


RANKS = "A23456789TJQK"
SUITS = "CDHS"

# The strings of the table page's script, by the key the script uses. Placeholders
# are `{name}` and are filled in by the script.
# Keys only the replay page uses: the table page goes without them (its weight).
REPLAY_ONLY = ("replay.", "label.", "act.")
# Keys a module fetches when first needed (`hint-words`): the table page goes without.
LATER = ("act.", "hint.")

CLIENT_STRINGS: Mapping[str, str] = {
    # the server was upgraded while this page was open (socket.js)
    "reload.text": N_("A new version of Hollywood Gin is ready."),
    "reload.button": N_("Reload"),
    # card names, spoken ("seven of hearts"); `card` is the pattern
    "card": N_("{rank} of {suit}"),
    "rank.A": N_("ace"),
    "rank.2": N_("two"),
    "rank.3": N_("three"),
    "rank.4": N_("four"),
    "rank.5": N_("five"),
    "rank.6": N_("six"),
    "rank.7": N_("seven"),
    "rank.8": N_("eight"),
    "rank.9": N_("nine"),
    "rank.T": N_("ten"),
    "rank.J": N_("jack"),
    "rank.Q": N_("queen"),
    "rank.K": N_("king"),
    "suit.C": N_("clubs"),
    "suit.D": N_("diamonds"),
    "suit.H": N_("hearts"),
    "suit.S": N_("spades"),
    # what just happened
    "did.take_upcard": N_("{name} took the upcard, the {card}"),
    "did.pass": N_("{name} passed"),
    "did.draw_stock": N_("{name} drew from the stock"),
    "did.draw_discard": N_("{name} took the {card}"),
    "did.discard": N_("{name} discarded the {card}"),
    "did.knock": N_("{name} knocked"),
    "did.next_hand": N_("{name} is ready for the next hand"),
    "did.new_match": N_("{name} wants a rematch"),
    "did.gin": N_("{name} went gin"),
    # the same moves by the player reading them ("You passed", not "{name} passed")
    "you.take_upcard": N_("You took the upcard, the {card}"),
    "you.pass": N_("You passed"),
    "you.draw_stock": N_("You drew from the stock"),
    "you.draw_discard": N_("You took the {card}"),
    "you.discard": N_("You discarded the {card}"),
    "you.knock": N_("You knocked"),
    "you.gin": N_("You went gin"),
    # a move the computer made for a seat (its turn clock ran out, or it stands in
    # while the seat is away): "Bob's time ran out: the computer discarded the 7♥"
    "pc.take_upcard": N_("the computer took the upcard, the {card}"),
    "pc.pass": N_("the computer passed"),
    "pc.draw_stock": N_("the computer drew from the stock"),
    "pc.draw_discard": N_("the computer took the {card}"),
    "pc.discard": N_("the computer discarded the {card}"),
    "pc.knock": N_("the computer knocked"),
    "pc.gin": N_("the computer went gin"),
    "by.timeout": N_("{name}'s time ran out: {move}"),
    "by.timeout_you": N_("Your time ran out: {move}"),
    "by.stand_in": N_("{name} is away: {move}"),
    "by.stand_in_you": N_("You were away: {move}"),
    "deal_you": N_("Hand {n} is dealt. You deal."),
    "you_deal": N_("you deal"),
    "computer_name": N_("Computer ({strength})"),
    "bot_name": N_("{name} (bot)"),
    "bot_badge": N_("bot"),
    "bot_title": N_("A program plays this seat"),
    "bot_note": N_("{name} is a bot: a program chooses its moves, not a person."),
    "holds": N_("{name} holds the {cards}"),
    "pile_by": N_("{name}'s discard"),
    "pile_yours": N_("your discard"),
    "just_drawn": N_("just drawn"),
    "meld_n": N_("Meld {n}"),
    "presence_unknown": N_("not known while you are offline"),
    "offline_me": N_("You are offline: that was not sent. Reconnecting…"),
    "wait_turn": N_("Wait: it is {name}'s turn"),
    "need_draw": N_("Draw a card first: from the stock or the discard pile"),
    "need_stock": N_("Draw a card first: from the stock"),
    "banned_discard": N_("You just took that card: discard another one"),
    "turn_title": N_("Your turn"),
    "invite": N_("{name} invites you to Gin Rummy — {rules}"),
    "choice_deadwood": N_("{card}: deadwood {n}"),
    "confirm.knock_title": N_("Knock?"),
    "confirm.gin_title": N_("Go gin?"),
    "you": N_("You"),
    "turn.upcard": N_("Your turn: take the upcard or pass"),
    "turn.draw": N_("Your turn: draw a card"),
    "turn.discard": N_("Your turn: discard a card"),
    "turn.other": N_("{name}'s turn"),
    "turn.waiting": N_("Waiting for your friend to open the link"),
    "deal": N_("Hand {n} is dealt. {name} deals."),
    # controls
    "take": N_("Take"),
    "pass": N_("Pass"),
    "knock": N_("Knock: deadwood {deadwood}"),
    "gin": N_("Gin"),
    "confirm.knock": N_("Knock by discarding the {card}, with {deadwood} deadwood?"),
    "confirm.gin": N_("Go gin by discarding the {card}?"),
    "confirm.yes": N_("Yes"),
    "confirm.no": N_("Cancel"),
    "stock": N_("Stock, {n} cards. Draw from the stock"),
    "stock_plain": N_("Stock, {n} cards"),
    "discard_pile": N_("Discard pile, {card} on top. Take it"),
    "discard_plain": N_("Discard pile, {card} on top"),
    "discard_empty": N_("Discard pile, empty"),
    "deadwood": N_("Deadwood: {n}"),
    "cards_count.one": N_("{n} card"),
    "cards_count.other": N_("{n} cards"),
    "your_hand": N_("Your hand"),
    "hand_of": N_("{name}'s hand"),
    "meld": N_("Meld"),
    "online": N_("online"),
    "offline": N_("offline"),
    "offline_waits": N_("{name} is offline — the game waits"),
    "strength.easy": N_("easy"),
    "strength.normal": N_("normal"),
    "strength.hard": N_("hard"),
    # the other rungs of the computer ladder, by name (bots.ladder)
    "strength.rookie": N_("Rookie"),
    "strength.knocker": N_("Knocker"),
    "strength.gin": N_("Gin hunter"),
    "strength.magpie": N_("Magpie"),
    "strength.cautious": N_("Cautious"),
    "reconnecting": N_("Reconnecting…"),
    "copied": N_("Link copied"),
    "copy_failed": N_("Select the link and copy it"),
    "moved": N_("{card} moved to place {n}"),
    "dealer": N_("dealer"),
    "knock_limit": N_("knock limit {n}"),
    # hand end
    "outcome.gin": N_("{name} went gin"),
    "outcome.knock": N_("{name} knocked and won"),
    "outcome.undercut": N_("{name} undercut {knocker} and wins the hand"),
    "outcome.draw": N_("The hand is a draw: no points, the same dealer deals again"),
    "points.one": N_("{name} scores 1 point"),
    "points.other": N_("{name} scores {points} points"),
    "math.gin": N_("Gin: {d} + {bonus} = {points}"),
    "math.knock": N_("Knock: {d} − {k} = {points}"),
    "math.undercut": N_("Undercut: {k} − {d} + {bonus} = {points}"),
    "math.draw": N_("Draw: no points, same dealer"),
    "layoffs": N_("{name}'s deadwood: {before} → {after} after laying off the {cards}"),
    "no_layoffs": N_("{name} had nothing to lay off"),
    # a finished game and the games so far, as a person says them (the counts by
    # the language's plural rules, Intl.PluralRules)
    "game_won": N_("{name} wins game {n}, {a} to {b}"),
    "game_won_you": N_("You win game {n}, {a} to {b}"),
    "games_lead.one": N_("{name} leads, {n} game to {b}"),
    "games_lead.other": N_("{name} leads, {n} games to {b}"),
    "games_lead_you.one": N_("You lead, {n} game to {b}"),
    "games_lead_you.other": N_("You lead, {n} games to {b}"),
    "games_level.one": N_("Level at {n} game each"),
    "games_level.other": N_("Level at {n} games each"),
    "bonus.game": N_("game bonus {n}"),
    "bonus.shutout": N_("game bonus {n} (shutout)"),
    "bonus.line.one": N_("line bonus {each} × {n} hand = {total}"),
    "bonus.line.other": N_("line bonus {each} × {n} hands = {total}"),
    "knock_discard": N_("Discarded face down: {card}"),
    "went_into": N_("Points entered in {games}"),
    "went_nowhere": N_("Recorded nowhere: those games are already finished"),
    "deadwood_of": N_("{name}: deadwood {n}"),
    "laid_off": N_("laid off"),
    "knocker": N_("knocker"),
    "seat.0": N_("Player 1"),
    "seat.1": N_("Player 2"),
    "next_hand": N_("Next hand"),
    "wait_for": N_("Waiting for {name} to press Next hand"),
    "waits_for_you": N_("{name} is waiting for you"),
    "rematch": N_("Rematch"),
    "wait_rematch": N_("Waiting for {name} to accept the rematch"),
    "wants_rematch": N_("{name} wants a rematch"),
    "match_winner": N_("{name} wins the match"),
    "match_drawn": N_("The match ends level"),
    "you_win.match": N_("You win the match"),
    "you_win.game": N_("You win the game"),
    "you_win.hand": N_("You win the hand"),
    "wins.game": N_("{name} wins the game"),
    "wins.hand": N_("{name} wins the hand"),
    "games_to.one": N_("{n} game to {b}"),
    "games_to.other": N_("{n} games to {b}"),
    "show_table": N_("Show the table"),
    "show_result": N_("Show the result"),
    # the bonuses of a finished game, as a table
    "bonus.game_row": N_("Game bonus"),
    "bonus.line_row": N_("Line bonus"),
    "shutout": N_("shutout"),
    # the match summary
    "summary.title": N_("Match summary"),
    "summary.title_game": N_("Game summary"),
    "summary.won": N_("Hands won"),
    "summary.gins": N_("Gins"),
    "summary.undercuts": N_("Undercuts"),
    "summary.best": N_("Best hand"),
    "summary.knock_deadwood": N_("Average deadwood at a knock"),
    "summary.kind.gin": N_("gin"),
    "summary.kind.knock": N_("knock"),
    "summary.kind.undercut": N_("undercut"),
    "summary.played": N_("Hands played: {n}"),
    "summary.time": N_("Time played: {time}"),
    "time.min": N_("{m} min"),
    "time.h_min": N_("{h} h {m} min"),
    "fingerprint": N_("Deck fingerprint: {hash}"),
    "verified": N_("Deck verified: it matches the fingerprint shown at the deal"),
    "not_verified": N_("Warning: the deck does not match the fingerprint"),
    # The check of the deal after the hand (docs/protocol-guide.md "Deals nobody can choose").
    "deal_checked": N_("Deal checked: shuffled with your secret"),
    "deal_warning": N_("Warning: the deal check failed: {what}"),
    "deal_problem.commitment": N_(
        "the server's secret is not the one it committed to before the deal"
    ),
    "deal_problem.entropy": N_("your secret was not used"),
    "deal_problem.deck": N_("the deck is not the one the secrets give"),
    "deal_problem.fingerprint": N_("the deck does not match the fingerprint shown at the deal"),
    "download": N_("Download hand {n} (JSON)"),
    # sheet
    "game_n": N_("Game {n}"),
    "won_by": N_("won by {name}"),
    "game_in": N_("game {n}"),
    "bonus": N_("Bonus"),
    "total": N_("Total"),
    "sheet.points": N_("Points"),
    "sheet.print": N_("Print the score sheet"),
    # the replay of a finished hand and its review (docs/protocol-guide.md "Hand review")
    "review_link": N_("Review hand {n}"),
    "review_hands": N_("Review a hand:"),
    "replay.step": N_("Move {n} of {total}"),  # replay.*, label.*, act.*: the replay page only
    "replay.ready": N_("The coach has looked at every decision of this hand."),
    "replay.failed": N_("The coach could not review this hand. Reload the page to try again."),
    "label.inaccuracy": N_("Inaccuracy"),
    "label.mistake": N_("Mistake"),
    "label.blunder": N_("Blunder"),
    "act.take_upcard": N_("take the upcard"),
    "act.pass": N_("pass"),
    "act.draw_stock": N_("draw from the stock"),
    "act.draw_discard": N_("take from the discard pile"),
    "act.discard": N_("discard the {card}"),
    "act.knock": N_("knock, discarding the {card}"),
    "replay.played": N_("Played: {action} ({ev} points expected)."),
    "replay.better": N_("Better: {action} ({ev} points expected)."),
    "replay.best_same": N_("The coach agrees."),
    "replay.verdict": N_(
        "Costliest decision, move {n}: “{best}” was worth {loss} points more than “{played}”."
    ),
    "replay.verdict_clean": N_("No costly decision by {name}: this hand was down to the cards."),
    "replay.loss": N_("{name} lost {loss} points to decisions ({marks})."),
    "replay.luck": N_(
        "Luck: deadwood dealt {mine} against {theirs}; the stock lowered it by {gain}"
        " against {ogain}."
    ),
    "replay.quiz_prompt": N_("Move {n}: what would you play?"),
    "replay.quiz_right": N_("Yes: “{best}” is the coach's choice ({ev} points expected)."),
    "replay.quiz_cost": N_(
        "Not the best: “{pick}” ({pev}) costs {cost} points against the coach's choice,"
        " “{best}” ({bev})."
    ),
    "replay.quiz_played": N_("Played in the game: “{played}” ({cev})."),
    "replay.quiz_as_played": N_("That is the move played in the game."),
    "replay.quiz_none": N_("{name} made no marked decision in this hand."),
    "replay.quiz_wait": N_("The coach is still looking at this hand; try again in a moment."),
    "replay.quiz_done": N_("That was the last marked decision."),
    # errors by code (docs/protocol-guide.md "Errors")
    "error.bad_message": N_("The server did not understand that."),
    "error.not_seated": N_("You are watching; only players can do that."),
    "error.not_your_turn": N_("It is not your turn."),
    "error.illegal_action": N_("That move is not allowed now."),
    "error.stale_version": N_("The table moved on; here is the current state."),
    "error.unknown_table": N_("This table does not exist."),
    "error.rate_limited": N_("Too many messages; slow down a little."),
    "error.too_large": N_("That message was too large."),
    "error.table_full": N_("Both seats are taken; you can watch."),
    "error.other": N_("Something went wrong. Please try again."),
    # the coach's hint at a table with the computer (hint.js, with `act.*`: LATER)
    "hint.thinking": N_("The coach is thinking…"),
    "hint.best": N_("The coach's choice: {action}"),
    "hint.choice": N_("{action}: {ev} points"),
    "hint.note": N_("Expected points for this hand, worked out from the cards you can see."),
    # around the match (static/js/ending.js)
    "reaction.hello": N_("Hello!"),
    "reaction.gg": N_("Good game"),
    "reaction.nice": N_("Nice one!"),
    "reaction.thanks": N_("Thanks"),
    "reaction.oops": N_("Oops"),
    "reaction.thinking": N_("Thinking…"),
    "reaction.hurry": N_("Your turn!"),
    "reaction.rematch": N_("Rematch?"),
    "reactions": N_("Reactions"),
    "reactions_mute": N_("Hide {name}'s reactions"),
    "away_for": N_("{name} left {time} ago"),
    "claim_in": N_("you can claim in {time}"),
    "away_timeouts.one": N_("{name} let the clock run out {n} time in a row"),
    "away_timeouts.other": N_("{name} let the clock run out {n} times in a row"),
    "endings_open": N_(
        "You can claim the match, let the computer play for {name} until they are back, or wait."
    ),
    "endings_claim_only": N_("You can claim the match, or wait."),
    "claim": N_("Claim the match"),
    "stand_in": N_("Let the computer play for {name}"),
    "resign": N_("Resign"),
    "confirm_resign_title": N_("Resign the match?"),
    "confirm_resign_text": N_("{name} will win the match. This cannot be undone."),
    "confirm_claim_title": N_("Claim the match?"),
    "confirm_claim_text": N_("You win the match because {name} is away. This cannot be undone."),
    "keep_playing": N_("Keep playing"),
    "stand_in_on": N_("The computer plays for {name} until they are back"),
    "ended.resign": N_("{name} resigned."),
    "ended.resign_you": N_("You resigned."),
    "ended.claim": N_("{name} claimed the match while {other} was away."),
    "ended.claim_you": N_("You claimed the match while {other} was away."),
    "clock_left": N_("Time left to move: {time}"),
    "clock_hurry": N_("10 seconds left to move"),
    # a table played over days (ending.js): whose move, the time left; the tab's title
    "days.mine": N_("Your move · {time} left"),
    "days.theirs": N_("Waiting for {name} · {time} left"),
    "days.late_you": N_("Your time to move has run out."),
    "days.late": N_("{name} has run out of time to move."),
    "move_title": N_("Your move"),
    # The record between the two seats of this table (`table.matches_won`): {a}–{b}
    # the leader's matches first, `n` (the plural) the matches played so far.
    "record.lead.one": N_("{name} leads {other} {a}–{b} after one match"),
    "record.lead.other": N_("{name} leads {other} {a}–{b} in matches"),
    "record.lead_you.one": N_("You lead {other} {a}–{b} after one match"),
    "record.lead_you.other": N_("You lead {other} {a}–{b} in matches"),
    "record.trails_you.one": N_("{name} leads you {a}–{b} after one match"),
    "record.trails_you.other": N_("{name} leads you {a}–{b} in matches"),
    "record.level.other": N_("{name} and {other} are level at {a}–{a} in matches"),
    "record.level_you.other": N_("You and {other} are level at {a}–{a} in matches"),
    # "Notify me" (Web Push): its state beside the button (invite.js)
    "notify.on": N_("Notifications are on for this table."),
    "notify.blocked": N_("Notifications are blocked in this browser's settings."),
    "notify.ios": N_("On iPhone and iPad, add this site to the home screen first."),
    "notify.failed": N_("Notifications could not be turned on."),
}


class Catalogs:
    """The compiled catalogs of every language, read once at start-up."""

    def __init__(self, locales_dir: Path = LOCALES_DIR) -> None:
        self._translations: dict[str, Translations] = {}
        for lang in LANGUAGES:
            po_path = locales_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
            self._translations[lang] = compile_po(po_path, lang)

    def translations(self, lang: str) -> Translations:
        return self._translations[lang]

    def gettext(self, lang: str, message: str) -> str:
        return str(self._translations[lang].gettext(message))

    def client_strings(self, lang: str, skip: tuple[str, ...] = ()) -> dict[str, str]:
        """The client's strings in `lang`; `skip`: prefixes of keys the page never uses."""
        return {
            key: self.gettext(lang, msgid)
            for key, msgid in CLIENT_STRINGS.items()
            if not key.startswith(skip)
        }


def compile_po(po_path: Path, lang: str) -> Translations:
    """Compile one `.po` file to an in-memory `.mo` and load it."""
    with po_path.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(fp=buffer, domain=DOMAIN)


def negotiate(accept_language: str | None) -> str | None:
    """The best of our languages for an `Accept-Language` header, or None."""
    if not accept_language:
        return None
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGUAGES and quality > 0:
            # Sort by quality, then by the order the browser listed them.
            ranked.append((-quality, position, primary))
    return min(ranked)[2] if ranked else None
