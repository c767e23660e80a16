#!/usr/bin/env bash
# make demo: boot a 3-node cluster (cluster-configs/peers-3.conf), push one
# node to 3x its RAM with a small local pool, show every node's counters
# side by side while it runs, verify every page, and take the cluster down.
#
#   DEMO_CONFIG=FILE  another cluster.conf     DEMO_NODE=N  the loaded node
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER=$TOP/ramster-cluster
CONF=${DEMO_CONFIG:-$TOP/cluster-configs/peers-3.conf}
NODE=${DEMO_NODE:-1}
export RAMSTER_CLUSTER_DIR=$TOP/build/demo
UP=

# The rows of "ramster-cluster stat" that tell the story.
ROWS='^(node|stored_pages|local_pages|pool_total_size|remote_pages|foreign_pages|foreign_pool_size|remote_puts|remote_puts_refused|remote_loads|remote_loads_bad|foreign_gets|reject_pool_limit|link_ups|link_downs) '

cleanup() {
	if [ -n "$UP" ]; then "$CLUSTER" down || true; fi
}

load_line() {
	"$CLUSTER" exec "$NODE" cat /tmp/load.out 2>/dev/null | tr -d '\r' |
		grep 'workload: result' || true
}

main() {
	local mem start line bad
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	echo "demo: cluster $(basename "$CONF"); logs in $RAMSTER_CLUSTER_DIR"
	UP=yes
	"$CLUSTER" up "$CONF"
	mem=$("$TOP/build/host/ramster-conf" get "$CONF" "$NODE" memory)
	echo "demo: node $NODE has $mem MiB; its workload writes $((mem * 3)) MiB and verifies every page"
	"$CLUSTER" exec "$NODE" "/bin/workload -m $((mem * 3)) -p 2 -q > /tmp/load.out 2>&1 &" >/dev/null
	start=$(date +%s)
	while :; do
		line=$(load_line)
		echo "--- $(($(date +%s) - start))s"
		"$CLUSTER" stat | grep -E "$ROWS" || true
		[ -z "$line" ] || break
		if [ $(($(date +%s) - start)) -ge 1200 ]; then
			echo "demo: the workload did not finish in 1200 s"
			exit 1
		fi
		sleep 10
	done
	echo "--- links of node $NODE"
	"$CLUSTER" exec "$NODE" cat /sys/kernel/debug/ramster/links | tr -d '\r'
	echo "--- $line"
	bad=${line##*bad=}
	bad=${bad%% *}
	UP=
	"$CLUSTER" down
	if [ "$bad" = 0 ]; then
		echo "demo: every page verified"
	else
		echo "demo: FAILED: $bad bad pages"
		exit 1
	fi
}

main "$@"
