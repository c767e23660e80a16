# shellcheck shell=bash
# Multi-VM tests: clusters of guests on a private bridge, driven through
# ./ramster-cluster.  Sourced by tests/run.sh, which provides report,
# report_problems, elapsed, LOGS, TOP and KERNEL_PROBLEMS.
#
# Three sessions, one cluster boot each:
#   pair       tests/configs/pair-fuzz.conf: start order, a pair under
#              pressure, swapoff, malformed frames, a peer restart, down
#   peers3     tests/configs/peers-3.conf: three peers under pressure at once
#   memserver  tests/configs/memserver-full.conf: a memory server and three
#              clients that overrun its capacity; its high mark lowered,
#              it recalls pages
#   lifecycle  the pair: suction, a manual shrink, a peer leaving, rmmod
#              with pages, a peer killed under a process (SIGBUS, never
#              stale data), down during a workload
#   writethrough  the pair in writethrough mode: a killed peer's pages are
#              read from the swap device

CLUSTER=$TOP/ramster-cluster
# Set while a session's cluster is up: tests/run.sh's cleanup takes it down.
export CLUSTER_UP=
DEBUGFS=/sys/kernel/debug/ramster

# Results per session, in order; tests/run.sh counts them for the plan.
CLUSTER_SESSIONS=(
	"pair|cluster_late_node_joins cluster_pair_up_and_exec cluster_nodes_reach_each_other cluster_stat_reads_every_node cluster_pair_remote_pages cluster_pair_swapoff_back_to_zero cluster_malformed_frames_rejected cluster_peer_restart_reconnects cluster_down_orderly cluster_pair_no_kernel_warnings"
	"peers3|cluster_three_peers_under_pressure cluster_peers3_no_kernel_warnings"
	"memserver|cluster_memserver_holds_client_pages cluster_memserver_full_refuses_puts cluster_memserver_recalls_past_high_mark cluster_memserver_no_kernel_warnings"
	"lifecycle|cluster_suction_brings_pages_home cluster_manual_shrink_to_target cluster_peer_leaves_gracefully cluster_rmmod_refused_then_drained cluster_dead_peer_sigbus_never_stale cluster_down_during_workload cluster_lifecycle_no_kernel_warnings"
	"writethrough|cluster_dead_peer_writethrough_device_serves cluster_writethrough_no_kernel_warnings"
)

# cx NODE CMD...: run a command in a node; its output, never a failure.
cx() { "$CLUSTER" exec "$@" 2>&1 | tr -d '\r' || true; }

# dbg NODE FILE: one value from a node's debugfs (empty if unreadable).
dbg() { cx "$1" "cat $DEBUGFS/$2" | head -n 1; }

# wait_until TIMEOUT_S CMD...: poll every second until CMD succeeds.
wait_until() {
	local timeout=$1 waited=0
	shift
	until "$@"; do
		waited=$((waited + 1))
		[ "$waited" -lt "$timeout" ] || return 1
		sleep 1
	done
}

peer_state_is() { [ "$(dbg "$1" "peers/$2/state")" = "$3" ]; }
peer_ups_are() { [ "$(dbg "$1" "peers/$2/link_ups")" = "$3" ]; }

# load_bg NODE MIB [SEED]: start the verifying workload (one pass).
load_bg() {
	cx "$1" "/bin/workload -m $2 -s ${3:-1} -p 1 -q > /tmp/load.out 2>&1 &" >/dev/null
}

load_result() { cx "$1" "cat /tmp/load.out" | grep 'workload: result' || true; }

