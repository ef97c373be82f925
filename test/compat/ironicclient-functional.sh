#!/usr/bin/env bash
# python-ironicclient's own functional tests (the `openstack baremetal` CLI against a live Ironic:
# nodes, node fields, negative cases, power and provision states, ports, portgroups, chassis,
# allocations, deploy templates, drivers, conductors), as Debian's python3-ironicclient ships them,
# run against Ironless or against the reference Ironic 21.4, noauth.
#
#   test/compat/ironicclient-functional.sh ironless [DIR]   # starts `npm start` on a free port, in memory, no fleet
#   test/compat/ironicclient-functional.sh ironic [DIR]     # starts test/compat/reference/ironic.sh
#   test/compat/ironicclient-functional.sh URL [DIR]        # an API already running, e.g. http://127.0.0.1:6385
#
# Writes DIR/run.log (stestr's output) and DIR/results.txt ("ok|FAILED|SKIPPED test-id", sorted);
# DIR defaults to a new temporary folder. Every test in ironicclient-functional.expected (the tests
# that pass against Ironic 21.4) must pass: the script lists those that did not and exits 1.
# CONCURRENCY (default 2) sets stestr's workers; FILTER, a regular expression, runs only the tests
# whose ids match it and checks only those of the expected list (e.g. FILTER=driver_basic).
# Needs Debian's python3-ironicclient, python3-openstackclient, python3-tempest and python3-stestr
# (and ironic-api ironic-conductor for `ironic`). The whole run takes a long time: every test
# starts the client several times.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
target=${1:?usage: ironicclient-functional.sh ironless|ironic|URL [DIR]}
dir=${2:-$(mktemp -d -t ironicclient-functional.XXXXXX)}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
py=/usr/bin/python3
tests=/usr/lib/python3/dist-packages/ironicclient/tests/functional
[ -d "$tests" ] || { echo "$tests not found: apt-get install python3-ironicclient python3-openstackclient python3-tempest python3-stestr" >&2; exit 2; }
"$py" -c 'import stestr, tempest.lib' 2>/dev/null || { echo "apt-get install python3-stestr python3-tempest" >&2; exit 2; }

free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

stack_pid=""
cleanup() {
  if [ -n "$stack_pid" ]; then
    kill "$stack_pid" 2>/dev/null || true
    wait "$stack_pid" 2>/dev/null || true
  fi
  if [ "$target" = ironic ]; then "$repo/test/compat/reference/ironic.sh" stop "$dir/ironic" || true; fi
}
trap cleanup EXIT

case "$target" in
  ironless)
    port=$(free_port)
    echo "starting Ironless on port $port (log: $dir/ironless.log)"
    # The project's Node 22 itself (not npx, whose tsx runs the stack in a child process a kill of
    # npx would leave running), so that stopping this pid stops the stack.
    node="$repo/node_modules/.bin/node"
    [ -x "$node" ] || { echo "$node not found: run npm ci first" >&2; exit 2; }
    (cd "$repo" && exec "$node" --import tsx --disable-warning=ExperimentalWarning bin/ironless.ts local \
      --port "$port" --in-memory --fleet 0 --quiet) >"$dir/ironless.log" 2>&1 &
    stack_pid=$!
    url="http://127.0.0.1:$port"
    for _ in $(seq 1 600); do
      curl -fs "$url/v1/" >/dev/null 2>&1 && break
      kill -0 "$stack_pid" 2>/dev/null || { echo "Ironless did not start; see $dir/ironless.log" >&2; exit 1; }
      sleep 1
    done
    ;;
  ironic)
    port=$(free_port)
    echo "starting Ironic 21.4 on port $port (state: $dir/ironic)"
    url=$("$repo/test/compat/reference/ironic.sh" start "$dir/ironic" "$port")
    ;;
  http://* | https://*) url=$target ;;
  *) echo "unknown target $target: ironless, ironic or a URL" >&2; exit 2 ;;
esac

# The tests run the client from ./.tox/functional/bin (relative to the working directory) and read
# the endpoint from the file IRONICCLIENT_TEST_CONFIG names.
mkdir -p "$dir/.tox/functional/bin"
ln -sf "$(command -v openstack)" "$dir/.tox/functional/bin/openstack"
printf '[functional]\nauth_strategy = noauth\nironic_url = %s\n' "$url" >"$dir/test.conf"

echo "running python-ironicclient's functional tests against $url (output: $dir/run.log)"
start=$(date +%s)
(cd "$dir" && IRONICCLIENT_TEST_CONFIG="$dir/test.conf" "$py" -m stestr --test-path "$tests/osc" \
  --top-dir /usr/lib/python3/dist-packages run --concurrency "${CONCURRENCY:-2}" ${FILTER:+"$FILTER"} >run.log 2>&1) || true
sed -nE 's/^\{[0-9]+\} ([^ ]+) (\[[^]]*\] )?\.\.\. (ok|FAILED|SKIPPED.*)$/\3 \1/p' "$dir/run.log" |
  sed -E 's/^SKIPPED[^ ]* /SKIPPED /' | sort -k2 >"$dir/results.txt"
echo "$(grep -c '^ok ' "$dir/results.txt" || true) passed, $(grep -c '^FAILED ' "$dir/results.txt" || true) failed," \
  "$(grep -c '^SKIPPED ' "$dir/results.txt" || true) skipped in $(($(date +%s) - start)) s"

missing=$(comm -23 <(grep -v '^#' "$here/ironicclient-functional.expected" | sed '/^$/d' | grep -E -- "${FILTER:-.}" | sort) \
  <(sed -n 's/^ok //p' "$dir/results.txt" | sort))
if [ -n "$missing" ]; then
  echo "these tests pass against Ironic 21.4 but did not pass here:"
  echo "$missing"
  exit 1
fi
echo "every test that passes against Ironic 21.4 passed"
