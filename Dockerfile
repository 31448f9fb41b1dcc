# Hollywood Gin: one process, one worker (table state lives in the process).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HOLLYWOOD_GIN_HOST=0.0.0.0 \
    HOLLYWOOD_GIN_PORT=8000 \
    HOLLYWOOD_GIN_DATA_FILE=/data/tables.sqlite3

WORKDIR /srv/hollywood-gin
COPY pyproject.toml README.md LICENSE ./
COPY app ./app
COPY static ./static
COPY templates ./templates
# Editable install keeps templates/ and static/ beside the package.
RUN pip install -e . \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin gin \
    && mkdir -p /data && chown gin:gin /data

USER gin
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"
CMD ["python", "-m", "app"]
