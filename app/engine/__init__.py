"""The rules engine: pure Gin Rummy, no I/O, no asyncio, no web imports."""
