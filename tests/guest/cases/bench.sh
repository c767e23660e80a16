#!/bin/sh
# One benchmark run, from the kernel command line (or, in a cluster node,
# from the same names in the environment: tests/bench.sh runs it there):
#   bench_mode=disk|zswap|zram|ramster|compress, or in a cluster node
#              nbd|pair (the host set up the swap: NBD, or the node's
#              own disk with ramster loaded by the node)
#   bench_frac=N   the working set N% in RAM: a workload of RAM * 100 / N
#   bench_mix=realistic|default   the workload's page mix (-X or none)
#   bench_workload=verify|usemem|sort   the verifying passes, workload -U
#              (usemem-style: two processes, random accesses), or GNU sort
#              (the host appended it to the initramfs) over lines of
#              workload -G, checked by workload -V
# zswap is enabled on the command line by the host.  zram: /dev/zram0,
# lz4, a disksize of half the RAM (zram-generator's default), swapped on
# before the disk so that it has the higher priority (busybox swapon has
# no -p: the kernel gives each later area a lower one); the disk takes
# what does not fit.  compress: no swap, the workload's compression loop
# (-Z) for bench_seconds, the guest's side of the TCG slowdown factor.
# The BENCH: line also has cpu_ms (the guest's busy CPU time over the
# workload, all CPUs: user, nice, system, irq, softirq) and
# net_bytes (bytes received and sent on eth0 over the workload, 0 without
# a NIC).
# Run by tests/bench.sh, not by tests/run.sh (no "# results:" header).
mode=${bench_mode:-disk}
frac=${bench_frac:-50}
mix=${bench_mix:-realistic}
seconds=${bench_seconds:-5}
workload=${bench_workload:-verify}
# shellcheck disable=SC2013  # the command line is words, not lines
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bench_mode=*) mode=${arg#bench_mode=} ;;
	bench_frac=*) frac=${arg#bench_frac=} ;;
	bench_mix=*) mix=${arg#bench_mix=} ;;
	bench_seconds=*) seconds=${arg#bench_seconds=} ;;
	bench_workload=*) workload=${arg#bench_workload=} ;;
	esac
done
mixarg=
[ "$mix" = realistic ] && mixarg=-X


# net_bytes: bytes received and sent on eth0 since boot (0 without it).
net_bytes() {
	local s=/sys/class/net/eth0/statistics
	[ -d $s ] || { echo 0; return; }
	echo $(( $(cat $s/rx_bytes) + $(cat $s/tx_bytes) ))
}

if [ "$mode" = compress ]; then
	# shellcheck disable=SC2086  # mixarg is empty or one word
	/bin/workload -Z "$seconds" $mixarg > /tmp/workload.result 2>&1; rc=$?
	cat /tmp/workload.result
	echo "BENCH: mode=$mode rc=$rc $(tail -n 1 /tmp/workload.result | cut -d' ' -f3-)"
	check bench_run "rc=$rc" test "$rc" = 0
	exit 0
fi

zram_on() {
	local z=/sys/block/zram0
	echo lz4 > $z/comp_algorithm &&
		echo "$(( $(ram_mib) / 2 ))M" > $z/disksize &&
		mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
}

# A zram run without zram would be the disk's figures under zram's name.
if [ "$mode" = zram ] && ! zram_on; then
	echo "BENCH: mode=$mode frac=$frac mix=$mix rc=1 zram setup failed"
	check bench_run "zram setup failed: no zram swap" false
	exit 0
fi
case "$mode" in
nbd|pair) ;;
ramster) swap_on && load_ramster ;;
*) swap_on ;;
esac
cat /proc/swaps
mib=$(( $(ram_mib) * 100 / frac ))
cpu0=$(busy_ms) net0=$(net_bytes)
# run_sort MIB: GNU sort over workload -G's lines, in memory (a buffer
# twice the input, no temporary directory: spilling to files would fail
# rather than go to the ramfs), checked by workload -V.  The input is 70%
# of MIB: sort's line table (32 bytes a line, and as much again to merge)
# brings it to about MIB in memory.  Fails if the check does, or if sort
# itself failed (killed, no memory, a missing library): its status is in
# /tmp/sort.rc and its own line, so that it does not read as bad pages.
run_sort() {
	local input=$(( $1 * 7 / 10 )) rc sort_rc
	/bin/workload -G -m "$input" -s 11 |
		{
			LC_ALL=C TMPDIR=/nonexistent /usr/bin/sort -S "$((input * 2))M" 2> /tmp/sort.err
			echo $? > /tmp/sort.rc
		} |
		/bin/workload -V -m "$input" -s 11 > /tmp/workload.out 2>&1
	rc=$?
	sort_rc=$(cat /tmp/sort.rc 2>/dev/null || echo 255)
	cat /tmp/sort.err /tmp/workload.out
	tail -n 1 /tmp/workload.out > /tmp/workload.result
	if [ "$sort_rc" != 0 ]; then
		echo "bench: sort failed with status $sort_rc: $(head -n 1 /tmp/sort.err)"
		return 3
	fi
	return $rc
}

if [ "$workload" = sort ]; then
	run_sort "$mib"; rc=$?
else
	usemem=
	[ "$workload" = usemem ] && usemem="-U -P 2"
	# shellcheck disable=SC2086  # mixarg and usemem: words
	run_workload "$mib" -q -p 2 -s 11 $usemem $mixarg; rc=$?
fi
cpu=$(( $(busy_ms) - cpu0 )) net=$(( $(net_bytes) - net0 ))
show_stats
[ "$mode" = zram ] && echo "--- zram mm_stat: $(cat /sys/block/zram0/mm_stat)"
cat /proc/swaps
echo "BENCH: mode=$mode workload=$workload frac=$frac mix=$mix mib=$mib rc=$rc cpu_ms=$cpu net_bytes=$net $(cut -d' ' -f3- /tmp/workload.result)"
check bench_run "rc=$rc" test "$rc" = 0 -a "$(bad_pages)" = 0