# load_bad NODE: bad pages of the finished workload, or "none" if it did
# not finish.
load_bad() {
	local line
	line=$(load_result "$1")
	if [ -z "$line" ]; then
		echo none
	else
		line=${line##*bad=}
		echo "${line%% *}"
	fi
}

# watch_loads TIMEOUT_S "NODE:FILE"...: poll until every loading node's
# workload finished; WATCH_MAX["NODE:FILE"] gets the largest value seen.
declare -A WATCH_MAX
watch_loads() {
	local timeout=$1 start spec v busy num
	shift
	WATCH_MAX=()
	start=$(date +%s)
	while :; do
		for spec in "$@"; do
			v=$(dbg "${spec%%:*}" "${spec#*:}")
			[[ "$v" =~ ^[0-9]+$ ]] || continue
			if [ "$v" -gt "${WATCH_MAX[$spec]:-0}" ]; then WATCH_MAX[$spec]=$v; fi
		done
		busy=
		for num in $LOADING; do
			[ -n "$(load_result "$num")" ] || busy=yes
		done
		[ -n "$busy" ] || return 0
		[ $(($(date +%s) - start)) -lt "$timeout" ] || return 1
		sleep 2
	done
}

# Kernel problems in any console of the session (restarts included).
session_problems() {
	local f problems=
	for f in "$RAMSTER_CLUSTER_DIR"/nodes/*/console*.log; do
		[ -f "$f" ] || continue
		if grep -qaE "$KERNEL_PROBLEMS" "$f"; then
			problems="$problems $(basename "$(dirname "$f")"): $(grep -m1 -aE "$KERNEL_PROBLEMS" "$f" | tr -d '\r' | cut -c1-100)"
		fi
	done
	echo "$problems"
}

session_up() {
	local name=$1 conf=$2
	shift 2
	export RAMSTER_CLUSTER_DIR=$LOGS/cluster-$name
	rm -rf "$RAMSTER_CLUSTER_DIR"
	echo "# [$(elapsed)] cluster $name: up $(basename "$conf") $*, log $RAMSTER_CLUSTER_DIR"
	CLUSTER_UP=yes
	"$CLUSTER" up "$conf" "$@" > "$LOGS/cluster-$name-up.log" 2>&1
}

session_down() {
	"$CLUSTER" down > "$LOGS/cluster-$1-down.log" 2>&1
	local ret=$?
	CLUSTER_UP=
	return $ret
}

# report_figures NAME PROBLEMS FIGURES: ok with FIGURES as the comment if
# PROBLEMS is empty, else not ok with PROBLEMS.
report_figures() {
	if [ -z "$2" ]; then
		report ok "$1" "$3"
	else
		report "not ok" "$1" "$2"
	fi
}

# Report every result of a session as failed (its cluster did not boot).
session_failed() {
	local results=$1 why=$2 r
	for r in $results; do report "not ok" "$r" "$why"; done
}

# p50 and p99 of a node's remote load latencies, in microseconds.
latency_figures() {
	cx "$1" "cat $DEBUGFS/remote_load_latency_us" | grep -E '^[0-9]+$' | sort -n |
		awk '{ a[NR] = $1 } END { if (NR) printf "remote load latency p50 %d us, p99 %d us (%d samples)", a[int((NR + 1) / 2)], a[int(NR * 0.99 + 0.5)], NR }'
}

# RAM of a node's guest, MiB: the workloads are sized from it.
node_mem() { "$TOP/build/host/ramster-conf" get "$RAMSTER_CLUSTER_DIR/cluster.conf" "$1" memory; }

#########################################
# pair: two peers and a borrowed number
#########################################
session_pair() {
	local results=$1 conf=$TOP/tests/configs/pair-fuzz.conf problem out rtt
	local mem puts0 puts1 t0 t1 bad fuzz num pids
	if ! session_up pair "$conf" 1; then
		session_failed "$results" "up failed: $(tail -n 1 "$LOGS/cluster-pair-up.log")"
		return
	fi

	# Start order: node 2 boots well after node 1, which then uses it.
	problem=
	peer_state_is 1 2 down || problem="node 1 sees node 2 as $(dbg 1 peers/2/state) before it boots"
	sleep 5
	"$CLUSTER" start 2 >> "$LOGS/cluster-pair-up.log" 2>&1 || problem="$problem start 2 failed"
	wait_until 30 peer_state_is 1 2 live || problem="$problem link 1-2 not live 30s after node 2 booted"
	pids="$(cat "$RAMSTER_CLUSTER_DIR"/nodes/*/pid)"
	local late_problem=$problem

	problem=
	out=$(cx 1 cat /sys/kernel/config/ramster/node1/local /sys/kernel/config/ramster/node2/local | tr '\n' ' ')
	[ "$out" = "1 0 " ] || problem="node1 local flags: '$out'"
	out=$(cx 2 cat /sys/kernel/config/ramster/node2/local)
	[ "$out" = 1 ] || problem="$problem node2 local flag: '$out'"
	if "$CLUSTER" exec 2 false 2>/dev/null; then problem="$problem exit-status-lost"; fi
	local exec_problem=$problem

	local ping_out
	rtt=
	if ping_out=$("$CLUSTER" exec 1 ping -c 10 -i 0.2 10.213.0.2 2>&1) &&
		"$CLUSTER" exec 2 ping -c 3 -i 0.2 10.213.0.1 >/dev/null 2>&1; then
		rtt=$(sed -n 's|.*min/avg/max = \([0-9./]*\) ms|\1|p' <<< "$ping_out")
	fi

	out=$("$CLUSTER" stat 2>&1) || true
	echo "$out" > "$RAMSTER_CLUSTER_DIR/stat-idle.txt"
	local stat_ok=no
	if grep -qE '^stored_pages +[0-9]+ +[0-9]+' <<< "$out"; then stat_ok=yes; fi

	# The pair under pressure: node 1 at 3x its RAM.
	mem=$(node_mem 1)
	puts0=$(dbg 1 remote_puts)
	t0=$(date +%s)
	load_bg 1 $((mem * 3))
	LOADING=1 watch_loads 900 1:remote_pages 2:foreign_pages || true
	t1=$(date +%s)
	puts1=$(dbg 1 remote_puts)
	bad=$(load_bad 1)
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat-pair.txt" 2>&1 || true
	problem=
	[ "$bad" = 0 ] || problem="bad pages: $bad"
	[ "${WATCH_MAX[1:remote_pages]:-0}" -gt 0 ] || problem="$problem node 1 never had remote pages"
	[ "${WATCH_MAX[2:foreign_pages]:-0}" -gt 0 ] || problem="$problem node 2 never held foreign pages"
	local pair_problem=$problem
	local pair_figures
	pair_figures="peak remote ${WATCH_MAX[1:remote_pages]:-0}, peak foreign ${WATCH_MAX[2:foreign_pages]:-0}, $((puts1 - puts0)) pages remotified in $((t1 - t0))s ($(( (puts1 - puts0) / (t1 - t0 + 1) ))/s), $(latency_figures 1)"

	# Swapoff while a parked process has pages on node 2: every page
	# comes home, both sides drop to 0, the process verifies them all.
	problem=
	set_param 1 suction_interval_ms 0
	park 1
	wait_until 300 parked 1 || problem="workload never parked"
	local parked_remote
	parked_remote=$(dbg 1 remote_pages)
	[ "$parked_remote" -gt 0 ] 2>/dev/null || problem="$problem no remote pages at swapoff ($parked_remote)"
	t0=$(date +%s)
	cx 1 "swapoff /dev/vda; echo swapoff-exit=\$?" > "$RAMSTER_CLUSTER_DIR/swapoff.txt"
	t1=$(date +%s)
	grep -q 'swapoff-exit=0' "$RAMSTER_CLUSTER_DIR/swapoff.txt" || problem="$problem swapoff failed"
	sleep 2
	for out in 1:stored_pages 1:remote_pages 2:foreign_pages \
		1:peers/2/pages_held_there 2:peers/1/pages_held_for_it; do
		num=$(dbg "${out%%:*}" "${out#*:}")
		[ "$num" = 0 ] || problem="$problem $out=$num"
	done
	unpark 1
	problem="$problem$(verify_parked 1)"
	cx 1 "swapon /dev/vda" >/dev/null
	set_param 1 suction_interval_ms 1000
	local swapoff_problem=$problem
	local swapoff_figures="swapoff with $parked_remote remote pages took $((t1 - t0))s; 0 left anywhere, 0 bad"

	# Malformed frames to node 1 (from node 2's VM, as node 9) while
	# node 2 keeps swapping through node 1.
	problem=
	cx 2 "ip addr add 10.213.0.9/24 dev eth0" >/dev/null
	load_bg 2 $((mem * 2)) 7
	fuzz=$(cx 2 "/bin/ramster-fuzz -a 10.213.0.1 -p 7777 -s 10.213.0.9 -n 9 -t 1 -c ramster")
	echo "$fuzz" > "$RAMSTER_CLUSTER_DIR/fuzz.txt"
	LOADING=2 watch_loads 600 || problem="node 2 workload did not finish"
	grep -q 'fuzz: result failures=0' <<< "$fuzz" ||
		problem="$problem $(grep -c 'NOT closed' <<< "$fuzz") connections not closed"
	for out in rx_bad_magic:2 rx_bad_version:1 rx_unknown_type:2 rx_bad_flags:1 \
		rx_bad_length:2 rx_before_handshake:1 rx_bad_crc:2 rx_bad_node:1 \
		rx_bad_payload:1 handshake_rejects:3 protocol_errors:1; do
		num=$(dbg 1 "${out%:*}")
		[[ "$num" =~ ^[0-9]+$ ]] && [ "$num" -ge "${out#*:}" ] ||
			problem="$problem ${out%:*}=$num (want >= ${out#*:})"
	done
	num=$(dbg 1 peers/2/link_downs)
	[ "$num" = 0 ] || problem="$problem legit link 1-2 went down $num times"
	bad=$(load_bad 2)
	[ "$bad" = 0 ] || problem="$problem node 2 bad pages: $bad"
	[ "$(dbg 2 remote_puts)" -gt 0 ] 2>/dev/null || problem="$problem node 2 sent no pages"
	local fuzz_problem=$problem
	local fuzz_cases
	fuzz_cases=$(grep -c ' closed$' <<< "$fuzz" || true)

	# Node 2 restarts while node 1 is idle; node 1 reconnects and uses it.
	problem=
	cx 2 "swapoff /dev/vda" >/dev/null
	if "$CLUSTER" restart 2 >> "$LOGS/cluster-pair-up.log" 2>&1; then
		wait_until 30 peer_ups_are 1 2 2 || problem="node 1: link_ups to node 2 is $(dbg 1 peers/2/link_ups), want 2"
		wait_until 10 peer_state_is 1 2 live || problem="$problem link not live after restart"
		puts0=$(dbg 1 remote_puts)
		load_bg 1 $((mem * 2)) 3
		LOADING=1 watch_loads 600 || problem="$problem workload did not finish"
		bad=$(load_bad 1)
		[ "$bad" = 0 ] || problem="$problem bad pages: $bad"
		puts1=$(dbg 1 remote_puts)
		[ "$puts1" -gt "$puts0" ] 2>/dev/null || problem="$problem no pages to the restarted peer"
	else
		problem="restart failed: $(tail -n 1 "$LOGS/cluster-pair-up.log")"
	fi
	local restart_problem=$problem
	pids="$pids $(cat "$RAMSTER_CLUSTER_DIR"/nodes/2/pid)"

	problem=
	session_down pair || problem="down failed"
	for num in $pids; do
		if kill -0 "$num" 2>/dev/null; then problem="$problem pid-$num-alive"; fi
	done
	for num in 1 2; do
		grep -aq "RAMSTER-NODE: node$num down" "$RAMSTER_CLUSTER_DIR/nodes/$num/console.log" ||
			problem="$problem node$num-not-orderly"
	done
	if [ -f "$RAMSTER_CLUSTER_DIR/netns" ]; then problem="$problem namespace-left"; fi
	local down_problem=$problem

	report_problems cluster_late_node_joins "$late_problem"
	report_problems cluster_pair_up_and_exec "$exec_problem"
	if [ -n "$rtt" ]; then
		report ok cluster_nodes_reach_each_other "ping rtt min/avg/max $rtt ms"
	else
		report "not ok" cluster_nodes_reach_each_other "$(tail -n 2 <<< "$ping_out" | tr '\n' ' ')"
	fi
	if [ "$stat_ok" = yes ]; then
		report ok cluster_stat_reads_every_node
	else
		report "not ok" cluster_stat_reads_every_node "see $RAMSTER_CLUSTER_DIR/stat-idle.txt"
	fi
	report_figures cluster_pair_remote_pages "$pair_problem" "$pair_figures"
	report_figures cluster_pair_swapoff_back_to_zero "$swapoff_problem" "$swapoff_figures"
	report_figures cluster_malformed_frames_rejected "$fuzz_problem" "$fuzz_cases cases counted and closed, legit link kept"
	report_problems cluster_peer_restart_reconnects "$restart_problem"
	report_problems cluster_down_orderly "$down_problem"
	report_problems cluster_pair_no_kernel_warnings "$(session_problems)"
}

