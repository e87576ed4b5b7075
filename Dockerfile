# Nanjing Mahjong referee: the Telegram bot, ledger on a volume (docker-compose.yml; docs/operating.md).
# The base image: docker-compose.yml builds on python:3.11-slim pinned by digest (PYTHON_IMAGE there),
# so a rebuild gets the same Python and Debian until the pin is moved on purpose (docs/operating.md,
# "Upgrading"). A bare `docker build` takes the tag unless given --build-arg PYTHON_IMAGE=…@sha256:…
# (the tag is the default so that a local stand-in or a mirror's copy under that name builds too).
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFEREE_DB=/data/referee.sqlite3 \
    HEARTBEAT_FILE=/tmp/referee.alive \
    LISTEN=0.0.0.0 \
    PORT=8443

# The user and the ledger's folder come before the code, so they stay cached. (The charts' CJK font
# comes with the dependencies: paperang-p2-fonts-cjk, in requirements.lock; bot/views/plot.py.)
RUN useradd --create-home --uid 10001 referee \
    && mkdir -p /data \
    && chown referee:referee /data

WORKDIR /app
# The dependencies in a layer of their own, before the code: pinned, every file checked against its
# hash (requirements.lock, the same pins CI tests with), so a code change reinstalls nothing.
COPY requirements.lock ./
RUN pip install --require-hashes --no-deps -r requirements.lock

COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
COPY locales ./locales
# The project itself: its dependencies and build tools are already there (from the lock).
RUN pip install --no-deps --no-build-isolation .

USER referee
VOLUME ["/data"]
# The webhook (set WEBHOOK_URL; long polling, the default, listens on nothing). Publish it only to
# the TLS reverse proxy in front of it.
EXPOSE 8443

# `python -m bot health`: healthy while the bot takes updates in and processes them (it touches
# HEARTBEAT_FILE after every long poll, at least every 30 s even while Telegram is unreachable, or
# every 15 s while the webhook listens, and only while its workers finish updates) and no update has
# waited in the inbox longer than BACKLOG_MAX_AGE. A stale heartbeat (90 s) is unhealthy.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "health"]

# TELEGRAM_BOT_TOKEN must be given at run time (an env file, docker-compose.yml); without it `run`
# exits 2 naming it, and a restart policy shows it in `docker compose logs`.
CMD ["python", "-m", "bot", "run"]
