# shellcheck shell=bash
# The cluster sessions' library.  A session (tests/cluster/NAME.sh, run by
# tests/run.sh as "bash FILE") boots one cluster through ./ramster-cluster
# and runs named checks on it, one after the other; each check prints its
# result as soon as it is known:
#
#   RESULT: ok NAME [# FIGURES]      RESULT: not ok NAME # PROBLEMS
#   RESULT: ok NAME # SKIP REASON    SESSION-ABORT: REASON (nothing follows)
#
# tests/run.sh turns them into KTAP lines as they come, and reports every
# result the session declared ("# results:" in its header) but did not
# print as a failure.  Its header also gives "# timeout:" (seconds for the
# whole session, boots included).
#
# From tests/run.sh: TOP, LOGS, KERNEL_PROBLEMS.  The cluster's logs are in
# $LOGS/cluster-NAME/ (RAMSTER_CLUSTER_DIR), its sockets in a runtime
# directory of the launcher's.
set -euo pipefail

: "${TOP:?run by tests/run.sh}" "${LOGS:?}" "${KERNEL_PROBLEMS:?}"

# shellcheck source=scripts/qemu-lib.sh
. "$TOP/scripts/qemu-lib.sh"

SESSION=$(basename "$0" .sh)
CLUSTER=$TOP/ramster-cluster
DEBUGFS=/sys/kernel/debug/ramster
export RAMSTER_CLUSTER_DIR=$LOGS/cluster-$SESSION
UP_LOG=$LOGS/cluster-$SESSION-up.log
DOWN_LOG=$LOGS/cluster-$SESSION-down.log
# Set while the cluster is up: the exit trap takes it down.
CLUSTER_UP=
# The QEMUs ("PID:START", node_qemus) the session's nodes had at its
# start and since (for cluster_down_orderly).
PIDS=

#########################################
# results
#########################################
declared_results() { sed -n 's/^# results: *//p' "$0" | tr '\n' ' '; }

# problem TEXT...: what went wrong in the running check (nothing if empty).
problem() {
	[ -n "$*" ] || return 0
	PROBLEM="${PROBLEM:+$PROBLEM; }$*"
}

# check NAME FUNCTION [ARGS...]: run one check and print its result and
# how long it took (the suite's time profile).  The function says what
# went wrong with "problem" and may set FIGURES (what it measured: the
# comment of an ok).
check() {
	local name=$1 start=$SECONDS
	shift
	PROBLEM=
	FIGURES=
	"$@"
	echo "# check $name: $((SECONDS - start)) s"
	if [ -z "$PROBLEM" ]; then
		echo "RESULT: ok $name${FIGURES:+ # $FIGURES}"
	else
		echo "RESULT: not ok $name # $PROBLEM"
	fi
}

# abort REASON: the session cannot go on; tests/run.sh fails the results
# not reported yet with REASON.
abort() {
	echo "SESSION-ABORT: $*"
	exit 1
}

# skip_session REASON: every declared result is a SKIP.
skip_session() {
	local r
	for r in $(declared_results); do echo "RESULT: ok $r # SKIP $*"; done
	exit 0
}

#########################################
# the cluster
#########################################
on_exit() {
	if [ -n "$CLUSTER_UP" ]; then
		"$CLUSTER" down --now >> "$DOWN_LOG" 2>&1 || true
	fi
}
trap on_exit EXIT
trap 'exit 143' INT TERM

# session_up [--insecure] [--data-disk SIZE] CONFIG [NODE...]: boot the
# session's cluster (with a cluster key of its own, or none; with an ext4
# data disk in every node, see ramster-cluster), or abort.
session_up() {
	local flags=() conf
	while :; do
		case "${1:-}" in
		--insecure) flags+=("$1"); shift ;;
		--data-disk) flags+=("$1" "$2"); shift 2 ;;
		*) break ;;
		esac
	done
	conf=$1
	shift
	if [ "$(id -u)" != 0 ]; then
		skip_session "network namespaces and taps need root"
	fi
	rm -rf "$RAMSTER_CLUSTER_DIR"
	echo "# cluster $SESSION: up ${flags[*]} $(basename "$conf") $*, log $RAMSTER_CLUSTER_DIR"
	CLUSTER_UP=yes
	if ! "$CLUSTER" up "${flags[@]}" "$conf" "$@" > "$UP_LOG" 2>&1; then
		CLUSTER_UP=
		abort "up failed: $(tail -n 1 "$UP_LOG")"
	fi
	PIDS=$(node_qemus)
}

