#!/usr/bin/env bash
# A private network for a cluster of guests: a network namespace of its
# own, a bridge inside it, and one tap per guest attached to the bridge.
# QEMU runs inside the namespace (ip netns exec), so guest traffic never
# reaches the host's interfaces: the namespace has no route and no uplink.
#
#   netns.sh create NS NODES   create namespace NS with NODES taps
#   netns.sh destroy NS        remove it (idempotent: fine if absent)
#   netns.sh mac NODE          the guest MAC of node NODE (deterministic)
#   netns.sh tap NODE          the tap device name of node NODE
#
# Source it to use the functions directly (netns_create, netns_destroy,
# netns_mac, netns_tap, netns_unique_name).
set -euo pipefail

NETNS_BRIDGE=rbr0

# A name no other run on this machine uses: prefix, PID, time.
netns_unique_name() {
	echo "ramster-${1:-net}-$$-$(date +%s)"
}

# Locally administered unicast MAC, 52:54:00 is QEMU's range.
netns_mac() {
	printf '52:54:00:72:00:%02x\n' "$1"
}

netns_tap() {
	printf 'rtap%d\n' "$1"
}

netns_create() {
	local ns=$1 nodes=$2 n
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip -n "$ns" link add "$NETNS_BRIDGE" type bridge
	# No STP delay: guests talk as soon as their link is up.
	ip -n "$ns" link set "$NETNS_BRIDGE" type bridge forward_delay 0 stp_state 0
	ip -n "$ns" link set "$NETNS_BRIDGE" up
	for n in $(seq 1 "$nodes"); do
		ip netns exec "$ns" ip tuntap add dev "$(netns_tap "$n")" mode tap
		ip -n "$ns" link set "$(netns_tap "$n")" master "$NETNS_BRIDGE"
		ip -n "$ns" link set "$(netns_tap "$n")" up
	done
}

# Deleting the namespace deletes the bridge and taps inside it.  QEMU
# processes must be gone first (they hold the taps open).
netns_destroy() {
	local ns=$1
	if ip netns list | grep -qw -- "$ns"; then
		ip netns delete "$ns"
	fi
}

netns_main() {
	case "${1:-}" in
	create) [ $# -eq 3 ] || exit 2; netns_create "$2" "$3" ;;
	destroy) [ $# -eq 2 ] || exit 2; netns_destroy "$2" ;;
	mac) netns_mac "$2" ;;
	tap) netns_tap "$2" ;;
	*) echo "usage: netns.sh create NS NODES | destroy NS | mac N | tap N" >&2
	   exit 2 ;;
	esac
}

# Run as a command unless sourced.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	netns_main "$@"
fi
