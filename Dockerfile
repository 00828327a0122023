# détente in a container: one image for the game server (the default command), the
# negotiation server (`detente nego ...`) and bots (`detente bot ...`); docker-compose.yml
# runs all three. Alone:
#   docker build -t detente:local . && docker run -p 8700:8700 -p 16713:16713 -v detente-data:/data detente:local
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/detente/bin:$PATH

# The README's install, into a virtual environment of its own. Not editable: the sources
# are removed once installed, and the package data (map, grammars) goes with the package.
COPY . /tmp/detente-src
RUN python -m venv /opt/detente \
    && /opt/detente/bin/pip install /tmp/detente-src \
    && rm -rf /tmp/detente-src \
    && detente adjudicate example > /dev/null

# A user of its own, and /data for the stores and the kept credentials. A named volume
# mounted on /data takes this owner the first time, so the user can write there.
RUN useradd --create-home --uid 10001 --user-group --shell /usr/sbin/nologin detente \
    && mkdir /data \
    && chown detente:detente /data
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]

# 8700: HTTP, the DAIDE websocket and the API; 16713: DAIDE over TCP; 8701: negotiation.
EXPOSE 8700 16713 8701

# slim has no curl: Python asks /healthz (an error status or no answer raises: exit 1).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8700/healthz', timeout=4)"]

# --allowed-hosts: the names the server answers to (the Host header): this machine's loopback and
# the compose service name; reached by another name, say it (--allowed-hosts NAME,... or * for any).
CMD ["detente", "serve", "--host", "0.0.0.0", "--port", "8700", "--daide-port", "16713", "--data-dir", "/data", "--allowed-hosts", "game,127.0.0.1,localhost,::1"]
