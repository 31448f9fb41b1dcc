"""Play a seat of a Hollywood Gin server with a program (docs/protocol-guide.md "Bots",
docs/bots.md).

A bot is any object with `choose(view, legal)` returning one of `legal`: `view` is
the seat's `hollywood_gin.engine.views.View`, read back from the `state` message the
server sent (`view_from_wire`), and `legal` the play actions open now (engine
`Action`s: `take_upcard`, `pass`, `draw_stock`, `draw_discard`, `discard`,
`knock`). Optional hooks, called when the bot has them: `observe(view)` with every
state, `hand_over(view)` once per finished hand, `match_over(view)` once per
finished match. `next_hand` and `new_match` are sent for the bot.

    from hollywood_gin.client import play
    play("https://gin.example.org/t/abc", MyBot(), name="Robo", matches=3)

`play` joins the table's free seat as a bot (a share link) or plays the seat of a
seat link (`/t/{id}/seat/{token}`), keeps the connection, and returns the number of
matches played. The command `hollywood-gin bot URL --bot module:factory` does the
same from a shell.

This package is a program's side of the wire: it imports the engine and the bots,
never the server's layers (import-linter).
"""

from __future__ import annotations

from hollywood_gin.client import session
from hollywood_gin.client.session import *  # noqa: F403 (the names are session.__all__)

# The package's names are the session module's: one list, kept there.
__all__ = session.__all__