# node_qemus: "PID:START" of each node's QEMU as last started (pid_is).
node_qemus() {
	local dir
	for dir in "$RAMSTER_CLUSTER_DIR"/nodes/*; do
		if [ -f "$dir/pid" ]; then
			echo "$(cat "$dir/pid"):$(cat "$dir/pid.start" 2>/dev/null || true)"
		fi
	done
}

session_down() {
	local ret=0
	kmemleak_scan_nodes
	"$CLUSTER" down > "$DOWN_LOG" 2>&1 || ret=$?
	CLUSTER_UP=
	return $ret
}

# cx NODE CMD...: run a command in a node; its output, never a failure.
cx() { "$CLUSTER" exec "$@" 2>&1 | tr -d '\r' || true; }

# dbg NODE FILE: one value from a node's debugfs, empty if unreadable.
# Every file read so is one word (a counter, a state): anything else is
# an error's text (a busy guest's agent timed out, the node is down),
# which must not reach a comparison or $(( )) as if it were a value.
dbg() { cx "$1" "cat $DEBUGFS/$2" | head -n 1 | grep -xE '[[:alnum:]_.-]+' || true; }

# node_conf NODE KEY: a value of the node's stanza in the cluster.conf.
node_conf() { "$TOP/build/host/ramster-conf" get "$RAMSTER_CLUSTER_DIR/cluster.conf" "$1" "$2"; }

# RAM of a node's guest, MiB: the workloads are sized from it.
node_mem() { node_conf "$1" memory; }
# node_ram NODE: the MiB a node's processes compete for: its configured
# memory, or what its kernel reports (MemTotal) if that is more.  Only
# the debug kernel's guests report more: they get RAMSTER_GUEST_MEM_EXTRA
# MiB beyond their configuration (tests/run.sh), most of it taken by
# KASAN and debug slab, and a workload sized from the configuration
# alone presses such a node too little.
node_ram() {
	local conf total
	conf=$(node_mem "$1")
	total=$(cx "$1" "sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo" | grep -xE '[0-9]+' || true)
	if [ -n "$total" ] && [ $((total / 1024)) -gt "$conf" ]; then
		echo $((total / 1024))
	else
		echo "$conf"
	fi
}

# task_where NODE PID: where a process of NODE sleeps, for a failure
# message ("pid 123 State: D (disk sleep), in folio_wait_bit < ..."): its
# state and kernel stack, innermost first.  PID is expanded in the guest
# ('$(pidof swapoff)': the first of several).  Bounded: the check that
# asks has failed already.
task_where() {
	# shellcheck disable=SC2016  # expanded in the guest
	RAMSTER_EXEC_TIMEOUT=30 cx "$1" 'set -- '"$2"'; p=${1:-?}; [ -d "/proc/$p" ] || { echo "pid $p gone"; exit; }; echo "pid $p $(grep ^State: /proc/$p/status), in $(sed "s/^\[<[0-9a-f]*>\] //; s/+0x.*//" /proc/$p/stack 2>/dev/null | head -n 24 | tr "\n" "<")"' |
		tr -s '\t\n' '  ' | sed 's/< *$//; s/</ < /g'
}

set_param() { cx "$1" "echo $3 > /sys/module/ramster/parameters/$2" >/dev/null; }

# node_tap NUM: the tap of node NUM in the cluster's namespace.
node_tap() {
	local index
	index=$(grep -n -x "$1" "$RAMSTER_CLUSTER_DIR/nodes.list" | cut -d: -f1)
	echo "rtap$index"
}

# tap_set NUM up|down: cut node NUM off the bridge, or join it again (a
# session that cuts a node sets it up again in its exit trap).
tap_set() {
	ip netns exec "$(cat "$RAMSTER_CLUSTER_DIR/netns")" \
		ip link set "$(node_tap "$1")" "$2"
}

