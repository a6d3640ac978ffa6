# Sourced by bin/demo: the local .env it writes once (config/settings.py reads it).
# The first .env keeps what this run was started with (PORT=8123 REDIS_URL=... bin/demo), so a
# later shell talks to the same port and Redis database.
write_demo_env() {
  local file="$1"
  [ -f "$file" ] && return 0
  say "writing .env (demo settings: DEBUG on, a generated SECRET_KEY, Redis ${REDIS_URL:-redis://127.0.0.1:6379/1}, port ${PORT:-8000})"
  cat > "$file" <<ENV
# Written by bin/demo for a local demo; config/settings.py reads it. The environment wins.
DEBUG=1
SECRET_KEY=$(python -c 'import secrets; print(secrets.token_urlsafe(50))')
# The demo's Redis database (not 0, which other tools on this Redis may use) and web port.
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/1}
PORT=${PORT:-8000}
HOST=${HOST:-127.0.0.1}
ENV
}
