# shellcheck shell=bash
# reconcile: owners and holders agree on what the holder keeps, on the
# pair (tests/configs/pair-fuzz.conf) (issue 10, test 4 and more).
# A lost PUT_REPLY: node 2 stores three of node 1's PUTs and then closes
# the link instead of answering (fault_drop_put_reply, a test-only
# parameter of the lender) while node 1 runs a workload of 1.5x its RAM
# whose second pass rewrites a quarter of its pages (so a stale copy is
# caught as well as a lost one): after the reconnects node 1 reconciles
# and invalidates the orphans, and every page verifies.  Then node 1's
# parked pages on node 2: both count the same.  Lost INVALIDATEs: node
# 2's tap is set down, the parked process is killed (its pages freed,
# their INVALIDATEs cannot be sent), the tap set up: node 1 reconciles
# and node 2 ends up holding nothing for it, where it would keep every
# one of those pages for ever without.  Node 2 can then leave and unload.
#
# results: cluster_reconcile_frees_orphans cluster_reconcile_counts_agree
# results: cluster_reconcile_lost_invalidates cluster_reconcile_holder_leaves_and_unloads
# results: cluster_reconcile_no_kernel_warnings
# timeout: 1500

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

fault_left() { cx 2 cat /sys/module/ramster/parameters/fault_drop_put_reply; }
fault_spent() { [ "$(fault_left)" = 0 ]; }
orphans_freed() { [ "$(dbg 1 reconcile_orphans_freed)" -gt "${1:-0}" ] 2>/dev/null; }

# What node 1 believes node 2 holds, and what node 2 holds for node 1.
believed() { dbg 1 peers/2/pages_held_there; }
held() { dbg 2 peers/1/pages_held_for_it; }
counts_agree() { [ -n "$(held)" ] && [ "$(believed)" = "$(held)" ]; }
# A process's last few pages may stay a while (swap cache, a read in flight).
believes_at_most() { [ "$(believed)" -le "$1" ] 2>/dev/null; }
peer_not_live() { ! peer_state_is "$@"; }

frees_orphans() {
	local mem downs0
	mem=$(node_mem 1)
	downs0=$(dbg 1 peers/2/link_downs)
	set_param 2 fault_drop_put_reply 3
	load_bg 1 $((mem * 3 / 2)) 11
	wait_until 900 fault_spent ||
		problem "node 2 dropped only $((3 - $(fault_left))) of 3 PUT replies"
	wait_until 60 peer_state_is 1 2 live || problem "link 1-2 not live again"
	verify_load 1
	wait_until 120 orphans_freed ||
		problem "no orphan freed (reconcile_runs $(dbg 1 reconcile_runs), node 2 foreign_reconciles $(dbg 2 foreign_reconciles))"
	[ "$(dbg 1 reconcile_bad_replies)" = 0 ] ||
		problem "reconcile_bad_replies $(dbg 1 reconcile_bad_replies)"
	FIGURES="link downs +$(since 1 peers/2/link_downs "$downs0"), reconcile_runs $(dbg 1 reconcile_runs), reconcile_orphans_freed $(dbg 1 reconcile_orphans_freed), remote_puts_failed $(dbg 1 remote_puts_failed); $(load_result 1 | sed 's/workload: result //')"
}

# Node 2 holds what node 1 believes, no more, while it holds pages.
counts_agree_check() {
	# Suction would bring the pages home: they stay on node 2.
	set_param 1 suction_interval_ms 0
	park_with_remote 1
	wait_until 120 counts_agree ||
		problem "node 1 believes node 2 holds $(believed), node 2 holds $(held) for it"
	[ "$(believed)" -gt 0 ] 2>/dev/null ||
		problem "node 2 holds no page of node 1: nothing was compared"
	FIGURES="$PARKED_REMOTE remote pages parked; node 1 believes $(believed), node 2 holds $(held), foreign_pages $(dbg 2 foreign_pages), reconcile_copies_lost $(dbg 1 reconcile_copies_lost)"
}

# The parked process killed while node 2 is cut off: its pages are freed
# and their INVALIDATEs lost; once the link is back, reconciliation frees
# them on node 2.
lost_invalidates() {
	local lost0 freed0 before
	lost0=$(dbg 1 remote_invalidates_lost)
	freed0=$(dbg 1 reconcile_orphans_freed)
	before=$(held)
	tap_set 2 down
	wait_until 60 peer_not_live 1 2 live || problem "link 1-2 never went down"
	cx 1 "kill -9 \$(cat /tmp/load.pid)" >/dev/null
	wait_until 120 believes_at_most $((before / 10)) ||
		problem "node 1 still believes node 2 holds $(believed) of $before"
	tap_set 2 up
	wait_until 60 peer_state_is 1 2 live || problem "link 1-2 not live again"
	[ "$(dbg 1 remote_invalidates_lost)" -gt "$lost0" ] 2>/dev/null ||
		problem "no INVALIDATE was lost: the test did not test"
	wait_until 120 counts_agree ||
		problem "node 1 believes node 2 holds $(believed), node 2 holds $(held) for it"
	FIGURES="node 2 held $before; INVALIDATEs lost +$(since 1 remote_invalidates_lost "$lost0"), orphans freed +$(since 1 reconcile_orphans_freed "$freed0"); node 2 now holds $(held), foreign_pages $(dbg 2 foreign_pages)"
	set_param 1 suction_interval_ms 1000
}

holder_leaves_and_unloads() {
	local out
	out=$("$CLUSTER" leave 2 2>&1) || problem "leave failed: $(tail -n 1 <<< "$out")"
	[ "$(dbg 2 foreign_pages)" = 0 ] ||
		problem "node 2 still holds $(dbg 2 foreign_pages) pages after leaving"
	out=$("$CLUSTER" unload 2 2>&1) || problem "unload failed: $(tail -n 1 <<< "$out")"
	if [ -n "$(cx 2 'grep -w ^ramster /proc/modules')" ]; then
		problem "ramster still loaded on node 2"
	fi
	FIGURES="node 2 left and unloaded"
}

session_up "$TOP/tests/configs/pair-fuzz.conf" 1 2
trap 'tap_set 2 up 2>/dev/null || true; on_exit' EXIT
check cluster_reconcile_frees_orphans frees_orphans
check cluster_reconcile_counts_agree counts_agree_check
check cluster_reconcile_lost_invalidates lost_invalidates
check cluster_reconcile_holder_leaves_and_unloads holder_leaves_and_unloads
check cluster_reconcile_no_kernel_warnings check_consoles_clean
