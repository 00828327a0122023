# détente in a container: one image for the game server (the default command), the
# negotiation server (`detente nego ...`) and bots (`detente bot ...`); docker-compose.yml
# runs all three. Alone (--init: a bot ignores SIGTERM when it is PID 1):
#   docker build -t detente:local . && docker run --init -p 8700:8700 -p 16713:16713 -v detente-data:/data detente:local
#
# Two stages. The first makes the virtual environment /opt/detente: the pinned dependencies
# (requirements/runtime.txt) in a layer of their own, before any source is copied, so that
# an edit of the sources rebuilds only the last layers and downloads nothing; then the wheel
# of the sources, installed without dependencies, and `pip check` to prove the pins cover
# what pyproject.toml asks. The second stage takes that environment alone: no pip, no
# setuptools, no wheel, no sources, no matplotlib (the `report` extra stays out). The build
# stage alone has a C compiler: the wheel carries the engine's compiled core (engine/_core.c,
# issue 19), and the build fails if `detente --version` does not name it.

FROM python:3.11-slim AS build

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY requirements/build.txt requirements/runtime.txt /tmp/requirements/
# gcc for the engine's core, and Python's headers where the base lacks them (a Debian Python)
RUN headers=$(python -c 'import sysconfig; print(sysconfig.get_paths()["include"])') \
    && apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends gcc libc6-dev $([ -f "$headers/Python.h" ] || echo python3-dev) > /dev/null \
    && rm -rf /var/lib/apt/lists/* \
    && python -m venv /opt/build \
    && /opt/build/bin/pip install --quiet -r /tmp/requirements/build.txt \
    && python -m venv /opt/detente \
    && /opt/detente/bin/pip install --quiet -r /tmp/requirements/runtime.txt

# Not editable: the wheel carries the packages and their data (map, grammars, page).
COPY . /tmp/detente-src
RUN /opt/build/bin/pip wheel --quiet --no-deps --no-build-isolation --wheel-dir /tmp/wheels /tmp/detente-src \
    && /opt/detente/bin/pip install --quiet --no-deps --no-index /tmp/wheels/detente-*.whl \
    && /opt/detente/bin/pip check \
    && /opt/detente/bin/detente adjudicate example > /dev/null \
    && /opt/detente/bin/detente --version | grep -F "engine core: compiled C" \
    && /opt/detente/bin/python -m pip uninstall --quiet --yes pip setuptools


FROM python:3.11-slim

LABEL org.opencontainers.image.title="detente" \
      org.opencontainers.image.description="détente: the Diplomacy game server, negotiation server and bots"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/detente/bin:$PATH

# A user of its own, and /data for the stores and the kept credentials. A named volume
# mounted on /data takes this owner the first time, so the user can write there. No VOLUME
# instruction: it would give every container that mounts nothing there (each bot) an
# anonymous volume; the servers get the named volume from docker-compose.yml or -v.
RUN useradd --create-home --uid 10001 --user-group --shell /usr/sbin/nologin detente \
    && mkdir /data \
    && chown detente:detente /data

COPY --from=build /opt/detente /opt/detente

USER 10001:10001
WORKDIR /data

# 8700: HTTP, the DAIDE websocket and the API; 16713: DAIDE over TCP; 8701: negotiation.
EXPOSE 8700 16713 8701

# slim has no curl: Python asks /healthz (an error status or no answer raises: exit 1).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8700/healthz', timeout=4)"]

# --allowed-hosts: the names the server answers to (the Host header): this machine's loopback and
# the compose service name; reached by another name, say it (--allowed-hosts NAME,... or * for any).
CMD ["detente", "serve", "--host", "0.0.0.0", "--port", "8700", "--daide-port", "16713", "--data-dir", "/data", "--allowed-hosts", "game,127.0.0.1,localhost,::1"]
