# Nanjing Mahjong referee: the Telegram bot, ledger on a volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    REFEREE_DB=/data/referee.sqlite3 \
    MPLCONFIGDIR=/tmp/matplotlib

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
COPY locales ./locales
RUN pip install . \
    && useradd --create-home --uid 10001 referee \
    && mkdir -p /data \
    && chown referee:referee /data

USER referee
VOLUME ["/data"]

# Healthy while the ledger opens and answers a quick integrity check.
HEALTHCHECK --interval=60s --timeout=10s --start-period=30s --retries=3 \
    CMD python -c "import os, sqlite3; c = sqlite3.connect(os.environ['REFEREE_DB']); assert c.execute('PRAGMA quick_check').fetchone()[0] == 'ok'"

# TELEGRAM_BOT_TOKEN must be given at run time (docker run -e TELEGRAM_BOT_TOKEN=...).
CMD ["nanjing-referee"]
