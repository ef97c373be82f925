#!/usr/bin/env bash
# Start a real Ironic 21.4 (Debian's ironic-api and ironic-conductor) on loopback, standalone:
# noauth, fake-hardware, JSON-RPC, SQLite. Used by the differential compat suite, by the peer
# benchmark (test/bench/peer.bench.ts) and by anyone who wants to see what Ironic itself answers.
#
#   test/compat/reference/ironic.sh start DIR PORT   # prints the endpoint when it answers
#   test/compat/reference/ironic.sh stop DIR
#
# IRONIC_EXTRA_CONF, when set, is appended to ironic.conf (later values win: e.g. a [DEFAULT] section
# enabling the direct deploy interface for the virtual agent's compat test).
# IRONIC_DB=mariadb puts Ironic's database in a MariaDB server of its own instead (Debian's
# mariadb-server; data and socket in DIR/mysql, no TCP port), as a production Ironic runs: the
# peer benchmark's setting. `mariadb --socket=DIR/mysql/mysqld.sock ironic` reaches it.
set -euo pipefail

cmd=${1:?usage: ironic.sh start DIR PORT | stop DIR}
dir=${2:?state directory}
port=${3:-6385}

# Stop the two services and their worker processes (ironic-api forks workers, which outlive a
# parent stopped alone): TERM first, KILL whatever is left after a few seconds.
stop() {
  local pids=""
  for pidfile in "$dir"/api.pid "$dir"/conductor.pid; do
    [ -f "$pidfile" ] || continue
    local pid
    pid=$(cat "$pidfile")
    pids="$pids $pid $(pgrep -P "$pid" 2>/dev/null | tr '\n' ' ' || true)"
  done
  [ -n "${pids// /}" ] && kill $pids 2>/dev/null || true
  for _ in $(seq 1 20); do
    local alive=""
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive="$alive $pid"; done
    [ -z "$alive" ] && break
    sleep 0.25
  done
  for pid in $pids; do kill -9 "$pid" 2>/dev/null || true; done
  rm -f "$dir"/api.pid "$dir"/conductor.pid
  if [ -f "$dir/mysql/mysqld.pid" ]; then
    local db
    db=$(cat "$dir/mysql/mysqld.pid")
    kill "$db" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$db" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$db" 2>/dev/null || true
    rm -f "$dir/mysql/mysqld.pid"
  fi
}

# A MariaDB server of Ironic's own in DIR/mysql, on a Unix socket only; prints the connection URL.
start_mariadb() {
  command -v mariadbd >/dev/null || { echo "mariadbd not found: apt-get install mariadb-server" >&2; exit 2; }
  local data="$dir/mysql"
  local sock="$data/mysqld.sock"
  mkdir -p "$data"
  mariadb-install-db --no-defaults --user="$(id -un)" --datadir="$data/data" --auth-root-authentication-method=normal \
    >"$dir/mariadb-install.log" 2>&1
  mariadbd --no-defaults --user="$(id -un)" --datadir="$data/data" --socket="$sock" --skip-networking \
    --pid-file="$data/mysqld.pid" --log-error="$dir/mariadb.log" --innodb-buffer-pool-size=512M \
    --innodb-flush-log-at-trx-commit=2 --max-connections=500 >/dev/null 2>&1 &
  for _ in $(seq 1 120); do
    if mariadb --no-defaults --socket="$sock" -uroot -e 'CREATE DATABASE IF NOT EXISTS ironic CHARACTER SET utf8mb3' 2>/dev/null; then
      echo "mysql+pymysql://root@localhost/ironic?unix_socket=$sock&charset=utf8"
      return 0
    fi
    sleep 0.5
  done
  echo "MariaDB did not come up; see $dir/mariadb.log" >&2
  exit 1
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "unknown command $cmd" >&2; exit 2; }
command -v ironic-api >/dev/null || { echo "ironic-api not found: apt-get install ironic-api ironic-conductor" >&2; exit 2; }

mkdir -p "$dir"
connection="sqlite:///$dir/ironic.sqlite"
if [ "${IRONIC_DB:-sqlite}" = mariadb ]; then connection=$(start_mariadb); fi
rpc_port=$((port + 1000))
cat > "$dir/ironic.conf" <<CONF
[DEFAULT]
auth_strategy = noauth
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake
enabled_console_interfaces = fake,no-console
enabled_deploy_interfaces = fake
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake
enabled_network_interfaces = noop
enabled_power_interfaces = fake
enabled_raid_interfaces = fake,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = noop,fake
enabled_vendor_interfaces = fake,no-vendor
rpc_transport = json-rpc
host = localhost
log_dir = $dir
use_stderr = false
[json_rpc]
auth_strategy = noauth
host_ip = 127.0.0.1
port = $rpc_port
[api]
host_ip = 127.0.0.1
port = $port
api_workers = 1
[dhcp]
dhcp_provider = none
[database]
connection = $connection
[conductor]
automated_clean = true
[oslo_concurrency]
lock_path = $dir/locks
CONF
if [ -n "${IRONIC_EXTRA_CONF:-}" ]; then printf '%s\n' "$IRONIC_EXTRA_CONF" >>"$dir/ironic.conf"; fi

rm -f "$dir/ironic.sqlite"
ironic-dbsync --config-file "$dir/ironic.conf" create_schema >"$dir/dbsync.log" 2>&1
ironic-conductor --config-file "$dir/ironic.conf" >"$dir/conductor.out" 2>&1 &
echo $! >"$dir/conductor.pid"
ironic-api --config-file "$dir/ironic.conf" >"$dir/api.out" 2>&1 &
echo $! >"$dir/api.pid"

for _ in $(seq 1 120); do
  if curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1; then
    # The conductor must have registered before nodes can be created.
    if curl -fs -H 'X-OpenStack-Ironic-API-Version: 1.49' "http://127.0.0.1:$port/v1/conductors" 2>/dev/null | grep -q localhost; then
      echo "http://127.0.0.1:$port"
      exit 0
    fi
  fi
  sleep 0.5
done
echo "Ironic did not come up; see $dir/*.log $dir/*.out" >&2
stop
exit 1
