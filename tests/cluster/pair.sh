# shellcheck shell=bash
# pair: two peers and a borrowed number (tests/configs/pair-fuzz.conf).
# Node 2 boots late; the pair under pressure; swapoff with pages on the
# peer; malformed frames from a fuzzer; a peer restart; an orderly down.
#
# results: cluster_late_node_joins cluster_pair_up_and_exec
# results: cluster_nodes_reach_each_other cluster_stat_reads_every_node
# results: cluster_pair_remote_pages cluster_pair_raw_pages_remote
# results: cluster_pair_remote_readahead
# results: cluster_pair_swapoff_back_to_zero
# results: cluster_malformed_frames_rejected cluster_peer_restart_reconnects
# results: cluster_tight_link_queue_bends
# results: cluster_down_orderly cluster_pair_no_kernel_warnings
# timeout: 3600

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

# Start order: node 2 boots well after node 1, which then uses it.
late_node_joins() {
	peer_state_is 1 2 down ||
		problem "node 1 sees node 2 as $(dbg 1 peers/2/state) before it boots"
	sleep 5
	"$CLUSTER" start 2 >> "$UP_LOG" 2>&1 || problem "start 2 failed"
	wait_until 30 peer_state_is 1 2 live ||
		problem "link 1-2 not live 30s after node 2 booted"
	PIDS="$PIDS $(node_qemus)"
}

# configfs marks each node's own stanza local; exec returns the status.
up_and_exec() {
	local out
	out=$(cx 1 cat /sys/kernel/config/ramster/node1/local /sys/kernel/config/ramster/node2/local | tr '\n' ' ')
	[ "$out" = "1 0 " ] || problem "node1 local flags: '$out'"
	out=$(cx 2 cat /sys/kernel/config/ramster/node2/local)
	[ "$out" = 1 ] || problem "node2 local flag: '$out'"
	if "$CLUSTER" exec 2 false 2>/dev/null; then problem "exit-status-lost"; fi
}

reach_each_other() {
	local out
	if out=$("$CLUSTER" exec 1 ping -c 10 -i 0.2 10.213.0.2 2>&1) &&
		"$CLUSTER" exec 2 ping -c 3 -i 0.2 10.213.0.1 >/dev/null 2>&1; then
		FIGURES="ping rtt min/avg/max $(sed -n 's|.*min/avg/max = \([0-9./]*\) ms|\1|p' <<< "$out") ms"
	else
		problem "$(tail -n 2 <<< "$out" | tr '\n' ' ')"
	fi
}

stat_reads_every_node() {
	local out
	out=$("$CLUSTER" stat 2>&1) || true
	echo "$out" > "$RAMSTER_CLUSTER_DIR/stat-idle.txt"
	grep -qE '^stored_pages +[0-9]+ +[0-9]+' <<< "$out" ||
		problem "see $RAMSTER_CLUSTER_DIR/stat-idle.txt"
}

# The pair under pressure: node 1 at 3x its RAM.
pair_remote_pages() {
	local puts0 puts1 t0 t1 bad loads0 loads
	puts0=$(dbg 1 remote_puts)
	loads0=$(dbg 1 remote_loads)
	t0=$(date +%s)
	load_bg 1 $((MEM * 3))
	LOADING=1 watch_loads 900 1:remote_pages 2:foreign_pages || true
	t1=$(date +%s)
	puts1=$(dbg 1 remote_puts)
	bad=$(load_bad 1)
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat-pair.txt" 2>&1 || true
	[ "$bad" = 0 ] || problem "bad pages: $bad"
	[ "${WATCH_MAX[1:remote_pages]:-0}" -gt 0 ] || problem "node 1 never had remote pages"
	[ "${WATCH_MAX[2:foreign_pages]:-0}" -gt 0 ] || problem "node 2 never held foreign pages"
	loads=$(since 1 remote_loads "$loads0")
	[ "$loads" -gt 0 ] 2>/dev/null || problem "no page came back from node 2 (remote loads $loads)"
	FIGURES="peak remote ${WATCH_MAX[1:remote_pages]:-0}, peak foreign ${WATCH_MAX[2:foreign_pages]:-0}, $((puts1 - puts0)) pages remotified in $((t1 - t0))s ($(( (puts1 - puts0) / (t1 - t0 + 1) ))/s), $loads remote loads, $(latency_figures 1)"
}

