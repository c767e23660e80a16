# shellcheck shell=bash
# reconcile: the pair (tests/configs/pair-fuzz.conf) where node 2 stores
# three of node 1's PUTs and then closes the link instead of answering
# (fault_drop_put_reply, a test-only parameter of the lender): node 1
# believes those PUTs failed, node 2 keeps orphans (issue 10, test 4).
# After each reconnect node 1 reconciles (RECONCILE): the orphans are
# invalidated, and node 2 holds exactly what node 1 believes it holds
# while node 1's parked workload keeps pages there.  Node 2 then leaves
# (node 1 takes every page back: an orphan left would make that time
# out) and unloads; the workload (two passes, the second rewriting a
# quarter of its pages) verifies every page, so a stale copy is caught
# as well as a lost one.
#
# results: cluster_reconcile_frees_orphans cluster_reconcile_counts_agree
# results: cluster_reconcile_holder_leaves_and_unloads
# results: cluster_reconcile_pages_verify
# results: cluster_reconcile_no_kernel_warnings
# timeout: 1500

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

fault_left() { cx 2 cat /sys/module/ramster/parameters/fault_drop_put_reply; }
fault_spent() { [ "$(fault_left)" = 0 ]; }
orphans_freed() { [ "$(dbg 1 reconcile_orphans_freed)" -gt 0 ] 2>/dev/null; }

# What node 1 believes node 2 holds, and what node 2 holds for node 1.
believed() { dbg 1 peers/2/pages_held_there; }
held() { dbg 2 peers/1/pages_held_for_it; }
counts_agree() { [ -n "$(held)" ] && [ "$(believed)" = "$(held)" ]; }

frees_orphans() {
	local downs0
	downs0=$(dbg 1 peers/2/link_downs)
	# Suction would bring the pages home: they stay on node 2.
	set_param 1 suction_interval_ms 0
	set_param 2 fault_drop_put_reply 3
	park_with_remote 1
	wait_until 300 fault_spent ||
		problem "node 2 dropped only $((3 - $(fault_left))) of 3 PUT replies"
	wait_until 60 peer_state_is 1 2 live || problem "link 1-2 not live again"
	wait_until 120 orphans_freed ||
		problem "no orphan freed (reconcile_runs $(dbg 1 reconcile_runs), node 2 foreign_reconciles $(dbg 2 foreign_reconciles))"
	[ "$(dbg 1 reconcile_bad_replies)" = 0 ] ||
		problem "reconcile_bad_replies $(dbg 1 reconcile_bad_replies)"
	FIGURES="link downs +$(($(dbg 1 peers/2/link_downs) - downs0)), reconcile_runs $(dbg 1 reconcile_runs), reconcile_orphans_freed $(dbg 1 reconcile_orphans_freed), remote_puts_failed $(dbg 1 remote_puts_failed), $PARKED_REMOTE remote pages parked"
}

# Node 2 holds what node 1 believes, no more, while it holds pages.
counts_agree_check() {
	wait_until 120 counts_agree ||
		problem "node 1 believes node 2 holds $(believed), node 2 holds $(held) for it"
	[ "$(believed)" -gt 0 ] 2>/dev/null ||
		problem "node 2 holds no page of node 1: nothing was compared"
	FIGURES="node 1 believes $(believed), node 2 holds $(held), foreign_pages $(dbg 2 foreign_pages), reconcile_copies_lost $(dbg 1 reconcile_copies_lost)"
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
	FIGURES="node 2 left and unloaded; node 1 remote_pages $(dbg 1 remote_pages), recall_pages $(dbg 1 recall_pages)"
}

pages_verify() {
	unpark 1
	verify_parked 1
	set_param 1 suction_interval_ms 1000
	FIGURES="$(cx 1 'cat /tmp/load.out' | grep 'workload: result' | sed 's/workload: result //')"
}

session_up "$TOP/tests/configs/pair-fuzz.conf" 1 2
check cluster_reconcile_frees_orphans frees_orphans
check cluster_reconcile_counts_agree counts_agree_check
check cluster_reconcile_holder_leaves_and_unloads holder_leaves_and_unloads
check cluster_reconcile_pages_verify pages_verify
check cluster_reconcile_no_kernel_warnings check_consoles_clean