#########################################
# peers3: everyone lends, everyone borrows
#########################################
session_peers3() {
	local results=$1 num problem='' mem bad
	if ! session_up peers3 "$TOP/tests/configs/peers-3.conf"; then
		session_failed "$results" "up failed: $(tail -n 1 "$LOGS/cluster-peers3-up.log")"
		return
	fi
	mem=$(node_mem 1)
	for num in 1 2 3; do load_bg "$num" $((mem * 5 / 2)) "$num"; done
	LOADING="1 2 3" watch_loads 1200 1:remote_pages 2:remote_pages 3:remote_pages ||
		problem="workloads did not finish"
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat.txt" 2>&1 || true
	for num in 1 2 3; do
		bad=$(load_bad "$num")
		[ "$bad" = 0 ] || problem="$problem node $num bad pages: $bad"
		[ "${WATCH_MAX[$num:remote_pages]:-0}" -gt 0 ] ||
			problem="$problem node $num never had remote pages"
	done
	session_down peers3 || problem="$problem down failed"
	report_figures cluster_three_peers_under_pressure "$problem" "peak remote pages ${WATCH_MAX[1:remote_pages]}/${WATCH_MAX[2:remote_pages]}/${WATCH_MAX[3:remote_pages]}, 0 bad"
	report_problems cluster_peers3_no_kernel_warnings "$(session_problems)"
}

