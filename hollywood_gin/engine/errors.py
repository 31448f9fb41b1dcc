"""Typed rule errors. Each carries the wire `code` of PROTOCOL.md, so the web
layer maps an error to a message without ever reading its text."""


class RuleError(Exception):
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
