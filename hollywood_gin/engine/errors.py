"""Typed refusals. Each carries its wire `code` (docs/protocol-guide.md "Errors"), so the web
layer maps an error to a message without ever reading its text.

One family, one root per layer: `Refusal` is the root of all of them; the
engine's are `RuleError`s (here), the tables layer's `TableError`s
(`hollywood_gin.tables.errors`), the web layer's `ApiError`s
(`hollywood_gin.web.errors`, which alone turns any `Refusal` into an answer).
"""


class Refusal(Exception):
    """Base of every typed refusal, in every layer: raising one changes nothing;
    `code` is the wire error code (docs/protocol-guide.md "Errors")."""

    code = "bad_request"


class RuleError(Refusal):
    """Base of every refusal by the engine. Raising one never changes state."""

    code = "illegal_action"


class BadCard(RuleError, ValueError):
    """Card notation that is not rank+suit (`7H`, `TD`, `AS`)."""

    code = "bad_message"


class BadAction(RuleError):
    """An action whose shape is wrong: unknown kind, missing or extra fields."""

    code = "bad_message"


class NotYourTurn(RuleError):
    code = "not_your_turn"


class IllegalAction(RuleError):
    """Well-formed, but the rules do not allow it now."""

    code = "illegal_action"


class StaleVersion(RuleError):
    """The action was chosen on an older state version than the current one."""

    code = "stale_version"


class NotSeated(RuleError):
    code = "not_seated"
