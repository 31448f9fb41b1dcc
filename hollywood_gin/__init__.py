"""Hollywood Gin: two-player Gin Rummy in the browser."""

__version__ = "0.1.0"
