#!/bin/sh
# One re-read benchmark run: bench_mode=none|cleancache|pair.  A file set
# of twice the RAM on the ext4 data disk 0, created, evicted, then read
# twice (the second time shuffled), each pass timed; with cleancache,
# ramster is loaded (its local tier) and the second pass finds pages in
# cleancache.  pair: run in node 1 of a cluster (ramster-cluster exec,
# bench_mode in the environment; ramster loaded by the node, clean pages
# remotified to node 2), remote2 counts pass 2's gets from the peer.
# Run by tests/bench.sh, not by tests/run.sh (no "# results:" header).
mode=${bench_mode:-none}
# shellcheck disable=SC2013  # the command line is words, not lines
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bench_mode=*) mode=${arg#bench_mode=} ;;
	esac
done
[ "$mode" = cleancache ] && load_ramster
mount_data 0 /mnt || echo "cannot mount data disk 0"
dev=$(data_disk 0)
mkdir -p /mnt/set
files=$(( $(ram_mib) * 2 / 4 ))
/bin/fileset create /mnt/set "$files" 1024 3
evict
s0=$(sectors_read "$dev")
g0=$(cc_stat succ_gets)
/bin/fileset read /mnt/set "$files" 1024 3 forward > /tmp/pass1; rc1=$?
s1=$(sectors_read "$dev")
g1=$(cc_stat succ_gets)
r1=$(stat_of clean_remote_gets 2>/dev/null || echo 0)
/bin/fileset read /mnt/set "$files" 1024 3 shuffled > /tmp/pass2; rc2=$?
s2=$(sectors_read "$dev")
g2=$(cc_stat succ_gets)
r2=$(stat_of clean_remote_gets 2>/dev/null || echo 0)
show_stats
ms() { sed -n 's/.* ms=\([0-9]*\).*/\1/p' "$1"; }
rc=$((rc1 + rc2))
echo "BENCH: mode=$mode rc=$rc pass1_ms=$(ms /tmp/pass1) pass2_ms=$(ms /tmp/pass2) pages=$((files * 1024)) hits1=$((g1 - g0)) hits2=$((g2 - g1)) sectors1=$((s1 - s0)) sectors2=$((s2 - s1)) remote2=$((r2 - r1))"
umount /mnt