#########################################
# memserver: clients overrun a memory server
#########################################
session_memserver() {
	local results=$1 num problem='' full_problem='' mem bad v refused=0
	if ! session_up memserver "$TOP/tests/configs/memserver-full.conf"; then
		session_failed "$results" "up failed: $(tail -n 1 "$LOGS/cluster-memserver-up.log")"
		return
	fi
	mem=$(node_mem 2)
	for num in 2 3 4; do load_bg "$num" $((mem * 5 / 2)) "$num"; done
	LOADING="2 3 4" watch_loads 1200 1:foreign_pages || problem="workloads did not finish"
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat.txt" 2>&1 || true
	for num in 2 3 4; do
		bad=$(load_bad "$num")
		[ "$bad" = 0 ] || problem="$problem client $num bad pages: $bad"
		v=$(dbg "$num" foreign_puts)
		[ "$v" = 0 ] || problem="$problem client $num accepted $v foreign pages"
		v=$(dbg "$num" remote_puts_refused)
		[[ "$v" =~ ^[0-9]+$ ]] && refused=$((refused + v))
	done
	[ "${WATCH_MAX[1:foreign_pages]:-0}" -gt 0 ] || problem="$problem the server never held a page"
	for v in remote_puts remote_pages; do
		num=$(dbg 1 "$v")
		[ "$num" = 0 ] || problem="$problem server $v=$num"
	done
	full_problem=$problem
	v=$(dbg 1 foreign_puts_full)
	[ "$v" -gt 0 ] 2>/dev/null || full_problem="$full_problem server never full (foreign_puts_full=$v)"
	[ "$refused" -gt 0 ] || full_problem="$full_problem clients saw no refusal"
	[ "${WATCH_MAX[1:foreign_pages]:-0}" -le 3000 ] ||
		full_problem="$full_problem server held ${WATCH_MAX[1:foreign_pages]} pages, capacity 3000"
	local full_figures="$v puts refused at capacity, $refused refusals seen by clients, 0 bad"

	memserver_recall
	session_down memserver || problem="$problem down failed"
	report_figures cluster_memserver_holds_client_pages "$problem" "server peak ${WATCH_MAX[1:foreign_pages]} foreign pages, its own never sent, 0 bad"
	report_figures cluster_memserver_full_refuses_puts "$full_problem" "$full_figures"
	report_figures cluster_memserver_recalls_past_high_mark "$RECALL_PROBLEM" "$RECALL_FIGURES"
	report_problems cluster_memserver_no_kernel_warnings "$(session_problems)"
}

