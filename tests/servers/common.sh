# Shared by tests/servers/rgw and tests/servers/nginx (sourced): a free loopback port, the
# SKIPPED-or-fail rule for a server that cannot start, stopping the processes of a pids file.

# A TCP port nobody listens on at 127.0.0.1, as the kernel picks it; it is released before the
# server binds it, so the scripts try again with another when a server finds it taken.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A server that cannot run here: under CI=true the fixture fails (and with it every test that
# needs the server); elsewhere it passes and the tests, finding no env file, say SKIPPED.
cannot_start() {
  echo "$1" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  echo "*** SKIPPED: $1 (under CI=true this fails) ***"
  exit 0
}

# Stops the processes listed in DIR/pids, last started first: each gets SIGTERM and 5 s,
# then SIGKILL (radosgw hangs for minutes when its OSD goes first).
stop_pids() {
  local dir=$1 p i
  [ -f "$dir/pids" ] || return 0
  for p in $(tac "$dir/pids"); do
    kill "$p" 2>/dev/null || continue
    for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  rm -f "$dir/pids"
}

# Waits up to $2 tenths of a second for an HTTP answer at URL $1.
wait_for_http() {
  local i
  for i in $(seq 1 "$2"); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done
  return 1
}
