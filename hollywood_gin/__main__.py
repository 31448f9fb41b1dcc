"""`python -m hollywood_gin`: the `hollywood-gin` command (`hollywood_gin.cli`)."""

from hollywood_gin.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