foreign_at_most() { [ "$(dbg "$1" foreign_pages)" -le "$2" ] 2>/dev/null; }

# sum_of FILE NODE...: a counter added over nodes.
sum_of() {
	local file=$1 num v total=0
	shift
	for num in "$@"; do
		v=$(dbg "$num" "$file")
		[[ "$v" =~ ^[0-9]+$ ]] && total=$((total + v))
	done
	echo "$total"
}

# The clients park pages, some of them on the server; then the server's
# marks are lowered below what it holds (as an administrator asking for
# memory back would): it recalls pages until it is under its high mark,
# and the clients' pages all verify.  Sets RECALL_PROBLEM, RECALL_FIGURES.
memserver_recall() {
	local num held percent high t0 t1 taken problem=
	for num in 2 3 4; do
		set_param "$num" suction_interval_ms 0
		park "$num"
	done
	for num in 2 3 4; do
		wait_until 400 parked "$num" || problem="$problem client $num never parked"
	done
	held=$(dbg 1 foreign_pages)
	if [ "$held" -ge 300 ] 2>/dev/null; then
		# High mark at half of what it holds, low mark at a quarter.
		percent=$((held * 50 / 3000))
		high=$((3000 * percent / 100))
		set_param 1 foreign_low_percent $((percent / 2))
		set_param 1 foreign_high_percent "$percent"
		t0=$(date +%s)
		wait_until 180 foreign_at_most 1 "$high" ||
			problem="$problem server still holds $(dbg 1 foreign_pages) pages, high mark $high"
		t1=$(date +%s)
	else
		problem="$problem the server holds only '$held' parked pages"
		high=0 t0=0 t1=0
	fi
	[ "$(dbg 1 recalls_sent)" -gt 0 ] 2>/dev/null || problem="$problem server sent no RECALL"
	taken=$(sum_of recall_pages 2 3 4)
	[ "$taken" -gt 0 ] || problem="$problem no client took a page back"
	for num in 2 3 4; do unpark "$num"; done
	for num in 2 3 4; do problem="$problem$(verify_parked "$num")"; done
	RECALL_PROBLEM=$problem
	RECALL_FIGURES="$held held, high mark $high: under it in $((t1 - t0))s, $taken pages taken back by the clients ($((taken / (t1 - t0 + 1)))/s), $(dbg 1 recalls_sent) RECALLs, 0 bad"
}

