# Hollywood Gin: one process, one worker (table state lives in the process).
#
#   docker build --build-arg VERSION=$(hollywood-gin --version | cut -d' ' -f2) \
#       --build-arg COMMIT=$(git rev-parse --short HEAD) -t hollywood-gin .
#
# The build context has no .git (.dockerignore): the version and the commit come as
# arguments, from the checkout's `hollywood-gin --version` (the README's venv, no dev
# extra) and git; they end up in the wheel (/healthz, --version, the footer) and in
# the image's OCI labels.
# A pinned base; the dependencies in their own layer (requirements.lock: the versions
# of constraints.txt, every file checked against its sha256) before any code, so a
# code change rebuilds only the last layers; then a regular install of the wheel,
# which carries static/, templates/ and deploy/ inside the package.
ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS wheel
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY constraints.txt requirements.lock pyproject.toml hatch_build.py README.md LICENSE ./
COPY hollywood_gin ./hollywood_gin
COPY static ./static
COPY templates ./templates
# pyproject.toml puts deploy/ into the wheel (hollywood_gin/deploy/): without it the
# build stops at "Forced include not found" (tests/test_docker_context.py).
COPY deploy ./deploy
ARG VERSION=""
ARG COMMIT=""
# PIP_CONSTRAINT also pins the build backend pip fetches for the build (hatchling).
# The wheel's version is the source's own (hollywood_gin/__init__.py); VERSION is only
# the image's label, so a VERSION that is not the source's stops the build rather than
# label the image with a version it does not hold.
RUN HOLLYWOOD_GIN_COMMIT="${COMMIT}" \
    PIP_CONSTRAINT=/src/constraints.txt pip wheel --no-deps --wheel-dir /wheels . \
    && if [ -n "${VERSION}" ] && ! [ -e "/wheels/hollywood_gin-${VERSION}-py3-none-any.whl" ]; then \
        echo "VERSION=${VERSION} is not this source's version: $(ls /wheels)" >&2; exit 1; fi

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOLLYWOOD_GIN_HOST=0.0.0.0 \
    HOLLYWOOD_GIN_PORT=8000 \
    HOLLYWOOD_GIN_DATA_FILE=/data/tables.sqlite3

# The server's dependencies with the postgres extra (the PostgreSQL driver, for
# deploy/compose.scale-out.yml), hash-checked. EXTRAS is accepted for older compose
# files and no longer needed.
ARG EXTRAS=""
COPY requirements.lock /tmp/deps/
RUN pip install --require-hashes --no-deps -r /tmp/deps/requirements.lock \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin gin \
    && mkdir -p /data /backups && chown gin:gin /data /backups

COPY --from=wheel /wheels /tmp/wheels
RUN pip install --no-deps /tmp/wheels/*.whl && rm -rf /tmp/wheels /tmp/deps

ARG VERSION=""
ARG COMMIT=""
# The commit shown in the footer and /healthz (also in the wheel; this one wins).
ENV HOLLYWOOD_GIN_COMMIT=${COMMIT}
LABEL org.opencontainers.image.title="Hollywood Gin" \
      org.opencontainers.image.description="Two-player Gin Rummy in the browser" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"

USER gin
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000
# Follows HOLLYWOOD_GIN_PORT when it is set at run time.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import os, sys, urllib.request; port = os.environ.get('HOLLYWOOD_GIN_PORT', '8000'); sys.exit(0 if urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=2).status == 200 else 1)"
CMD ["hollywood-gin", "serve"]
