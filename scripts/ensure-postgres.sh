#!/usr/bin/env bash
# Makes a PostgreSQL server answer on loopback for the tests and exports its URL as
# HINTGATE_TEST_PG_URL. Uses a server already answering on 127.0.0.1:5432 when there is
# one; otherwise installs Debian's postgresql if missing and starts a private cluster on
# a free port under .tmp/, owned by the current user (or by "postgres" when run as root).
set -euo pipefail

pg_answers() { # host port
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && exec 3>&- 3<&-
}

if [ -n "${HINTGATE_TEST_PG_URL:-}" ]; then
  echo "postgres: using HINTGATE_TEST_PG_URL"
  return 0 2>/dev/null || exit 0
fi

if pg_answers 127.0.0.1 5432; then
  export HINTGATE_TEST_PG_URL="postgres://postgres@127.0.0.1:5432/test"
  if command -v psql >/dev/null 2>&1 && ! psql "$HINTGATE_TEST_PG_URL" -Atc 'select 1' >/dev/null 2>&1; then
    # Trust auth with another database or role: fall back to the default database.
    for candidate in "postgres://$(id -un)@127.0.0.1:5432/test" "postgres://postgres@127.0.0.1:5432/postgres"; do
      if psql "$candidate" -Atc 'select 1' >/dev/null 2>&1; then HINTGATE_TEST_PG_URL="$candidate"; break; fi
    done
  fi
  echo "postgres: using the server on 127.0.0.1:5432 ($HINTGATE_TEST_PG_URL)"
  return 0 2>/dev/null || exit 0
fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ]; then
  echo "postgres: not installed; installing Debian's postgresql"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq postgresql >/dev/null
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

root="$(pwd)/.tmp/postgres"
port=55432
while pg_answers 127.0.0.1 "$port"; do port=$((port + 1)); done
run_as=()
if [ "$(id -u)" -eq 0 ]; then run_as=(runuser -u postgres --); fi
mkdir -p "$root"
[ "$(id -u)" -eq 0 ] && chown postgres "$root"
if [ ! -f "$root/data/PG_VERSION" ]; then
  "${run_as[@]}" "$bindir/initdb" -D "$root/data" -U postgres --auth=trust >/dev/null
fi
"${run_as[@]}" "$bindir/pg_ctl" -D "$root/data" -l "$root/server.log" -w \
  -o "-p $port -k $root -c listen_addresses=127.0.0.1" start >/dev/null
"${run_as[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres test 2>/dev/null || true
export HINTGATE_TEST_PG_URL="postgres://postgres@127.0.0.1:$port/test"
echo "postgres: started a private server on 127.0.0.1:$port ($root)"