#########################################
# lifecycle: pages come home, or fail loudly
#########################################
# park NODE: a workload of a quarter of the node's RAM pushed out to swap
# by a hog of 2.75x RAM, waiting (memory allocated) until /tmp/ready.go
# appears.  Once the hog is gone the node has memory to spare (suction's
# mark is 25% of RAM available) even with the quarter back in.  It is an
# orphan of the agent, which records how it ended in /tmp/reaped (a shell
# waiting for it could itself die with a dead peer's pages).
park() {
	local mem
	mem=$(node_mem "$1")
	cx "$1" "rm -f /tmp/ready /tmp/ready.go; /bin/workload -m $((mem / 4)) -H $((mem * 11 / 4)) -r /tmp/ready -p 1 -q > /tmp/load.out 2>&1 & echo \$! > /tmp/load.pid" >/dev/null
}
parked() { [ -n "$(cx "$1" "ls /tmp/ready 2>/dev/null")" ]; }
unpark() { cx "$1" "touch /tmp/ready.go" >/dev/null; }
# shellcheck disable=SC2016  # expanded in the guest
load_exit() { cx "$1" 'grep "^$(cat /tmp/load.pid) " /tmp/reaped 2>/dev/null' | cut -d' ' -f2; }
load_exited() { [ -n "$(load_exit "$1")" ]; }
# verify_parked NODE: once unparked, wait for the workload; print what went
# wrong (nothing if it exited 0 with 0 bad pages).
verify_parked() {
	if ! wait_until 300 load_exited "$1"; then
		printf ' node %s: workload did not finish' "$1"
		return
	fi
	[ "$(load_exit "$1")" = 0 ] || printf ' node %s: workload exit %s' "$1" "$(load_exit "$1")"
	[ "$(load_bad "$1")" = 0 ] || printf ' node %s: bad pages: %s' "$1" "$(load_bad "$1")"
}
set_param() { cx "$1" "echo $3 > /sys/module/ramster/parameters/$2" >/dev/null; }
remote_is_zero() { [ "$(dbg "$1" remote_pages)" = 0 ]; }