# left_counts OWNER HOLDER: OWNER's pages that either side still counts,
# one "NODE:FILE=N" per count that is not 0 (nothing once all are).
left_counts() {
	local spec num
	for spec in "$1:stored_pages" "$1:remote_pages" "$2:foreign_pages" \
		"$1:peers/$2/pages_held_there" "$2:peers/$1/pages_held_for_it"; do
		num=$(dbg "${spec%%:*}" "${spec#*:}")
		[ "$num" = 0 ] || echo "$spec=$num"
	done
}
nothing_left() { [ -z "$(left_counts "$1" "$2")" ]; }

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
remote_is_zero() { [ "$(dbg "$1" remote_pages)" = 0 ]; }
foreign_at_most() { [ "$(dbg "$1" foreign_pages)" -le "$2" ] 2>/dev/null; }
remote_at_least() { [ "$(dbg "$1" remote_pages)" -ge "$2" ] 2>/dev/null; }
# dbg_above NODE FILE N: NODE's debugfs FILE holds a number above N.
dbg_above() { [ "$(dbg "$1" "$2")" -gt "$3" ] 2>/dev/null; }

# dbg_num NODE FILE: a counter, asked again (3 times in all) while the
# guest does not answer with a number; empty if it never does.
dbg_num() {
	local tries=0 v
	while :; do
		v=$(dbg "$1" "$2")
		tries=$((tries + 1))
		[[ "$v" =~ ^[0-9]+$ ]] && break
		if [ "$tries" -ge 3 ]; then
			v=
			break
		fi
		sleep 1
	done
	echo "$v"
}

# since NODE FILE BASE: how much a counter grew from BASE, "?" if either
# is not a number (for figures: an unreadable counter is not a zero).
since() {
	local v
	v=$(dbg "$1" "$2")
	if [[ "$v" =~ ^[0-9]+$ && "$3" =~ ^[0-9]+$ ]]; then
		echo $((v - $3))
	else
		echo "?"
	fi
}

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

# p50 and p99 of a node's remote load latencies, in microseconds; nothing
# (and no failure: callers assign it under set -e) before the first load.
latency_figures() {
	cx "$1" "cat $DEBUGFS/remote_load_latency_us" | { grep -E '^[0-9]+$' || true; } | sort -n |
		awk '{ a[NR] = $1 } END { if (NR) printf "remote load latency p50 %d us, p99 %d us (%d samples)", a[int((NR + 1) / 2)], a[int(NR * 0.99 + 0.5)], NR }'
}

#########################################
# counters and the frame fuzzer
#########################################
# The cluster key as the guests read it (root only), from the launcher's
# fw_cfg file.
# shellcheck disable=SC2034  # the sessions use it
KEY=/sys/firmware/qemu_fw_cfg/by_name/opt/ramster/key/raw
FUZZ="/bin/ramster-fuzz -a 10.213.0.1 -p 7777 -t 1 -c ramster"

# summary NODE: every counter of NODE, one "name=value" line.
summary() { cx "$1" "cat $DEBUGFS/summary"; }

# delta BEFORE AFTER NAME: how much counter NAME grew ("?" if missing).
delta() {
	local b a
	b=$(tr ' ' '\n' <<< "$1" | sed -n "s/^$3=//p")
	a=$(tr ' ' '\n' <<< "$2" | sed -n "s/^$3=//p")
	if [[ "$b" =~ ^[0-9]+$ ]] && [[ "$a" =~ ^[0-9]+$ ]]; then
		echo $((a - b))
	else
		echo "?"
	fi
}

# unchanged BEFORE AFTER WHAT NAME...: a problem for each counter that moved.
unchanged() {
	local b=$1 a=$2 what=$3 name d
	shift 3
	for name in "$@"; do
		d=$(delta "$b" "$a" "$name")
		[ "$d" = 0 ] || problem "$what: $name +$d"
	done
}

# fuzz NAME NODE ARGS...: ramster-fuzz in NODE's VM, against node 1 unless
# ARGS say otherwise; its output in FUZZ_OUT and in
# $RAMSTER_CLUSTER_DIR/fuzz-NAME.txt.
fuzz() {
	local name=$1 node=$2
	shift 2
	FUZZ_OUT=$(cx "$node" "$FUZZ $*")
	echo "$FUZZ_OUT" > "$RAMSTER_CLUSTER_DIR/fuzz-$name.txt"
}

