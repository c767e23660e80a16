# shellcheck shell=bash
# outage: the fault test small enough for the debug kernel (CI runs it
# there: lockdep, KASAN, list and VM debugging, kmemleak), on the pair
# (tests/configs/pair-fuzz.conf).  Node 1 parks a process (its upper
# half tmpfs, every page rewritten once before it parks) with pages on
# node 2.  Node 2's link is cut past link_timeout_ms with
# remote_wait_ms=0 and the process unparked during the cut: its loads
# of node 2's pages are deferred and retried (kernel patch 0011), so it
# neither finishes nor dies while the link is down; once the link is
# back (a new handshake, a reconcile) it verifies, 0 bad.  Then the
# same cut under swapoff: swapoff waits for the pages out of reach, and
# once the link is back it returns 0 with nothing of node 1's left on
# either side; the parked process verifies.  Last, a process reading a
# tmpfs file with read(2) during a cut is killed and must leave at once;
# the file then reads back bit-exact.  The faults session does the same things and more
# at sizes only the normal kernel gets through in time.
#
# results: cluster_outage_loads_wait_the_cut_out
# results: cluster_outage_swapoff_waits_the_cut_out
# results: cluster_outage_killed_reader_leaves
# results: cluster_outage_no_kernel_warnings
# timeout: 600

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

# cut_link: node 2's tap down until node 1 sees the link down (a
# problem if it never does).
cut_link() {
	tap_set 2 down
	wait_until 60 peer_state_is 1 2 down ||
		problem "node 1 never saw the link to node 2 down"
}

# restore_link: the tap up and the link live again.
restore_link() {
	tap_set 2 up
	wait_until 120 peer_state_is 1 2 live || problem "link 1-2 not live again"
}

# out_of_reach_count: how often node 1 met a page out of reach (a load
# that waited or was deferred), "unknown" if a counter was unreadable;
# out_of_reach_above N: more than N times.
out_of_reach_count() {
	local w d
	w=$(dbg 1 remote_loads_waited)
	d=$(dbg 1 remote_loads_deferred)
	if [[ "$w" =~ ^[0-9]+$ && "$d" =~ ^[0-9]+$ ]]; then echo $((w + d)); else echo unknown; fi
}
out_of_reach_above() { [ "$(out_of_reach_count)" -gt "$1" ] 2>/dev/null; }

loads_wait_the_cut_out() {
	local deferred0 downs0 ups0 wait_ms held v
	park_with_remote 1 -S
	held=$(dbg 2 foreign_pages)
	deferred0=$(dbg 1 remote_loads_deferred)
	downs0=$(dbg 1 peers/2/link_downs)
	ups0=$(dbg 1 peers/2/link_ups)
	wait_ms=$(cx 1 cat /sys/module/ramster/parameters/remote_wait_ms)
	[[ "$wait_ms" =~ ^[0-9]+$ ]] || wait_ms=5000
	set_param 1 remote_wait_ms 0
	cut_link
	unpark 1
	# The process reaches pages only node 2 has: its loads are deferred
	# and retried (a deferral each, RAMSTER_DEFER_PAUSE_MS apart), and
	# after several it must still be there, neither done nor killed
	# (reaped first: the agent reaps orphans after each command).
	wait_until 120 dbg_above 1 remote_loads_deferred $((deferred0 + 5)) ||
		problem "fewer than 6 loads deferred in 120 s of the cut: none met it"
	cx 1 true >/dev/null
	v=$(load_exit 1)
	[ -z "$v" ] || problem "the workload ended (exit $v) with the link cut: nothing waited"
	restore_link
	verify_parked 1
	set_param 1 remote_wait_ms "$wait_ms"
	[ "$(dbg 1 peers/2/link_downs)" -gt "$downs0" ] 2>/dev/null ||
		problem "the link never went down: the test did not test"
	# A process still running would be in the next check's way (its
	# deferred loads counted as swapoff's): gone before it starts.
	if [ -n "$PROBLEM" ]; then
		# shellcheck disable=SC2016  # expanded in the guest
		cx 1 'kill -9 $(cat /tmp/load.pid) 2>/dev/null' >/dev/null
		wait_until 60 load_exited 1 || problem "the workload did not die of SIGKILL in 60 s"
	fi
	FIGURES="parked $PARKED_REMOTE remote pages (node 2 held $held, ${PARKED_TMPFS_SWAP:-?} of ${PARKED_TMPFS:-?} kB of tmpfs in swap); loads deferred +$(since 1 remote_loads_deferred "$deferred0"), link ups +$(since 1 peers/2/link_ups "$ups0"), 0 bad"
}
swapoff_waits_the_cut_out() {
	local t0 met0
	park_with_remote 1 -S
	cut_link
	met0=$(out_of_reach_count)
	swapoff_start 1
	t0=$(date +%s)
	# swapoff reaches a page only node 2 has (a load waits, then is
	# deferred) and must not have returned.
	wait_until 120 out_of_reach_above "$met0" ||
		problem "swapoff met no page out of reach in 120 s of the cut"
	swapoff_done 1 && problem "swapoff finished with the link cut: nothing waited"
	restore_link
	swapoff_finish 1 2 200
	FIGURES="swapoff with $PARKED_REMOTE remote pages and the link cut took $(($(date +%s) - t0))s; nothing left on either side, 0 bad"
}