session_lifecycle() {
	local results=$1 problem mem t0 t1 v held target after detect out spec
	local num puts0 suction_problem suction_figures shrink_problem shrink_figures
	local leave_problem leave_figures rmmod_problem rmmod_figures
	local dead_problem dead_figures down_problem
	if ! session_up lifecycle "$TOP/tests/configs/pair-fuzz.conf" 1 2; then
		session_failed "$results" "up failed: $(tail -n 1 "$LOGS/cluster-lifecycle-up.log")"
		return
	fi
	mem=$(node_mem 1)

	# Suction: the hog goes, memory is plentiful again, pages come home.
	problem=
	set_param 1 suction_interval_ms 0
	park 1
	wait_until 300 parked 1 || problem="workload never parked"
	v=$(dbg 1 remote_pages)
	[ "$v" -gt 0 ] 2>/dev/null || problem="$problem no remote pages after the hog ($v)"
	t0=$(date +%s)
	set_param 1 suction_interval_ms 1000
	wait_until 180 remote_is_zero 1 || problem="$problem remote pages still $(dbg 1 remote_pages) after 180s"
	t1=$(date +%s)
	unpark 1
	problem="$problem$(verify_parked 1)"
	suction_figures="$v remote pages home in $((t1 - t0))s; $(cx 1 "dmesg | grep 'suction: shrink'" |
		awk '{ for (i = 1; i <= NF; i++) { if ($i == "->") { n += $(i - 1) - $(i + 1) } if ($i == "ms") ms += $(i - 1) } }
			END { if (ms) printf "suction %d pages in %d ms of passes (%d pages/s)", n, ms, n * 1000 / ms }')"
	suction_problem=$problem

	# The administrator's shrink: down to a quarter, within a margin.
	problem=
	set_param 1 suction_interval_ms 0
	park 1
	wait_until 300 parked 1 || problem="workload never parked"
	held=$(cx 1 "cat /sys/kernel/debug/frontswap/curr_pages")
	target=$((held / 4))
	cx 1 "echo $target > /sys/module/ramster/control/shrink_target" >/dev/null
	after=$(cx 1 "cat /sys/kernel/debug/frontswap/curr_pages")
	[ "$after" -le $((target + held / 20 + 128)) ] 2>/dev/null ||
		problem="curr_pages $after after shrinking $held to $target"
	unpark 1
	problem="$problem$(verify_parked 1)"
	shrink_figures="$held -> $after pages (target $target); $(cx 1 "dmesg | grep 'admin: shrink' | tail -n 1" |
		awk '{ for (i = 1; i <= NF; i++) { if ($i == "->") { n = $(i - 1) - $(i + 1) } if ($i == "ms") ms = $(i - 1) } }
			END { if (ms) printf "%d pages in %d ms (%d pages/s)", n, ms, n * 1000 / ms }')"
	shrink_problem=$problem

	# Node 2 leaves: node 1 takes its pages back, node 2 takes no more.
	problem=
	set_param 1 suction_interval_ms 0
	park 1
	wait_until 300 parked 1 || problem="workload never parked"
	v=$(dbg 1 remote_pages)
	[ "$v" -gt 0 ] 2>/dev/null || problem="$problem no remote pages to take back ($v)"
	t0=$(date +%s)
	out=$("$CLUSTER" leave 2 2>&1) || problem="$problem leave failed: $(tail -n 1 <<< "$out")"
	t1=$(date +%s)
	puts0=$(dbg 1 remote_puts)
	sleep 3
	for spec in 2:foreign_pages 1:remote_pages 1:peers/2/pages_held_there; do
		num=$(dbg "${spec%%:*}" "${spec#*:}")
		[ "$num" = 0 ] || problem="$problem $spec=$num after leaving"
	done
	[ "$(dbg 1 remote_puts)" = "$puts0" ] || problem="$problem node 2 took pages while leaving"
	[ "$(dbg 1 peers/2/room)" = 0 ] || problem="$problem node 2 offers room $(dbg 1 peers/2/room) while leaving"
	unpark 1
	problem="$problem$(verify_parked 1)"
	"$CLUSTER" rejoin 2 >/dev/null 2>&1 || problem="$problem rejoin failed"
	leave_figures="$v remote pages taken back in $((t1 - t0))s ($(dbg 1 recall_pages) by recall)"
	leave_problem=$problem

	# rmmod while pages are stored, local and remote: refused, nothing
	# lost; drained, it goes; loaded again, the node rejoins.
	problem=
	park 1
	wait_until 300 parked 1 || problem="workload never parked"
	held=$(dbg 1 stored_pages)
	v=$(dbg 1 remote_pages)
	[ "$v" -gt 0 ] 2>/dev/null || problem="$problem no remote pages ($v)"
	[ "$(dbg 1 local_pages)" -gt 0 ] 2>/dev/null || problem="$problem no local pages"
	if out=$(cx 1 "rmmod ramster 2>&1 && echo RMMOD-OK"); [[ "$out" == *RMMOD-OK* ]]; then
		problem="$problem rmmod with $held pages succeeded"
	fi
	[ "$(dbg 1 stored_pages)" = "$held" ] || problem="$problem stored_pages $held -> $(dbg 1 stored_pages) after the refused rmmod"
	t0=$(date +%s)
	if ! out=$("$CLUSTER" unload 1 2>&1); then
		problem="$problem unload failed: $(tail -n 1 <<< "$out")"
	fi
	t1=$(date +%s)
	[ -z "$(cx 1 "grep '^ramster ' /proc/modules")" ] || problem="$problem ramster still loaded"
	[ -n "$(cx 1 "dmesg | grep 'drained: no page held'")" ] || problem="$problem no drain message"
	unpark 1
	problem="$problem$(verify_parked 1)"
	[ "$(dbg 2 foreign_pages)" = 0 ] || problem="$problem node 2 still holds $(dbg 2 foreign_pages) pages"
	"$CLUSTER" reload 1 >/dev/null 2>&1 || problem="$problem reload failed"
	wait_until 30 peer_state_is 1 2 live || problem="$problem link not live after reload"
	set_param 1 suction_interval_ms 0
	rmmod_figures="rmmod refused with $held pages ($v remote); $(grep -o 'drain done in [0-9.]*s' <<< "$out" || echo 'no drain'), then rmmod; 0 bad"
	rmmod_problem=$problem

	# A peer dies under a parked process: SIGBUS, never a stale page.
	problem=
	park 1
	wait_until 300 parked 1 || problem="workload never parked"
	v=$(dbg 1 remote_pages)
	[ "$v" -gt 0 ] 2>/dev/null || problem="$problem no remote pages to lose ($v)"
	"$CLUSTER" kill 2 >/dev/null 2>&1 || problem="$problem kill failed"
	t0=$(date +%s)
	wait_until 60 peer_state_is 1 2 down || problem="$problem node 2 not seen down after 60s"
	detect=$(($(date +%s) - t0))
	unpark 1
	wait_until 300 load_exited 1 || problem="$problem workload did not end"
	v=$(load_exit 1)
	[ "$v" = 135 ] || problem="$problem workload exit $v, want 135 (SIGBUS)"
	if cx 1 "cat /tmp/load.out" | grep -q 'BAD page'; then
		problem="$problem the workload read a wrong page"
	fi
	[ -n "$(cx 1 "dmesg | grep 'frontswap cannot produce the page' | head -n 1")" ] ||
		problem="$problem no I/O error logged"
	v=$(cx 1 "/bin/workload -m 8 -p 1 -q | tail -n 1")
	[[ "$v" == *"bad=0"* ]] || problem="$problem a new process failed: $v"
	dead_figures="node 2 seen down ${detect}s after the kill; $(dbg 1 remote_loads_failed) remote loads failed, workload killed by SIGBUS"
	dead_problem=$problem

	# Down while a node is loaded: orderly and bounded.
	problem=
	"$CLUSTER" start 2 >/dev/null 2>&1 || problem="restart of node 2 failed"
	wait_until 30 peer_state_is 1 2 live || problem="$problem link not live again"
	load_bg 1 $((mem * 3)) 5
	sleep 20
	t0=$(date +%s)
	session_down lifecycle || problem="$problem down failed"
	t1=$(date +%s)
	[ $((t1 - t0)) -le 400 ] || problem="$problem down took $((t1 - t0))s"
	if [ -f "$RAMSTER_CLUSTER_DIR/netns" ]; then problem="$problem namespace-left"; fi
	down_problem=$problem

	report_figures cluster_suction_brings_pages_home "$suction_problem" "$suction_figures"
	report_figures cluster_manual_shrink_to_target "$shrink_problem" "$shrink_figures"
	report_figures cluster_peer_leaves_gracefully "$leave_problem" "$leave_figures"
	report_figures cluster_rmmod_refused_then_drained "$rmmod_problem" "$rmmod_figures"
	report_figures cluster_dead_peer_sigbus_never_stale "$dead_problem" "$dead_figures"
	report_figures cluster_down_during_workload "$down_problem" "down in $((t1 - t0))s"
	report_problems cluster_lifecycle_no_kernel_warnings "$(session_problems)"
}

