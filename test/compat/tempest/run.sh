#!/usr/bin/env bash
# Run ironic-tempest-plugin's baremetal API tests (ironic_tempest_plugin.tests.api) against a local
# Ironless stack, or against the reference Ironic 21.4, behind a test-only Keystone v3 stand-in
# (keystone.ts) that hands tempest tokens and a catalog whose `baremetal` endpoint is the target.
#
#   test/compat/tempest/run.sh                       # starts Ironless (in memory, no fleet) on 6585
#   TARGET=ironic test/compat/tempest/run.sh         # starts the reference Ironic 21.4 on 6685 instead
#   ENDPOINT=http://127.0.0.1:6385 test/compat/tempest/run.sh   # an already running noauth stack
#   test/compat/tempest/run.sh 'test_nodes\.'        # only the tests matching a regex (after the api prefix)
#
# Needs Debian's tempest and ironic-tempest-plugin (apt-get install tempest ironic-tempest-plugin).
# PORT (default 6585, or 6685 for TARGET=ironic) and KEYSTONE_PORT (PORT + 2) choose the ports;
# CONCURRENCY (default 2) the tempest workers; WORKSPACE (default a temp dir, kept) where tempest
# runs: tempest/etc/tempest.conf and accounts.yaml, tempest.log, stack.log (or ironic/), keystone.log.
# Exit status is tempest's: 0 when nothing failed. The last lines are tempest's totals.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
target=${TARGET:-ironless}
port=${PORT:-$([ "$target" = ironic ] && echo 6685 || echo 6585)}
keystone_port=${KEYSTONE_PORT:-$((port + 2))}
filter=${1:-}
workspace=${WORKSPACE:-$(mktemp -d /tmp/ironless-tempest-XXXXXX)}
mkdir -p "$workspace"

command -v tempest >/dev/null || { echo "tempest not found: apt-get install tempest ironic-tempest-plugin" >&2; exit 2; }
/usr/bin/python3 -c 'import ironic_tempest_plugin' 2>/dev/null || { echo "ironic-tempest-plugin not found: apt-get install ironic-tempest-plugin" >&2; exit 2; }

# The project's Node 22 (the node@22 devDependency npm ci installs), as the npm scripts use it.
node="$root/node_modules/.bin/node"
[ -x "$node" ] || { echo "$node not found: run npm ci first" >&2; exit 2; }

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ "$target" = ironic ] && [ -z "${ENDPOINT:-}" ]; then bash "$root/test/compat/reference/ironic.sh" stop "$workspace/ironic" || true; fi
}
trap cleanup EXIT

endpoint=${ENDPOINT:-}
if [ -z "$endpoint" ] && [ "$target" = ironic ]; then
  echo "Starting the reference Ironic 21.4 on port $port (state in $workspace/ironic)..."
  endpoint=$(bash "$root/test/compat/reference/ironic.sh" start "$workspace/ironic" "$port" | tail -1)
elif [ -z "$endpoint" ]; then
  echo "Starting Ironless on port $port (in memory, no fleet; log in $workspace/stack.log)..."
  (cd "$root" && exec "$node" --import tsx --disable-warning=ExperimentalWarning bin/ironless.ts local \
    --port "$port" --in-memory --fleet 0 --quiet >"$workspace/stack.log" 2>&1) &
  pids+=($!)
  for _ in $(seq 1 240); do
    grep -q 'is ready at' "$workspace/stack.log" 2>/dev/null && break
    kill -0 "${pids[0]}" 2>/dev/null || { echo "Ironless exited; see $workspace/stack.log" >&2; cat "$workspace/stack.log" >&2; exit 1; }
    sleep 0.5
  done
  grep -q 'is ready at' "$workspace/stack.log" || { echo "Ironless did not come up in 120 s; see $workspace/stack.log" >&2; exit 1; }
  endpoint="http://127.0.0.1:$port"
fi
endpoint=${endpoint%/}

# The newest microversion the target serves becomes tempest's max_microversion.
max_version=$(curl -fs "$endpoint/" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["default_version"]["version"])')
echo "Baremetal API at $endpoint (microversions 1.1 to $max_version)"

"$node" --import tsx "$root/test/compat/tempest/keystone.ts" "$keystone_port" "$endpoint" >"$workspace/keystone.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do curl -fs "http://127.0.0.1:$keystone_port/v3" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fs "http://127.0.0.1:$keystone_port/v3" >/dev/null || { echo "The Keystone stand-in did not start; see $workspace/keystone.log" >&2; exit 1; }

tdir="$workspace/tempest"
[ -d "$tdir/etc" ] || tempest init --workspace-path "$workspace/workspaces.yaml" "$tdir" >/dev/null
# Tempest locks a preprovisioned account per test class: a project admin and a system admin for each
# class that may run at once.
: >"$tdir/etc/accounts.yaml"
for i in $(seq 1 8); do
  cat >>"$tdir/etc/accounts.yaml" <<YAML
- {username: admin-$i, password: secret, project_name: admin, user_domain_name: Default, project_domain_name: Default, roles: [admin]}
- {username: system-admin-$i, password: secret, user_domain_name: Default, system: all, roles: [admin]}
YAML
done
cat >"$tdir/etc/tempest.conf" <<CONF
[DEFAULT]
log_dir = $workspace
log_file = tempest.log
[identity]
uri_v3 = http://127.0.0.1:$keystone_port/v3
auth_version = v3
region = RegionOne
v3_endpoint_type = public
[identity-feature-enabled]
api_v2 = false
[auth]
use_dynamic_credentials = false
test_accounts_file = $tdir/etc/accounts.yaml
admin_role = admin
default_credentials_domain_name = Default
[service_available]
ironic = true
nova = false
neutron = false
glance = false
cinder = false
swift = false
[enforce_scope]
ironic = false
[baremetal]
driver = fake-hardware
endpoint_type = public
min_microversion = 1.1
max_microversion = $max_version
power_timeout = 60
unprovision_timeout = 120
active_timeout = 120
deploywait_timeout = 60
association_timeout = 30
enabled_drivers =
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake
enabled_deploy_interfaces = fake
enabled_rescue_interfaces = fake,no-rescue
enabled_raid_interfaces = fake,no-raid
enabled_management_interfaces = fake
enabled_power_interfaces = fake
CONF

cd "$tdir"
echo "Running ironic_tempest_plugin.tests.api${filter:+ ($filter)} in $workspace..."
status=0
tempest run --concurrency "${CONCURRENCY:-2}" --regex "^ironic_tempest_plugin\.tests\.api\..*${filter}" || status=$?
echo "Workspace (tempest.conf, tempest.log, stack.log): $workspace"
exit "$status"
