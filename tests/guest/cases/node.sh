#!/bin/sh
# A cluster node (started by ramster-cluster): network, swap and ramster
# from cluster.conf, then a command agent on the second virtio console
# until the host says "poweroff".
#
# Kernel command line: ramster_conf=FILE (in /etc/ramster) ramster_node=N
# [ramster_params=NAME=VALUE,...] (more module parameters, for
# /bin/ramster-node, which loads ramster)
conf=
node=
# shellcheck disable=SC2013  # the command line is words, not lines
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	ramster_conf=*) conf=/etc/ramster/${arg#ramster_conf=} ;;
	ramster_node=*) node=${arg#ramster_node=} ;;
	esac
done
ip=$(/bin/ramster-conf get "$conf" "$node" ip_address) || exit 1
name=$(/bin/ramster-conf get "$conf" "$node" name)

# /tmp in ramfs: the agent's and the tests' small files must not swap
# (with a dead peer, a swapped tmpfs page reads as an I/O error).
mount -t ramfs ramfs /tmp
hostname "$name"
ip link set lo up
ip link set eth0 up
ip addr add "$ip/24" dev eth0
swap_on
/bin/ramster-node load
echo "RAMSTER-NODE: $name (node $node) up at $ip"

# The agent (tests/guest/ramster-agent.c): "<id> <command>" in, the
# command's output and "@@RAMSTER-END <id> <status>" out, until the host
# says "poweroff"; then it swaps off and powers the node off itself.  It
# locks its memory: if a peer dies with pages of this node, processes
# whose pages were there die, and the agent must not be one of them.
stty raw -echo < /dev/hvc0
exec /bin/ramster-agent /dev/hvc0 "$name"