# fuzz_ok NAME: every case of the last fuzz went as it must.
fuzz_ok() {
	grep -q 'fuzz: result failures=0' <<< "$FUZZ_OUT" ||
		problem "fuzz $1: $(grep -E 'NOT closed|FAILED|bytes before|refused|no HELLO|ramster-fuzz:' <<< "$FUZZ_OUT" | head -n 3 | tr '\n' ' ')(fuzz-$1.txt)"
}

# fuzz_counted NAME BEFORE AFTER: each counter the fuzzer's cases name
# ("fuzz-info: CASE COUNTER MS") grew by at least the number of cases
# naming it.
fuzz_counted() {
	local name=$1 before=$2 after=$3 want c got
	while read -r want c; do
		got=$(delta "$before" "$after" "$c")
		if [ "$got" = "?" ] || [ "$got" -lt "$want" ]; then
			problem "fuzz $name: $c +$got, want +$want"
		fi
	done < <(awk '$1 == "fuzz-info:" { n[$3]++ } END { for (c in n) print n[c], c }' <<< "$FUZZ_OUT")
}

#########################################
# workloads
#########################################
# load_bg NODE MIB [SEED]: start the verifying workload: two passes, the
# first rewriting a quarter of the pages, so a stale copy is caught.
load_bg() {
	cx "$1" "/bin/workload -m $2 -s ${3:-1} -p 2 -q > /tmp/load.out 2>&1 & echo \$! > /tmp/load.pid" >/dev/null
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

# watch_loads TIMEOUT_S "NODE:FILE"...: poll until every node in LOADING
# finished its workload; WATCH_MAX["NODE:FILE"] gets the largest value seen.
# A workload that ended without its result line (killed: SIGBUS, the OOM
# killer) is a problem at once, not a wait until the timeout.
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
			[ -n "$(load_result "$num")" ] && continue
			if ! workload_gone "$num"; then
				busy=yes
				continue
			fi
			# Gone: its result may have been written since it was read.
			[ -n "$(load_result "$num")" ] && continue
			problem "node $num: the workload ended (exit $(load_exit "$num")) without its result: $(cx "$num" 'tail -n 2 /tmp/load.out' | tr '\n' ' ')"
			LOADING=$(echo " $LOADING " | sed "s/ $num / /")
		done
		[ -n "$busy" ] || return 0
		[ $(($(date +%s) - start)) -lt "$timeout" ] || return 1
		sleep 2
	done
}

# guest_gone NODE PIDFILE: the guest says the process whose PID is in
# PIDFILE is gone.  Not when the guest does not answer (a busy guest's
# agent times out): a process is never presumed dead for want of an
# answer.  A zombie runs once: the agent reaps orphans after a command.
guest_gone() {
	[ "$(cx "$1" "if kill -0 \$(cat $2) 2>/dev/null; then echo alive; else echo gone; fi" | tail -n 1)" = gone ]
}

# workload_gone NODE: the same for the workload in /tmp/load.pid.
workload_gone() { guest_gone "$1" /tmp/load.pid; }

# load_not_killed NODE: a problem if NODE's workload is gone without its
# result line (killed: SIGBUS).
load_not_killed() {
	if workload_gone "$1" && [ -z "$(load_result "$1")" ]; then
		problem "the workload died (SIGBUS?): $(cx "$1" 'tail -n 2 /tmp/load.out' | tr '\n' ' ')"
	fi
}

# verify_load NODE: wait for NODE's workload (up to 1500 s); a problem
# unless it finished with 0 bad pages.
verify_load() {
	local bad
	LOADING=$1 watch_loads 1500 "$1:remote_pages" || problem "workload did not finish"
	bad=$(load_bad "$1")
	case "$bad" in
	0) ;;
	none) problem "the workload died (SIGBUS?): $(cx "$1" 'tail -n 2 /tmp/load.out' | tr '\n' ' ')" ;;
	*) problem "$bad bad pages" ;;
	esac
}

