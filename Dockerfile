# Hollywood Gin: one process, one worker (table state lives in the process).
#
#   docker build --build-arg COMMIT=$(git rev-parse --short HEAD) -t hollywood-gin .
#
# A pinned base; the dependencies in their own layer (from pyproject.toml, at the
# versions of constraints.txt) before any code, so a code change rebuilds only the
# last layers; then a regular install of the wheel, which carries static/ and
# templates/ inside the package.
ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS wheel
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY constraints.txt pyproject.toml README.md LICENSE ./
COPY hollywood_gin ./hollywood_gin
COPY static ./static
COPY templates ./templates
# PIP_CONSTRAINT also pins the build backend pip fetches for the build.
RUN PIP_CONSTRAINT=/src/constraints.txt pip wheel --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOLLYWOOD_GIN_HOST=0.0.0.0 \
    HOLLYWOOD_GIN_PORT=8000 \
    HOLLYWOOD_GIN_DATA_FILE=/data/tables.sqlite3

COPY constraints.txt pyproject.toml /tmp/deps/
# EXTRAS=postgres adds the PostgreSQL store's driver (deploy/compose.scale-out.yml).
ARG EXTRAS=""
RUN python -c "import os, tomllib; p = tomllib.load(open('/tmp/deps/pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + [d for e in os.environ['EXTRAS'].split(',') if e for d in p['optional-dependencies'][e]]))" > /tmp/deps/requirements.txt \
    && pip install -c /tmp/deps/constraints.txt -r /tmp/deps/requirements.txt \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin gin \
    && mkdir -p /data && chown gin:gin /data

COPY --from=wheel /wheels /tmp/wheels
RUN pip install --no-deps /tmp/wheels/*.whl && rm -rf /tmp/wheels /tmp/deps

# The commit shown in the footer and /healthz (no .git in the image).
ARG COMMIT=""
ENV HOLLYWOOD_GIN_COMMIT=${COMMIT}

USER gin
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000
# Follows HOLLYWOOD_GIN_PORT when it is set at run time.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import os, sys, urllib.request; port = os.environ.get('HOLLYWOOD_GIN_PORT', '8000'); sys.exit(0 if urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=2).status == 200 else 1)"
CMD ["hollywood-gin", "serve"]