# The workload's random pages (4 in 10) are stored raw: node 1 sent raw
# pages to node 2 (which offers RAMSTER_CAP_RAW), loaded raw pages back
# from it, and none of its remote loads was bad (the workload above
# verified every page, rewritten between passes, so 0 bad is bit-exact).
pair_raw_pages_remote() {
	local puts loads bad
	puts=$(dbg 1 remote_raw_puts)
	loads=$(dbg 1 remote_raw_loads)
	bad=$(dbg 1 remote_loads_bad)
	[ "$puts" -gt 0 ] 2>/dev/null || problem "node 1 sent no raw page (remote_raw_puts '$puts')"
	[ "$loads" -gt 0 ] 2>/dev/null || problem "no raw page came back (remote_raw_loads '$loads')"
	[ "$bad" = 0 ] || problem "remote_loads_bad=$bad"
	[ "$(load_bad 1)" = 0 ] || problem "bad pages: $(load_bad 1)"
	FIGURES="raw_stores $(dbg 1 raw_stores), remote_raw_puts $puts of remote_puts $(dbg 1 remote_puts), remote_raw_loads $loads of remote_loads $(dbg 1 remote_loads), 0 bad"
}

# Remote readahead (remote_readahead, default 8): node 1's loads in the
# workload above took pages fetched ahead of them, and the workload,
# which rewrote its pages between passes, verified every one: a staged
# page is the version its load asked for.  Every hit came from a GET
# fetched ahead, and nothing fetched ahead is counted twice.
pair_remote_readahead() {
	local gets hits wasted failed loads
	gets=$(dbg 1 remote_readahead_gets)
	hits=$(dbg 1 remote_readahead_hits)
	wasted=$(dbg 1 remote_readahead_wasted)
	failed=$(dbg 1 remote_readahead_failed)
	loads=$(dbg 1 remote_loads)
	[ "$hits" -gt 0 ] 2>/dev/null || problem "no load took a page fetched ahead (remote_readahead_hits '$hits', gets '$gets')"
	[ "$((hits + wasted))" -le "$gets" ] 2>/dev/null ||
		problem "hits $hits + wasted $wasted > fetched ahead $gets"
	[ "$(load_bad 1)" = 0 ] || problem "bad pages: $(load_bad 1)"
	[ "$(dbg 1 remote_loads_bad)" = 0 ] || problem "remote_loads_bad=$(dbg 1 remote_loads_bad)"
	FIGURES="$hits of $loads remote loads served by $gets pages fetched ahead ($wasted wasted, $failed failed), 0 bad"
}

# Swapoff while a parked process has pages on node 2: every page comes
# home, both sides drop to 0, the process verifies them all.  Half of
# its area is tmpfs (-S), which comes home through shmem_unuse().
swapoff_back_to_zero() {
	local t0 t1
	set_param 1 suction_interval_ms 0
	park_with_remote 1 -S
	t0=$(date +%s)
	cx 1 "swapoff /dev/vda; echo swapoff-exit=\$?" > "$RAMSTER_CLUSTER_DIR/swapoff.txt"
	t1=$(date +%s)
	grep -q 'swapoff-exit=0' "$RAMSTER_CLUSTER_DIR/swapoff.txt" || problem "swapoff failed"
	sleep 2
	problem "$(left_counts 1 2 | tr '\n' ' ')"
	unpark 1
	verify_parked 1
	cx 1 "swapon /dev/vda" >/dev/null
	set_param 1 suction_interval_ms 1000
	FIGURES="swapoff with $PARKED_REMOTE remote pages and ${PARKED_TMPFS_SWAP:-?} of ${PARKED_TMPFS:-?} kB of tmpfs in swap took $((t1 - t0))s; 0 left anywhere, 0 bad"
}

# Malformed frames to node 1 (from node 2's VM, as node 9, with the
# cluster key: bad frames before the handshake and correctly tagged ones
# after it) while node 2 keeps swapping through node 1.  Each case names
# the counter it must move (tests/guest/ramster-fuzz.c).
malformed_frames_rejected() {
	local b a num bad
	cx 2 "ip addr add 10.213.0.9/24 dev eth0" >/dev/null
	load_bg 2 $((MEM * 2)) 7
	b=$(summary 1)
	fuzz pair 2 "-n 9 -s 10.213.0.9 -k $KEY pre malformed"
	a=$(summary 1)
	LOADING=2 watch_loads 600 || problem "node 2 workload did not finish"
	fuzz_ok pair
	fuzz_counted pair "$b" "$a"
	num=$(dbg 1 peers/2/link_downs)
	[ "$num" = 0 ] || problem "legit link 1-2 went down $num times"
	bad=$(load_bad 2)
	[ "$bad" = 0 ] || problem "node 2 bad pages: $bad"
	[ "$(dbg 2 remote_puts)" -gt 0 ] 2>/dev/null || problem "node 2 sent no pages"
	FIGURES="$(grep -c ' closed$' <<< "$FUZZ_OUT" || true) cases counted and closed, legit link kept"
}