# park NODE [FLAGS]: a workload (with FLAGS) of a quarter of the node's
# RAM pushed out to swap by a hog of 2.75x RAM, waiting (memory
# allocated) until /tmp/ready.go appears.  Once the hog is gone the node
# has memory to spare (suction's mark is 25% of RAM available) even with
# the quarter back in.  It is an orphan of the agent, which records how
# it ended in /tmp/reaped (a shell waiting for it could itself die with a
# dead peer's pages).
park() {
	local mem
	mem=$(node_mem "$1")
	cx "$1" "rm -f /tmp/ready /tmp/ready.go; /bin/workload -m $((mem / 4)) -H $((mem * 11 / 4)) -r /tmp/ready -p 2 ${2:-} -q > /tmp/load.out 2>&1 & echo \$! > /tmp/load.pid" >/dev/null
}
parked() { [ -n "$(cx "$1" "ls /tmp/ready 2>/dev/null")" ]; }
unpark() { cx "$1" "touch /tmp/ready.go" >/dev/null; }
# load_exit NODE: the exit code of the workload in /tmp/load.pid, empty
# while it runs.  Only a number counts: cx's own error text ("guest-exec:
# timed out ...", a busy guest) once read as an exit, and the newest
# record wins (a PID the guest used again).
# shellcheck disable=SC2016  # expanded in the guest
load_exit() {
	cx "$1" 'grep "^$(cat /tmp/load.pid) " /tmp/reaped 2>/dev/null' |
		awk '$2 ~ /^[0-9]+$/ { code = $2 } END { if (code != "") print code }'
}
load_exited() { [ -n "$(load_exit "$1")" ]; }

