# shellcheck shell=bash
# writethrough: the pair (tests/configs/pair-fuzz.conf) with
# writethrough=1: a peer killed under a parked process, whose lost pages
# are read from the swap device, 0 bad.  The shortest session: CI also
# runs it from a clone at a long path.
#
# results: cluster_dead_peer_writethrough_device_serves
# results: cluster_writethrough_no_kernel_warnings
# timeout: 1500

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

dead_peer_device_serves() {
	local v
	park_with_remote 1
	"$CLUSTER" kill 2 >/dev/null 2>&1 || problem "kill failed"
	unpark 1
	wait_until 600 load_exited 1 || problem "workload did not end"
	[ "$(load_exit 1)" = 0 ] || problem "workload exit $(load_exit 1)"
	[ "$(load_bad 1)" = 0 ] || problem "bad pages: $(load_bad 1)"
	v=$(cx 1 "cat /sys/kernel/debug/frontswap/failed_loads")
	[ "$v" -gt 0 ] 2>/dev/null || problem "no load fell back to the device ($v)"
	session_down || problem "down failed: $(tail -n 1 "$DOWN_LOG")"
	FIGURES="$v lost pages read from the swap device, 0 bad"
}

RAMSTER_PARAMS=writethrough=1,suction_interval_ms=0 \
	session_up "$TOP/tests/configs/pair-fuzz.conf" 1 2
check cluster_dead_peer_writethrough_device_serves dead_peer_device_serves
check cluster_writethrough_no_kernel_warnings check_consoles_clean