# killed_reader_leaves: a process that reads a tmpfs file with read(2)
# (cat: sendfile, shmem_file_read_iter) meets pages only node 2 has while
# the link is cut.  The file is written before a workload parks, so its
# pages are the oldest in swap and the first sent away (remotification
# takes the oldest; a parked workload's own tmpfs half, written last, may
# all stay here).  Killed, the reader must be gone within seconds (kernel
# patch 0019: shmem gives up on a deferred page for a task on its way
# out; before, its read spun on the lookup until the link came back),
# without costing a page: once the link is back the file reads back
# bit-exact and the workload verifies.
READER_FILE=/tmp/rshm/f
reader_gone() { guest_gone 1 /tmp/reader.pid; }
# shellcheck disable=SC2016  # expanded in the guest
reader_where() { task_where 1 '$(cat /tmp/reader.pid)'; }
reader_waits_in_shmem() { reader_where | grep -q 'ramster_remote_load.*shmem_file_read_iter'; }
killed_reader_leaves() {
	local sum v wait_ms deferred0 dying0 t0 gone
	# 4 MiB, a page of random data each (stored raw: the bytes are the
	# check), written once and never read before the cut: hashed on its
	# way in, since a read would mark its pages accessed and move them
	# to the active list, where reclaim takes them last.
	sum=$(cx 1 "mkdir -p /tmp/rshm && mount -t tmpfs -o size=8m rshm /tmp/rshm && dd if=/dev/urandom bs=4096 count=1024 2>/dev/null | tee $READER_FILE | md5sum" | awk '{ print $1 }')
	if ! [[ "$sum" =~ ^[0-9a-f]{32}$ ]]; then
		problem "no tmpfs file to read: '$sum'"
		return
	fi
	park_with_remote 1
	wait_ms=$(cx 1 cat /sys/module/ramster/parameters/remote_wait_ms)
	[[ "$wait_ms" =~ ^[0-9]+$ ]] || wait_ms=5000
	set_param 1 remote_wait_ms 0
	cut_link
	deferred0=$(dbg_num 1 remote_loads_deferred)
	cx 1 "cat $READER_FILE > /dev/null 2>&1 & echo \$! > /tmp/reader.pid" >/dev/null
	# Seen in a load of a tmpfs page out of reach (deferred, then
	# asked again), not merely somewhere: else the kill tests nothing.
	wait_until 120 reader_waits_in_shmem ||
		problem "the reader was never seen loading a remote tmpfs page in 120 s of the cut (none of the file's pages on node 2?): $(reader_where)"
	reader_gone && problem "the reader ended with the link cut: nothing waited"
	dying0=$(dbg_num 1 remote_loads_deferred_dying)
	# shellcheck disable=SC2016  # expanded in the guest
	cx 1 'kill -9 $(cat /tmp/reader.pid)' >/dev/null
	t0=$(date +%s)
	wait_until 30 reader_gone ||
		problem "the killed reader still there 30 s later: $(reader_where)"
	gone=$(($(date +%s) - t0))
	# Its last deferral (the kill most often ends the pause before it)
	# is counted as a dying task's: the module asks right before it
	# answers, so only a kill between that and the kernel's own question
	# (a few instructions) escapes it.
	if [ -z "$dying0" ]; then
		problem "remote_loads_deferred_dying unreadable before the kill"
	elif ! wait_until 10 dbg_above 1 remote_loads_deferred_dying "$dying0"; then
		problem "remote_loads_deferred_dying did not move ($dying0, now $(dbg_num 1 remote_loads_deferred_dying))"
	fi
	restore_link
	# Bounded: with the link still cut (a problem already) the read
	# would wait for it as long as the session may run.
	v=$(RAMSTER_EXEC_TIMEOUT=120 cx 1 "md5sum < $READER_FILE; rm -f $READER_FILE; umount /tmp/rshm" | head -n 1 | awk '{ print $1 }')
	[ "$v" = "$sum" ] || problem "the file read back as $v, written as $sum"
	unpark 1
	verify_parked 1
	set_param 1 remote_wait_ms "$wait_ms"
	FIGURES="a reader of a 4 MiB tmpfs file killed during the cut: gone in ${gone}s (loads deferred +$(since 1 remote_loads_deferred "$deferred0"), $(since 1 remote_loads_deferred_dying "$dying0") after the kill, as a dying task's); the file then read back bit-exact, the workload verified, 0 bad"
}

# Node 2 is never presumed dead here (its pages would then be lost, by
# policy): the cuts, stretched by a slow guest, stay far below this.
RAMSTER_PARAMS=remote_lost_ms=600000,suction_interval_ms=0 \
	session_up "$TOP/tests/configs/pair-fuzz.conf" 1 2
trap 'tap_set 2 up 2>/dev/null || true; on_exit' EXIT
check cluster_outage_loads_wait_the_cut_out loads_wait_the_cut_out
check cluster_outage_swapoff_waits_the_cut_out swapoff_waits_the_cut_out
check cluster_outage_killed_reader_leaves killed_reader_leaves
check cluster_outage_no_kernel_warnings check_consoles_clean