# park_with_remote NODE [FLAGS]: park NODE's workload (with FLAGS) and
# wait for it; a problem unless pages of it are on another node
# (PARKED_REMOTE: how many).  With -S (the upper half of its area
# tmpfs), a problem unless most of that half is in swap too
# (PARKED_TMPFS_SWAP: its kB in swap, of PARKED_TMPFS kB).
park_with_remote() {
	local v
	park "$1" "${2:-}"
	wait_until 300 parked "$1" || problem "workload never parked"
	v=$(dbg "$1" remote_pages)
	[ "$v" -gt 0 ] 2>/dev/null || problem "no remote pages once parked ($v)"
	# shellcheck disable=SC2034  # read by the sessions' figures
	PARKED_REMOTE=$v
	[[ "${2:-}" == *-S* ]] || return 0
	# shellcheck disable=SC2016  # expanded in the guest
	v=$(cx "$1" 'awk '\''/memfd:workload/ { f = 1; next } f && /^Size:/ { s = $2 } f && /^Swap:/ { print s, $2; exit }'\'' /proc/$(cat /tmp/load.pid)/smaps')
	if ! [[ "$v" =~ ^[0-9]+\ [0-9]+$ ]]; then
		problem "no tmpfs mapping in the parked process's smaps: '$v'"
		return 0
	fi
	PARKED_TMPFS=${v%% *}
	PARKED_TMPFS_SWAP=${v##* }
	[ "$PARKED_TMPFS_SWAP" -gt $((PARKED_TMPFS / 2)) ] ||
		problem "the tmpfs half is not in swap: $PARKED_TMPFS_SWAP of $PARKED_TMPFS kB"
}

# verify_parked NODE: once unparked, wait for the workload; a problem
# unless it exited 0 with 0 bad pages.
verify_parked() {
	if ! wait_until 300 load_exited "$1"; then
		problem "node $1: workload did not finish"
		return
	fi
	[ "$(load_exit "$1")" = 0 ] || problem "node $1: workload exit $(load_exit "$1")"
	[ "$(load_bad "$1")" = 0 ] || problem "node $1: bad pages: $(load_bad "$1")"
}

# swapoff_start NODE: swapoff of NODE's /dev/vda in the background (its
# exit status in the guest's /tmp/swapoff.exit once it returns).
swapoff_start() {
	cx "$1" "rm -f /tmp/swapoff.exit; (swapoff /dev/vda; echo \$? > /tmp/swapoff.exit) > /dev/null 2>&1 &" >/dev/null
}
swapoff_done() { [ -n "$(cx "$1" 'cat /tmp/swapoff.exit 2>/dev/null')" ]; }

# swapoff_finish NODE HOLDER [TIMEOUT_S]: wait for NODE's background
# swapoff (600 s unless TIMEOUT_S) with its parked process: a problem
# unless swapoff returned 0, neither NODE nor HOLDER counts a page of
# NODE's within two minutes, and the process, unparked, verifies; then
# swap is on again.
swapoff_finish() {
	local v timeout=${3:-600}
	# shellcheck disable=SC2016  # expanded in the guest
	wait_until "$timeout" swapoff_done "$1" ||
		problem "swapoff did not return in $timeout s: $(task_where "$1" '$(pidof swapoff)')"
	v=$(cx "$1" 'cat /tmp/swapoff.exit 2>/dev/null')
	[ "$v" = 0 ] || problem "swapoff exit ${v:-?}"
	wait_until 120 nothing_left "$1" "$2" ||
		problem "two minutes after swapoff: $(left_counts "$1" "$2" | tr '\n' ' ')"
	unpark "$1"
	verify_parked "$1"
	cx "$1" "swapon /dev/vda" >/dev/null
}

# verify_parked_sigbus NODE: once unparked over lost pages, the workload
# must die of SIGBUS (exit 135) without reading a wrong page, and a new
# process on the node must run.
verify_parked_sigbus() {
	local v
	wait_until 300 load_exited "$1" || problem "workload did not end (hung?)"
	v=$(load_exit "$1")
	[ "$v" = 135 ] || problem "workload exit $v, want 135 (SIGBUS)"
	if cx "$1" "cat /tmp/load.out" | grep -q 'BAD page'; then
		problem "the workload read a wrong page"
	fi
	v=$(cx "$1" "/bin/workload -m 8 -p 2 -q | tail -n 1")
	[[ "$v" == *"bad=0"* ]] || problem "a new process failed: $v"
}

#########################################
# checks every session can use
#########################################
# kmemleak_scan_nodes: on the debug kernel (make test-debug), every live
# node scans for leaks (twice: a pointer in flight is seen by one of them)
# into nodes/NUM/kmemleak.log, which check_consoles_clean reads with the
# consoles.  Before the cluster goes down, and when the consoles are
# checked; a node stopped or killed earlier takes its leaks with it.
kmemleak_scan_nodes() {
	local dir
	for dir in "$RAMSTER_CLUSTER_DIR"/nodes/*; do
		[ -n "$(recorded_pid "$dir")" ] || continue
		# shellcheck disable=SC2016  # expanded in the guest
		cx "$(basename "$dir")" 'k=/sys/kernel/debug/kmemleak; if [ -w $k ]; then { echo scan > $k && echo scan > $k; } 2>/dev/null || echo kmemleak scan failed; cat $k; fi' \
			> "$dir/kmemleak.log"
	done
}

# Kernel problems in any console of the session (restarts included), and
# leaks the nodes' last kmemleak scans found.
check_consoles_clean() {
	local f
	if [ -n "$CLUSTER_UP" ]; then kmemleak_scan_nodes; fi
	for f in "$RAMSTER_CLUSTER_DIR"/nodes/*/console*.log \
		"$RAMSTER_CLUSTER_DIR"/nodes/*/kmemleak.log; do
		[ -f "$f" ] || continue
		if grep -qaE "$KERNEL_PROBLEMS" "$f"; then
			problem "$(basename "$(dirname "$f")"): $(kernel_problem "$f")"
		fi
	done
}

# An orderly down: every node says so on its console, no QEMU process of
# the session is left, nor its namespace or runtime directory.
check_down_orderly() {
	local num name runtime
	runtime=$(cat "$RAMSTER_CLUSTER_DIR/runtime" 2>/dev/null || true)
	session_down || problem "down failed: $(tail -n 1 "$DOWN_LOG")"
	for num in $( (echo "$PIDS" | tr ' ' '\n'; node_qemus) | sort -u); do
		if pid_is "${num%%:*}" "${num#*:}"; then problem "pid-${num%%:*}-alive"; fi
	done
	for num in "$RAMSTER_CLUSTER_DIR"/nodes/*/; do
		num=$(basename "$num")
		name=$(node_conf "$num" name)
		grep -aq "RAMSTER-NODE: $name down" "$RAMSTER_CLUSTER_DIR/nodes/$num/console.log" ||
			problem "$name-not-orderly"
	done
	if [ -f "$RAMSTER_CLUSTER_DIR/netns" ]; then problem "namespace-left"; fi
	if [ -n "$runtime" ] && [ -e "$runtime" ]; then problem "runtime-dir-left"; fi
}
