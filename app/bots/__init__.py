"""The computer opponent: decides from a seat's view only (depends on the engine alone)."""