#########################################
# writethrough: the device has every page
#########################################
session_writethrough() {
	local results=$1 problem='' v
	if ! RAMSTER_PARAMS=writethrough=1,suction_interval_ms=0 \
		session_up writethrough "$TOP/tests/configs/pair-fuzz.conf" 1 2; then
		session_failed "$results" "up failed: $(tail -n 1 "$LOGS/cluster-writethrough-up.log")"
		return
	fi
	park 1
	wait_until 300 parked 1 || problem="workload never parked"
	v=$(dbg 1 remote_pages)
	[ "$v" -gt 0 ] 2>/dev/null || problem="$problem no remote pages to lose ($v)"
	"$CLUSTER" kill 2 >/dev/null 2>&1 || problem="$problem kill failed"
	unpark 1
	wait_until 600 load_exited 1 || problem="$problem workload did not end"
	[ "$(load_exit 1)" = 0 ] || problem="$problem workload exit $(load_exit 1)"
	[ "$(load_bad 1)" = 0 ] || problem="$problem bad pages: $(load_bad 1)"
	v=$(cx 1 "cat /sys/kernel/debug/frontswap/failed_loads")
	[ "$v" -gt 0 ] 2>/dev/null || problem="$problem no load fell back to the device ($v)"
	session_down writethrough || problem="$problem down failed"
	report_figures cluster_dead_peer_writethrough_device_serves "$problem" "$v lost pages read from the swap device, 0 bad"
	report_problems cluster_writethrough_no_kernel_warnings "$(session_problems)"
}

# cluster_session NAME: run one session with its results.
cluster_session() {
	local spec name results
	for spec in "${CLUSTER_SESSIONS[@]}"; do
		name=${spec%%|*}
		results=${spec#*|}
		[ "$name" = "$1" ] || continue
		"session_$name" "$results"
	done
}
