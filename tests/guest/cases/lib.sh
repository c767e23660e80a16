#!/bin/sh
# Helpers for guest test cases (busybox sh).  A case reports each of its
# results with ok NAME, not_ok NAME REASON or skip NAME REASON; the host
# harness collects the RESULT: lines from the console.  A case declares in
# its header what tests/run.sh needs to run it (kselftest style):
#
#   # results: NAME...     every result it prints, in order (several lines
#                          may list them); a missing one is a failure
#   # memory: 128M         guest RAM
#   # timeout: 600         seconds before the guest is killed
#   # swap disk: yes|no    a 1 GiB swap disk as /dev/vda
#   # data disk: ext4 SIZE [SIZE...]
#                          one ext4 disk per size, made by the host; data
#                          disk N is $(data_disk N)
#   # kernel args: ...     more kernel command line (optional)
#
# A file without "# results:" is not a test case (bench.sh is run by
# tests/bench.sh).
# shellcheck disable=SC3043  # busybox sh has local

DBG=/sys/kernel/debug
RAMSTER=$DBG/ramster
# The controls (leave, drain, shrink_target): sysfs, not debugfs.
export CONTROL=/sys/module/ramster/control
FRONTSWAP=$DBG/frontswap
CLEANCACHE=$DBG/cleancache
MODDIR=/lib/modules

ok() { echo "RESULT: ok $1"; }
not_ok() { echo "RESULT: not ok $1 # $2"; }
# A skip is not a pass: the harness counts it apart.
skip() { echo "RESULT: ok $1 # SKIP $2"; }

# check NAME CONDITION-DESCRIPTION COMMAND...: ok if COMMAND succeeds.
check() {
	local name=$1 why=$2
	shift 2
	if "$@"; then ok "$name"; else not_ok "$name" "$why"; fi
}

stat_of() { cat "$RAMSTER/$1"; }
fs_stat() { cat "$FRONTSWAP/$1"; }
vmstat_of() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
ram_mib() { awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo; }

# busy_ms: the CPU time all CPUs spent busy since boot, in ms (USER_HZ is
# 100): user, nice, system, irq, softirq; not steal, which is time the
# vCPU did not run.  The benchmark's CPU figures, in the workload's node
# (cases/bench.sh) and in its lenders (tests/bench.sh) alike.
busy_ms() { awk '$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8) * 10; exit }' /proc/stat; }
cc_stat() { cat "$CLEANCACHE/$1"; }

# data_disk N: the device of data disk N (QEMU gave it the serial dataN).
data_disk() {
	local b
	for b in /sys/block/vd*; do
		if [ "$(cat "$b/serial" 2>/dev/null)" = "data$1" ]; then
			echo "/dev/${b##*/}"
			return 0
		fi
	done
	return 1
}

# mount_data N DIR: mount data disk N (ext4) on DIR.
mount_data() {
	mkdir -p "$2" && mount -t ext4 "$(data_disk "$1")" "$2"
}

# sectors_read DEV: 512-byte sectors read from DEV since boot.
sectors_read() { awk '{ print $3 }' "/sys/block/${1#/dev/}/stat"; }

# evict: every clean page leaves the page cache (to cleancache, if any).
# Only the page cache: dropping slab caches too (3) runs every shrinker,
# ramster's clean pages' as well, which would empty cleancache.
evict() {
	sync
	echo 1 > /proc/sys/vm/drop_caches
}

# swap_dev: the swap disk, /dev/vda unless a data disk took that name
# (data disks have a serial, the swap disk none).
swap_dev() {
	local b
	for b in /sys/block/vd*; do
		case "$(cat "$b/serial" 2>/dev/null)" in
		data*) ;;
		*) echo "/dev/${b##*/}"; return 0 ;;
		esac
	done
	return 1
}

swap_on() {
	local dev
	dev=$(swap_dev) && mkswap "$dev" >/dev/null && swapon "$dev"
}

# Single-guest cases count pages precisely: the suction thread would move
# them behind their back, so it is off unless a case turns it on.
load_ramster() {
	insmod "$MODDIR/ramster.ko" suction_interval_ms=0 "$@"
}

# Record the largest value a debugfs counter reaches while a command runs:
# watch_max FILE OUT & ... ; kill $!; cat OUT
watch_max() {
	local file=$1 out=$2 max=0 v
	echo 0 > "$out"
	while :; do
		v=$(cat "$file" 2>/dev/null || echo 0)
		if [ "$v" -gt "$max" ]; then max=$v; echo "$max" > "$out"; fi
		sleep 0.3
	done
}

# run_workload MIB [ARGS...]: runs the verifying workload; its last line
# is kept in /tmp/workload.result.  Returns the workload's exit status.
run_workload() {
	local mib=$1 rc
	shift
	/bin/workload -m "$mib" "$@" > /tmp/workload.out 2>&1
	rc=$?
	cat /tmp/workload.out
	tail -n 1 /tmp/workload.out > /tmp/workload.result
	return $rc
}

# bad_pages [FILE]: the bad page count of a workload's result line.
bad_pages() { sed -n 's/.* bad=\([0-9]*\).*/\1/p' "${1:-/tmp/workload.result}"; }

# Kernel log problems that fail a case even if its checks passed.
dmesg_clean() {
	! dmesg | grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection|hung_task' >/dev/null
}

# The swap and module counters, for the log.
show_stats() {
	echo "--- ramster: $(cat "$RAMSTER/summary" 2>/dev/null || echo not loaded)"
	echo "--- frontswap: loads=$(fs_stat loads) succ_stores=$(fs_stat succ_stores) failed_stores=$(fs_stat failed_stores) invalidates=$(fs_stat invalidates) curr_pages=$(fs_stat curr_pages 2>/dev/null)"
	echo "--- vmstat: pswpin=$(vmstat_of pswpin) pswpout=$(vmstat_of pswpout)"
	if [ -d "$CLEANCACHE" ]; then
		echo "--- cleancache: succ_gets=$(cc_stat succ_gets) failed_gets=$(cc_stat failed_gets) puts=$(cc_stat puts) invalidates=$(cc_stat invalidates)"
	fi
}
