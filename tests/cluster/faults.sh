# shellcheck shell=bash
# faults: the pair (tests/configs/pair-fuzz.conf) under transients that
# must never cost a page.  One long workload on node 1 (2.5x its RAM, four
# passes, each rewriting a quarter of its pages, so a stale page is caught
# as well as a lost one) keeps thousands of pages on node 2 while node 2's
# link is taken away (its tap set down in the cluster's namespace): for
# 1 s, for 3 s, and for longer than link_timeout_ms with remote_wait_ms=0,
# so that loads cannot wait the outage out and must be deferred (-EAGAIN,
# kernel patch 0011) and retried rather than fail.  The process must
# survive every cut (a SIGBUS kills it) and every page must verify.
# Then the lender under its own pressure: node 2 holds node 1's parked
# pages and runs a workload of most of its own RAM; it must recall
# (below lender_reserve_percent), finish without an OOM kill, and node
# 1's pages must verify.  Last, swapoff races remotification: with the
# link cut, node 1's PUT window full and the invalidations of a killed
# rewriting process queued, swapoff starts while the remotify thread
# pushes the whole local pool out; the link comes back 3 s later.
# swapoff must succeed, nothing may be left on either side, the parked
# process (half anonymous, half tmpfs) must verify.
#
# results: cluster_link_flap_1s cluster_link_flap_3s
# results: cluster_link_flap_past_link_timeout cluster_flapped_pages_verify
# results: cluster_lender_under_own_pressure cluster_swapoff_races_remotify
# results: cluster_faults_no_kernel_warnings
# timeout: 2400

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

start_workload() {
	local mem held t0
	mem=$(node_mem 1)
	cx 1 "/bin/workload -m $((mem * 5 / 2)) -s 7 -p 4 -q > /tmp/load.out 2>&1 & echo \$! > /tmp/load.pid" >/dev/null
	t0=$(date +%s)
	until held=$(dbg 2 foreign_pages) && [ "${held:-0}" -ge 2000 ]; do
		[ $(($(date +%s) - t0)) -lt 600 ] ||
			abort "node 2 never held 2000 pages (held ${held:-?})"
		sleep 1
	done
}

# flap SECONDS: cut node 2 off for SECONDS while node 1's workload runs;
# the workload must still be running 20 s after the link is back, and
# the link live again.
flap() {
	local secs=$1 held downs0 waited deferred
	held=$(dbg 2 foreign_pages)
	downs0=$(dbg 1 peers/2/link_downs)
	waited=$(dbg 1 remote_loads_waited)
	deferred=$(dbg 1 remote_loads_deferred)
	tap_set 2 down
	sleep "$secs"
	tap_set 2 up
	wait_until 60 peer_state_is 1 2 live || problem "link 1-2 not live again"
	sleep 20
	load_not_killed 1
	FIGURES="$held pages on node 2 when cut, link downs +$(since 1 peers/2/link_downs "$downs0"), loads that waited +$(since 1 remote_loads_waited "$waited"), deferred +$(since 1 remote_loads_deferred "$deferred")"
}

flap_1s() { flap 1; }
flap_3s() { flap 3; }

# Past link_timeout_ms, and no waiting allowed: the loads of the outage
# are deferred and retried, never failed.
flap_past_link_timeout() {
	local timeout downs0 deferred0
	timeout=$(cx 1 cat /sys/module/ramster/parameters/link_timeout_ms)
	downs0=$(dbg 1 peers/2/link_downs)
	deferred0=$(dbg 1 remote_loads_deferred)
	set_param 1 remote_wait_ms 0
	flap $(((${timeout:-5000} + 999) / 1000 + 3))
	set_param 1 remote_wait_ms 5000
	[ "$(dbg 1 peers/2/link_downs)" -gt "$downs0" ] 2>/dev/null ||
		problem "the link never went down: the test did not test"
	[ "$(dbg 1 remote_loads_deferred)" -gt "$deferred0" ] 2>/dev/null ||
		FIGURES="$FIGURES (no load fell in the outage)"
}

flapped_pages_verify() {
	verify_load 1
	FIGURES="$(load_result 1 | sed 's/workload: result //'), frontswap deferred_loads $(cx 1 cat /sys/kernel/debug/frontswap/deferred_loads)"
}

own_done() { [ -n "$(cx 2 'cat /tmp/own.exit 2>/dev/null')" ]; }
oom_kills() { cx "$1" "sed -n 's/^oom_kill //p' /proc/vmstat"; }

lender_under_own_pressure() {
	local mem squeezes recalls oom exit2
	mem=$(node_ram 2)
	# Node 1's suction would fetch its pages home before node 2 is
	# pressed: they stay on node 2 until it recalls them.
	set_param 1 suction_interval_ms 0
	set_param 2 lender_reserve_percent 10
	park_with_remote 1
	squeezes=$(dbg 2 lender_squeezes)
	recalls=$(dbg 2 recalls_sent)
	oom=$(oom_kills 2)
	cx 2 "rm -f /tmp/own.exit; (/bin/workload -m $((mem * 7 / 10)) -s 9 -p 3 -q > /tmp/own.out 2>&1; echo \$? > /tmp/own.exit) &" >/dev/null
	wait_until 900 own_done || problem "node 2's own workload did not finish"
	exit2=$(cx 2 'cat /tmp/own.exit 2>/dev/null')
	[ "$exit2" = 0 ] || problem "node 2's own workload exit ${exit2:-?}: $(cx 2 'tail -n 1 /tmp/own.out')"
	[ "$(oom_kills 2)" = "$oom" ] || problem "OOM kills on node 2: $oom -> $(oom_kills 2)"
	unpark 1
	verify_parked 1
	set_param 1 suction_interval_ms 1000
	[ "$(dbg 2 lender_squeezes)" -gt "$squeezes" ] 2>/dev/null ||
		problem "node 2 never went under its reserve: nothing was tested"
	[ "$(dbg 2 recalls_sent)" -gt "$recalls" ] 2>/dev/null ||
		problem "node 2 was pressed but recalled nothing"
	FIGURES="node 1 parked $PARKED_REMOTE remote pages; node 2: squeezes +$(since 2 lender_squeezes "$squeezes"), recalls sent +$(since 2 recalls_sent "$recalls"), foreign pages now $(dbg 2 foreign_pages)"
}