# The smallest send queue (link_queue_kb=16) while node 1 remotifies and
# rewrites: PUTs past the bound are refused and the remotify thread waits
# (backpressure), the frames that carry pages stay within the bound plus
# one page (small frames, GETs and invalidations, always pass and are not
# bounded), the link never goes down, every page verifies.  The queue's
# high-water marks are the module's own (reset when the bound changes):
# sampling from here misses a queue that drains between two reads.
tight_link_queue_bends() {
	local downs0 refused0 bp0 refused bp max all limit=16 bad
	set_param 1 link_queue_kb $limit
	set_param 2 link_queue_kb $limit
	downs0=$(dbg 1 peers/2/link_downs)
	refused0=$(dbg 1 peers/2/tx_queue_refused)
	bp0=$(dbg 1 remote_put_backpressure)
	load_bg 1 $((MEM * 2)) 11
	LOADING=1 watch_loads 900 || problem "workload did not finish"
	bad=$(load_bad 1)
	[ "$bad" = 0 ] || problem "bad pages: $bad"
	refused=$(since 1 peers/2/tx_queue_refused "$refused0")
	bp=$(since 1 remote_put_backpressure "$bp0")
	max=$(dbg 1 peers/2/tx_queued_page_max_bytes)
	all=$(dbg 1 peers/2/tx_queued_max_bytes)
	[ "$refused" -gt 0 ] 2>/dev/null || problem "no PUT was held back: the bound was never met"
	[ "$bp" -gt 0 ] 2>/dev/null || problem "remote_put_backpressure did not move"
	[ "$max" -gt 0 ] 2>/dev/null || problem "no page was queued under the bound: nothing was measured"
	[ "$max" -le $((limit * 1024 + 4096 + 512)) ] 2>/dev/null ||
		problem "queue held $max bytes of pages, bound $((limit * 1024)) (all frames: $all)"
	[ "$(dbg 1 peers/2/link_downs)" = "$downs0" ] || problem "the link went down"
	set_param 1 link_queue_kb 512
	set_param 2 link_queue_kb 512
	FIGURES="$refused PUTs held back ($bp waits), most queued $max bytes of pages ($all of all frames; bound $((limit * 1024))), 0 bad"
}

# Node 2 restarts while node 1 is idle; node 1 reconnects and uses it.
peer_restart_reconnects() {
	local puts0 puts1 bad
	cx 2 "swapoff /dev/vda" >/dev/null
	if ! "$CLUSTER" restart 2 >> "$UP_LOG" 2>&1; then
		problem "restart failed: $(tail -n 1 "$UP_LOG")"
		return
	fi
	PIDS="$PIDS $(node_qemus)"
	wait_until 30 peer_ups_are 1 2 2 ||
		problem "node 1: link_ups to node 2 is $(dbg 1 peers/2/link_ups), want 2"
	wait_until 10 peer_state_is 1 2 live || problem "link not live after restart"
	puts0=$(dbg 1 remote_puts)
	load_bg 1 $((MEM * 2)) 3
	LOADING=1 watch_loads 600 || problem "workload did not finish"
	bad=$(load_bad 1)
	[ "$bad" = 0 ] || problem "bad pages: $bad"
	puts1=$(dbg 1 remote_puts)
	[ "$puts1" -gt "$puts0" ] 2>/dev/null || problem "no pages to the restarted peer"
}

session_up "$TOP/tests/configs/pair-fuzz.conf" 1
MEM=$(node_mem 1)
check cluster_late_node_joins late_node_joins
check cluster_pair_up_and_exec up_and_exec
check cluster_nodes_reach_each_other reach_each_other
check cluster_stat_reads_every_node stat_reads_every_node
check cluster_pair_remote_pages pair_remote_pages
check cluster_pair_raw_pages_remote pair_raw_pages_remote
check cluster_pair_remote_readahead pair_remote_readahead
check cluster_pair_swapoff_back_to_zero swapoff_back_to_zero
check cluster_malformed_frames_rejected malformed_frames_rejected
check cluster_peer_restart_reconnects peer_restart_reconnects
check cluster_tight_link_queue_bends tight_link_queue_bends
check cluster_down_orderly check_down_orderly
check cluster_pair_no_kernel_warnings check_consoles_clean