rewriter_gone() { guest_gone 1 /tmp/rw.pid; }
swapoff_races_remotify() {
	local mem r0 puts0 inval0 lost0 at_cut t0 cut0 cut lost_ms kill0 died dying0 dying
	mem=$(node_mem 1)
	set_param 1 suction_interval_ms 0
	# The cut lasts as long as the steps below take through the agents,
	# which a busy TCG guest can stretch past remote_lost_ms (30 s): node
	# 2 would then be presumed dead, its pages lost, and the parked
	# process killed by SIGBUS, which is the policy, not this race.
	lost_ms=$(cx 1 cat /sys/module/ramster/parameters/remote_lost_ms)
	set_param 1 remote_lost_ms 600000
	# The parked process's upper half is tmpfs (-S): swapoff brings both
	# kinds home, through unuse_pte() and shmem_unuse(), each of which
	# must go past a page out of reach, if it meets one, and come back
	# for it.  (Which half's pages are on node 2 at the cut is not
	# forced: the check is that most of the tmpfs half is in swap.)
	park_with_remote 1 -S
	# A second process, rewriting its pages (each rewrite invalidates a
	# remote copy), keeps remotification busy.  Its robust futex list
	# head sits alone in a page it never touches again (-F): that page
	# goes to swap, and away, early, and its exit must read it.
	r0=$(dbg 1 remote_pages)
	cx 1 "/bin/workload -m $((mem * 3 / 2)) -s 17 -p 8 -F -q > /tmp/rw.out 2>&1 & echo \$! > /tmp/rw.pid" >/dev/null
	wait_until 300 remote_at_least 1 $((r0 + 1001)) ||
		problem "the rewriting process sent no pages away"
	puts0=$(dbg 1 remote_puts)
	inval0=$(dbg 1 remote_invalidates)
	lost0=$(dbg 1 remote_invalidates_lost)
	# Cut: PUTs get no reply (the window fills), the remotify thread is
	# told to push everything, and the killed process's pages become
	# invalidations nobody can deliver yet.
	if rewriter_gone; then problem "the rewriting process ended before the cut: $(cx 1 'tail -n 1 /tmp/rw.out')"; fi
	tap_set 2 down
	cut0=$(date +%s)
	at_cut="$(dbg 1 remote_pages) remote, $(dbg 1 stored_pages) stored"
	set_param 1 remote_local_percent 1
	sleep 1
	kill0=$(date +%s)
	dying0=$(dbg 1 remote_loads_deferred_dying)
	dying0=${dying0:-0}
	# shellcheck disable=SC2016  # expanded in the guest
	cx 1 'kill -9 $(cat /tmp/rw.pid)' >/dev/null
	# Gone (its memory freed, its swap entries invalidated) before
	# swapoff: swapoff must find room for what stays.  Its exit faults on
	# pages only node 2 has: those loads wait remote_wait_ms as any, then
	# the kernel fails the dying task's fault rather than retry it until
	# the link is back (remote_lost_ms is 10 minutes here).
	# shellcheck disable=SC2016  # expanded in the guest
	wait_until 60 rewriter_gone ||
		problem "the rewriting process did not die in 60 s: $(task_where 1 '$(cat /tmp/rw.pid)')"
	died=$(($(date +%s) - kill0))
	dying=$(dbg 1 remote_loads_deferred_dying)
	dying=$((${dying:-0} - dying0))
	swapoff_start 1
	t0=$(date +%s)
	sleep 3
	# Its remote pages cannot come while the link is cut.
	cut=$(($(date +%s) - cut0))
	swapoff_done 1 && problem "swapoff finished with the link still cut (${cut}s): nothing raced"
	tap_set 2 up
	swapoff_finish 1 2
	set_param 1 remote_local_percent 50
	set_param 1 suction_interval_ms 1000
	set_param 1 remote_lost_ms "${lost_ms:-30000}"
	FIGURES="parked with ${PARKED_TMPFS_SWAP:-?} of ${PARKED_TMPFS:-?} kB of tmpfs in swap; cut with $at_cut pages for ${cut}s (the killed rewriter gone in ${died}s, $dying of its loads out of reach); swapoff took $(($(date +%s) - t0))s; puts +$(since 1 remote_puts "$puts0"), invalidations +$(since 1 remote_invalidates "$inval0") (lost +$(since 1 remote_invalidates_lost "$lost0")) since the cut; nothing left on either side, 0 bad"
}

session_up "$TOP/tests/configs/pair-fuzz.conf" 1 2
trap 'tap_set 2 up 2>/dev/null || true; on_exit' EXIT
start_workload
check cluster_link_flap_1s flap_1s
check cluster_link_flap_3s flap_3s
check cluster_link_flap_past_link_timeout flap_past_link_timeout
check cluster_flapped_pages_verify flapped_pages_verify
check cluster_lender_under_own_pressure lender_under_own_pressure
check cluster_swapoff_races_remotify swapoff_races_remotify
check cluster_faults_no_kernel_warnings check_consoles_clean
