#!/usr/bin/env bash
# Host test harness: boots the patched kernel in QEMU guests and reports
# every result of every test as a KTAP line, as it comes.
#
#   tests/run.sh [CASE...|cluster|cluster-SESSION...]
#                       (default: everything; run by "make test")
#
# Three kinds of tests, each file declaring its own results (kselftest
# style, "# results: NAME..." lines in its header; a result that is
# missing, because of a crash or a timeout, is a failure):
#
#   host checks         in this file: the workload's verifier, the
#                       cluster.conf checker, the private network, a
#                       launcher "up" that fails cleans up
#   tests/guest/cases/  one guest boot per case; the header also gives
#                       "# memory:", "# timeout:", "# swap disk:",
#                       "# data disk:" and "# kernel args:".  Every result of a boot whose
#                       console shows an oops, a BUG, a WARNING or a hung
#                       task fails.
#   tests/cluster/      one cluster per session (over tests/cluster/lib.sh),
#                       "# timeout:" for the whole session
#
# The guest cases run RAMSTER_CASE_LANES at a time (default 2), then the
# cluster sessions RAMSTER_SESSION_LANES at a time (default 1): a job's
# guests use about one core (a session's mostly wait on agents, links and
# timers), and each job has its own logs, disks, network namespace and
# runtime directory.  Sessions side by side (2) found two bugs timing had
# hidden (a drain that left rmmod refused, fixed; a pair whose fuzzer
# hung in a page fault for ten minutes, open): they stay one at a time
# until the second is understood.  Jobs start longest timeout first and
# are reported in that order, the oldest running one live, the next as
# soon as it ends.
#
# A result "ok NAME # SKIP REASON" is a skip, counted apart: the last line
# is "N passed, N failed, N skipped", and the exit status is 0 only with
# no failure.  RAMSTER_TEST_LONG_PATH=1 (set by .ci/run) adds a check that
# clones the committed tree at a path of 150+ characters and runs the
# writethrough cluster session from there (RAMSTER_TEST_NESTED=1: that
# nested run skips the debug kernel's checker test, done by the outer one).
#
# Logs: build/test-logs/.  Expects "make all" to have built the kernel,
# the module and the initramfs.
#
# RAMSTER_KERNEL_FLAVOR=debug (make test-debug): the debug kernel, module
# and initramfs (build/kernel-debug, build/module-debug,
# build/initramfs-debug.cpio.gz; kernel-patches/debug.fragment), logs in
# build/test-logs-debug/, every timeout times RAMSTER_TIMEOUT_SCALE (3
# unless set), every guest RAMSTER_GUEST_MEM_EXTRA MiB larger (192 unless
# set).  Besides warnings, a lockdep, KASAN, list, slub, VM_BUG_ON
# or debug-objects report fails the test that caused it, and so does a
# kmemleak leak: each guest scans when its case ends (tools/guest/init;
# what boot left is cleared before any module loads) and each cluster
# node before its session takes the cluster down (tests/cluster/lib.sh).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/qemu-lib.sh
. "$TOP/scripts/qemu-lib.sh"

case "${RAMSTER_KERNEL_FLAVOR:-}" in
"") FLAVOR= ;;
debug) FLAVOR=-debug ;;
*) echo "tests/run.sh: unknown RAMSTER_KERNEL_FLAVOR '$RAMSTER_KERNEL_FLAVOR'" >&2; exit 2 ;;
esac
KERNEL=$TOP/build/kernel$FLAVOR/bzImage
INITRD=$TOP/build/initramfs$FLAVOR.cpio.gz
LOGS=$TOP/build/test-logs$FLAVOR
SCALE=${RAMSTER_TIMEOUT_SCALE:-1}
if [ -n "$FLAVOR" ]; then
	SCALE=${RAMSTER_TIMEOUT_SCALE:-3}
	export RAMSTER_BOOT_TIMEOUT=${RAMSTER_BOOT_TIMEOUT:-$((180 * SCALE))}
	# The kernel is 31 MiB larger (lockdep's tables, KASAN's inline
	# checks), KASAN shadows an eighth of RAM, and slub debugging and
	# kmemleak's metadata take tens of MiB of slab, growing with the
	# pages stored: with 64 MiB more, a 64 MiB node OOM-killed its
	# workload at once; with 128, the writethrough session's node 1 was
	# OOM-killed with 55 MiB of slab; with 256, its parked workload (sized
	# from the configuration's 64 MiB) no longer pushed pages to node 2.
	export RAMSTER_GUEST_MEM_EXTRA=${RAMSTER_GUEST_MEM_EXTRA:-192}
fi
CASES_DIR=$TOP/tests/guest/cases
SESSIONS_DIR=$TOP/tests/cluster
START=$(date +%s)
export TOP LOGS

# What fails a test when its console shows it.  Beyond oopses, BUGs,
# WARNs and hung tasks, the debug kernel's reports: lockdep (WARNING: or
# INFO: and a description; lockdep turning itself off), KASAN, list
# debugging, VM_BUG_ON (kernel BUG at, page dumped), slub debugging (BUG
# CACHE (Tainted...): ..., without a colon), debug objects (ODEBUG),
# kmemleak's leaks (a guest prints what its scan found) and kmemleak
# turning itself off.
KERNEL_PROBLEMS='Kernel panic|BUG:|Oops|WARNING: CPU|Call Trace|general protection fault|blocked for more than'
KERNEL_PROBLEMS+='|(WARNING|INFO): (possible|inconsistent|suspicious|bad unlock|held lock|lock held|nested lock|trying to register|lockdep)'
KERNEL_PROBLEMS+='|turning off the locking correctness validator|KASAN:|list_(add|del) corruption'
KERNEL_PROBLEMS+='|kernel BUG at|VM_BUG_ON|page dumped because|BUG [^ ]+ \((Not tainted|Tainted)|ODEBUG:'
KERNEL_PROBLEMS+='|unreferenced object 0x|memory leak detector disabled|kmemleak: (Cannot allocate|Memory pool empty)|kmemleak scan failed'
export KERNEL_PROBLEMS

# kernel_problem LOG: LOG's first kernel problem, with what the kernel
# said before a bare "Call Trace:" (an OOM kill, an allocation failure,
# an RCU stall and its register dump), which is what the trace is about.
# Sessions use it too (exported).
kernel_problem() {
	awk '{ sub(/\r$/, "") }
		/invoked oom-killer|page allocation failure|self-detected stall|detected stalls/ {
			head = $0; at = NR }
		$0 ~ ENVIRON["KERNEL_PROBLEMS"] {
			if ($0 ~ /Call Trace/ && head != "" && NR - at <= 20)
				$0 = head " ... " $0
			print substr($0, 1, 240); exit }' "$1"
}
export -f kernel_problem

N=0
PASSED=0
FAILED=0
SKIPPED=0

elapsed() { echo "$(($(date +%s) - START))s"; }

# report ok|"not ok" NAME [REASON]: one KTAP line.  An ok whose reason is
# "SKIP ..." is a skip.
report() {
	local status=$1 name=$2 reason=${3:-}
	N=$((N + 1))
	if [ "$status" = ok ] && [[ "$reason" == SKIP* ]]; then
		SKIPPED=$((SKIPPED + 1))
	elif [ "$status" = ok ]; then
		PASSED=$((PASSED + 1))
	else
		FAILED=$((FAILED + 1))
		status="not ok"
	fi
	echo "$status $N $name${reason:+ # $reason}"
}

# header FILE KEY: the value of "# KEY: VALUE" lines in a test's header
# (several lines are joined with spaces).
header() {
	sed -n "s/^# $2: *//p" "$1" | tr '\n' ' ' | sed 's/ *$//'
}

# report_line RESULT-LINE: report a "RESULT: ok NAME # ..." or
# "RESULT: not ok NAME # REASON" line of a guest or a session.
report_line() {
	local line=${1#RESULT: } status=ok rest name reason=
	if [[ "$line" == "not ok "* ]]; then
		status="not ok"
		rest=${line#not ok }
	else
		rest=${line#ok }
	fi
	name=${rest%% *}
	if [[ "$rest" == *"#"* ]]; then
		reason=${rest#*#}
		reason=${reason# }
	fi
	report "$status" "$name" "$reason"
}

# report_problems NAME PROBLEMS: ok if PROBLEMS is empty, else not ok
# with them as the reason.
report_problems() {
	if [ -z "$2" ]; then
		report ok "$1"
	else
		report "not ok" "$1" "$2"
	fi
}

# Host-side check that the verifier itself can fail: without it, "0 bad
# pages" proves nothing.
host_tests() {
	local out=$LOGS/host prog
	mkdir -p "$out"
	prog=$out/workload
	gcc -O2 -Wall -Wextra -Werror -o "$prog" "$TOP/tests/guest/workload.c"
	if "$prog" -m 8 -p 2 -C 300 > "$out/corrupt.log" 2>&1; then
		report "not ok" workload_detects_corruption "exit 0 with a corrupted page"
	elif grep -q 'BAD page 300 ' "$out/corrupt.log" &&
		"$prog" -m 8 -p 2 > "$out/clean.log" 2>&1; then
		report ok workload_detects_corruption
	else
		report "not ok" workload_detects_corruption "see $out"
	fi
	# The benchmark's other workloads: usemem-style (-U) and the check of
	# GNU sort's output (-G, -V).  -U -C leaves page 300's counter as a
	# stale page would: the access that reads it must say so (8 passes:
	# this seed reaches page 300).
	if "$prog" -U -m 8 -p 8 -C 300 > "$out/usemem-corrupt.log" 2>&1 ||
		! grep -q 'BAD page 300 .* on access' "$out/usemem-corrupt.log"; then
		report "not ok" workload_usemem_detects_corruption "see $out/usemem-corrupt.log"
	elif ! "$prog" -U -m 8 -p 2 > "$out/usemem-clean.log" 2>&1; then
		report "not ok" workload_usemem_detects_corruption "a clean run failed: see $out/usemem-clean.log"
	else
		report ok workload_usemem_detects_corruption
	fi
	report_problems workload_sort_check_detects_loss "$(sort_check_problems "$prog" "$out")"
}

# sort_check_problems PROG DIR: what is wrong with workload -V's verdicts
# on GNU sort's output of workload -G's lines as it is (must pass), with
# a line lost, a line's key changed, a line's last word changed (still
# in order), a line lost and its neighbour doubled (as many lines, in
# order), and unsorted (each must fail).
sort_check_problems() {
	local prog=$1 out=$2/sort
	mkdir -p "$out"
	"$prog" -G -m 2 -s 5 | LC_ALL=C sort > "$out/sorted"
	"$prog" -V -m 2 -s 5 < "$out/sorted" > "$out/clean.log" 2>&1 ||
		echo "sorted output refused: see $out/clean.log;"
	sed 100d "$out/sorted" | "$prog" -V -m 2 -s 5 > "$out/lost.log" 2>&1 &&
		echo "a lost line passed;"
	sed '100s/^./x/' "$out/sorted" | "$prog" -V -m 2 -s 5 > "$out/changed.log" 2>&1 &&
		echo "a changed key passed;"
	sed '100s/.$/#/' "$out/sorted" | "$prog" -V -m 2 -s 5 > "$out/changed-word.log" 2>&1 &&
		echo "a changed word passed;"
	sed '100d;101p' "$out/sorted" | "$prog" -V -m 2 -s 5 > "$out/doubled.log" 2>&1 &&
		echo "a lost and a doubled line passed;"
	"$prog" -G -m 2 -s 5 | "$prog" -V -m 2 -s 5 > "$out/unsorted.log" 2>&1 &&
		echo "unsorted lines passed;"
	true
}

# Shipped cluster configs pass; every config in tests/bad-configs/ fails
# with the "FILE:LINE: error: ..." its first line announces.
conf_tests() {
	local out=$LOGS/host conf=$LOGS/host/ramster-conf f want got problem=
	gcc -O2 -Wall -Wextra -Werror -o "$conf" "$TOP/tools/ramster-conf.c"
	for f in "$TOP"/cluster-configs/*.conf; do
		"$conf" check "$f" >> "$out/conf.log" 2>&1 ||
			problem="$problem $(basename "$f")-rejected"
	done
	for f in "$TOP"/tests/bad-configs/*.conf; do
		want=$(sed -n '1s/^# expect: //p' "$f")
		if got=$("$conf" check "$f" 2>&1); then
			problem="$problem $(basename "$f")-accepted"
		elif ! grep -qF "$f:${want%%:*}: error:${want#*:}" <<< "$got"; then
			problem="$problem $(basename "$f")-wrong-message"
		fi
		echo "$got" >> "$out/conf.log"
	done
	report_problems cluster_conf_errors_caught \
		"${problem:+$problem (see $out/conf.log)}"
}

# net-scripts: a private namespace whose bridge has one tap per guest and
# no route anywhere; teardown removes it and may run twice.
NETNS=
netns_tests() {
	local ports routes problem=
	# shellcheck source=net-scripts/netns.sh
	. "$TOP/net-scripts/netns.sh"
	NETNS=$(netns_unique_name test)
	netns_create "$NETNS" 3
	ports=$(ip -n "$NETNS" -o link show master "$NETNS_BRIDGE" | wc -l)
	routes=$(ip -n "$NETNS" route show | wc -l)
	[ "$ports" = 3 ] || problem="$problem bridge-has-$ports-ports"
	[ "$routes" = 0 ] || problem="$problem $routes-routes-in-namespace"
	[ "$(netns_mac 2)" = 52:54:00:72:00:02 ] || problem="$problem mac"
	netns_destroy "$NETNS"
	netns_destroy "$NETNS" || problem="$problem second-destroy-failed"
	if ip netns list | grep -qw -- "$NETNS"; then
		problem="$problem namespace-left-behind"
	fi
	NETNS=
	report_problems netns_private_bridge "$problem"
}

# A launcher "up" that fails removes everything it made: its QEMU
# processes, its network namespace, its runtime directory.  With a boot
# timeout of 0 s it fails right after starting the nodes.
failed_up_test() {
	local dir=$LOGS/failed-up log=$LOGS/failed-up.log ns runtime node pid problem=
	rm -rf "$dir"
	if RAMSTER_CLUSTER_DIR=$dir RAMSTER_BOOT_TIMEOUT=0 \
		"$TOP/ramster-cluster" up "$TOP/cluster-configs/pair.conf" > "$log" 2>&1; then
		problem="up did not fail"
		RAMSTER_CLUSTER_DIR=$dir "$TOP/ramster-cluster" down --now >> "$log" 2>&1 || true
	fi
	ns=$(sed -n 's/.*network namespace \([^ ,]*\),.*/\1/p' "$log")
	runtime=$(sed -n 's/.*, runtime \(.*\)$/\1/p' "$log")
	[ -n "$ns" ] || problem="$problem no-namespace-made"
	if [ -n "$ns" ] && ip netns list | grep -qw -- "$ns"; then
		problem="$problem namespace-left"
	fi
	ls "$dir"/nodes/*/pid > /dev/null 2>&1 || problem="$problem no-node-started"
	for node in "$dir"/nodes/*; do
		pid=$(recorded_pid "$node")
		if [ -n "$pid" ]; then problem="$problem qemu-$pid-alive"; fi
	done
	if [ -z "$runtime" ] || [ -e "$runtime" ]; then
		problem="$problem runtime-dir-left:${runtime:-unknown}"
	fi
	if [ -f "$dir/netns" ]; then problem="$problem state-says-up"; fi
	report_problems cluster_failed_up_cleans_up "${problem:+$problem (see $log)}"
}

# RAMSTER_TEST_LONG_PATH=1: the committed tree, cloned at a path of 150+
# characters (under /tmp), runs the writethrough cluster session with this
# clone's kernel and initramfs (the same commit's, or newer: build/ here is
# the working tree's).  Its QEMU sockets must not live under the clone.
LONG_PATH_BASE=
long_path_test() {
	local out=$LOGS/long-path dir clone last
	rm -rf "$out"
	mkdir -p "$out"
	LONG_PATH_BASE=$(mktemp -d /tmp/ramster-long-path.XXXXXX)
	dir=$LONG_PATH_BASE
	while [ "${#dir}" -lt 150 ]; do dir=$dir/a-directory-deep-in-a-long-path; done
	clone=$dir/ramster
	echo "# [$(elapsed)] long path: $clone (${#clone} characters), log $out/run.log"
	if ! git clone -q "$TOP" "$clone" > "$out/clone.log" 2>&1; then
		report "not ok" long_path_clone_runs_cluster "git clone failed: $(tail -n 1 "$out/clone.log")"
		return
	fi
	mkdir -p "$clone/build/kernel$FLAVOR"
	ln -s "$KERNEL" "$clone/build/kernel$FLAVOR/bzImage"
	ln -s "$INITRD" "$clone/build/initramfs$FLAVOR.cpio.gz"
	ln -s "$TOP/build/accel" "$clone/build/accel"
	# Not recursive: the clone's harness does no long-path check itself,
	# nor the debug kernel's checker test (this run did it; the clone has
	# no kernel tree to take its test modules from).
	(cd "$clone" && RAMSTER_TEST_LONG_PATH='' RAMSTER_TEST_NESTED=1 \
		tests/run.sh cluster-writethrough) > "$out/run.log" 2>&1 || true
	last=$(tail -n 1 "$out/run.log")
	if [[ "$last" =~ ^[1-9][0-9]*\ passed,\ 0\ failed ]] &&
		grep -q '^ok .* cluster_dead_peer_writethrough_device_serves' "$out/run.log"; then
		report ok long_path_clone_runs_cluster "${#clone}-character path: $last"
	else
		report "not ok" long_path_clone_runs_cluster "from ${#clone} characters: ${last:-no output} (see $out/run.log)"
	fi
	rm -rf "$LONG_PATH_BASE"
	LONG_PATH_BASE=
}

# The launcher of cases and sessions (run_jobs) and its directory of
# per-job files (start_job).
LAUNCHER_PID=
LANES_DIR=
cleanup() {
	local f pid n pids alive
	qemu_cleanup
	if [ -n "$NETNS" ]; then netns_destroy "$NETNS"; fi
	# No job starts any more (a job being started stops itself when it
	# sees "stop" after writing its PID, start_job).
	if [ -n "$LANES_DIR" ]; then touch "$LANES_DIR/stop"; fi
	if [ -n "$LAUNCHER_PID" ]; then
		kill "$LAUNCHER_PID" 2>/dev/null || true
		wait "$LAUNCHER_PID" 2>/dev/null || true
	fi
	# Each running session's own trap takes its cluster down once its
	# timeout passes it the TERM (and timeout -k kills it 120 s later); a
	# case's takes its guest down.  All at once, then waited for.
	# (Every PID file, the ones written after "stop" too: a job that
	# saw it is ending by itself.)
	pids=()
	for f in "${LANES_DIR:-/nonexistent}"/*.pid; do
		if [ ! -f "$f" ] || [ -f "${f%.pid}.rc" ]; then continue; fi
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null || true
		pids+=("$pid")
	done
	for ((n = 0; n < 1300; n++)); do
		alive=0
		for pid in "${pids[@]}"; do
			if kill -0 "$pid" 2>/dev/null; then alive=1; fi
		done
		[ "$alive" = 1 ] || break
		sleep 0.1
	done
	if [ -n "$LONG_PATH_BASE" ]; then rm -rf "$LONG_PATH_BASE"; fi
}

# results_of FILE: the results a test file declares.
results_of() { header "$1" results; }

# missing_results DECLARED SEEN REASON: every declared result not seen
# (SEEN: space-separated, with spaces around) fails with REASON.
missing_results() {
	local r
	for r in $1; do
		[[ "$2" == *" $r "* ]] || report "not ok" "$r" "$3"
	done
}

# console_problem LOG: the first kernel problem LOG shows, or nothing.
console_problem() {
	if grep -qaE "$KERNEL_PROBLEMS" "$1"; then
		echo "kernel problem on the console: $(kernel_problem "$1")"
	fi
}

# The debug kernel's checkers, and the harness's reading of them, can fail
# a test: a guest boots with a case made for it (not in the initramfs,
# added as a second cpio member) which loads two modules made to be caught,
# mm/kasan's KASAN test (real use-after-free and out-of-bounds reports) and
# samples/kmemleak's (real leaks, found by the end-of-case scan), and
# writes the first line of each other report the harness must catch to
# /dev/kmsg (lockdep, list debugging, VM_BUG_ON, slub, debug objects).
# Each must be on the console, and console_problem must see each alone.
DEBUG_FAKES=(
	"WARNING: possible circular locking dependency detected"
	"WARNING: inconsistent lock state"
	"WARNING: suspicious RCU usage"
	"list_add corruption. prev->next should be next (ffff888000000000), but was 0000000000000000. (prev=ffff888000000000)."
	"kernel BUG at mm/swapfile.c:1234!"
	"BUG kmalloc-64 (Tainted: G    B             ): Right Redzone overwritten"
	"ODEBUG: free active (active state 0) object type: timer_list hint: 0x0"
)
debug_checkers_test() {
	local dir=$LOGS/debug-checkers staging obj=$TOP/build/kernel-debug/obj
	local log line found problem=
	rm -rf "$dir"
	mkdir -p "$dir"
	log=$dir/console.log
	staging=$(mktemp -d)
	mkdir -p "$staging/cases" "$staging/lib/modules"
	cp "$obj/mm/kasan/kasan_test_module.ko" \
		"$obj/samples/kmemleak/kmemleak-test.ko" "$staging/lib/modules/"
	{
		echo 'insmod /lib/modules/kasan_test_module.ko'
		echo 'insmod /lib/modules/kmemleak-test.ko'
		for line in "${DEBUG_FAKES[@]}"; do
			printf 'echo "%s" > /dev/kmsg\n' "$line"
		done
		# kmemleak reports objects older than 5 s only.
		echo 'sleep 6'
	} > "$staging/cases/debug_checkers.sh"
	(cd "$staging" && find . -print0 | cpio --null -o -H newc --quiet) |
		gzip -1 | cat "$INITRD" - > "$dir/initrd.cpio.gz"
	rm -rf "$staging"
	echo "# [$(elapsed)] debug checkers: log $log"
	qemu_start "$log" 256 2 "$KERNEL" "$dir/initrd.cpio.gz" \
		ramster_test=debug_checkers -nic none
	qemu_wait "$QEMU_LAST_PID" $((120 * SCALE)) || problem="timed out"
	for line in "BUG: KASAN: " "unreferenced object 0x" "${DEBUG_FAKES[@]}"; do
		found=$(grep -aF -m1 -- "$line" "$log" || true)
		if [ -z "$found" ]; then
			problem="$problem not-on-console:'${line:0:30}'"
		elif [ -z "$(console_problem <(echo "$found"))" ]; then
			problem="$problem not-caught:'${line:0:30}'"
		fi
	done
	grep -aq '^RAMSTER-KMEMLEAK: case debug_checkers: [1-9][0-9]* leaks' "$log" ||
		problem="$problem no-leak-counted"
	report_problems debug_kernel_splats_fail_tests \
		"${problem:+$problem (see $log)}"
}

# data_disks DIR SPEC: "# data disk: ext4 SIZE [SIZE...]": one ext4 image
# per size in DIR (make_ext4_disk).  Prints their QEMU arguments, one per
# line (qemu_data_disk: data disk N has the serial dataN, which the guest
# finds it by, data_disk N in lib.sh).
data_disks() {
	local dir=$1 fs size n=0
	read -r fs _ <<< "$2"
	[ "$fs" = ext4 ] || { echo "data disk: only ext4, not '$fs'" >&2; return 1; }
	for size in ${2#ext4}; do
		make_ext4_disk "$dir/data$n.img" "$size" "data$n" || return 1
		qemu_data_disk "$dir/data$n.img" "$n"
		n=$((n + 1))
	done
}

# run_case FILE: one guest boot for a case of tests/guest/cases/ (a job
# of run_jobs, in the launcher): prints its results as a session does
# ("RESULT: ..." lines, "# ..." progress lines).
run_case() {
	local file=$1 name mem timeout disk data append results dir log r line
	name=$(basename "$file" .sh)
	mem=$(header "$file" memory)
	mem=${mem%M}
	timeout=$(($(header "$file" timeout) * SCALE))
	disk=$(header "$file" "swap disk")
	data=$(header "$file" "data disk")
	append=$(header "$file" "kernel args")
	results=$(results_of "$file")
	dir=$LOGS/$name
	log=$dir/console.log
	rm -rf "$dir"
	mkdir -p "$dir"
	local qemu_args=(-nic none)
	if [ "$disk" = yes ]; then
		make_swap_disk "$dir/swap.img" 1G
		qemu_args+=(-drive "$(qemu_swap_drive "$dir/swap.img")")
	fi
	if [ -n "$data" ]; then
		local drives
		if ! drives=$(data_disks "$dir" "$data"); then
			for r in $results; do
				echo "RESULT: not ok $r # cannot make the data disk ($data)"
			done
			return
		fi
		mapfile -t -O "${#qemu_args[@]}" qemu_args <<< "$drives"
	fi

	echo "# case $name: ${mem} MiB guest, timeout ${timeout}s, log $log"
	qemu_start "$log" "$mem" 2 "$KERNEL" "$INITRD" \
		"ramster_test=$name $append" "${qemu_args[@]}"
	local timed_out=no
	qemu_wait "$QEMU_LAST_PID" "$timeout" || timed_out=yes
	echo "# case $name: guest exited (timed out: $timed_out)"
	rm -f "$dir/swap.img" "$dir"/data*.img	# the console log stays

	local problem
	problem=$(console_problem "$log")
	if [ -z "$problem" ] && [ -n "$FLAVOR" ] && [ "$timed_out" = no ] &&
		! grep -aq "^RAMSTER-KMEMLEAK: case $name: " "$log"; then
		problem="no kmemleak scan at the end of the case"
	fi
	for r in $results; do
		line=$(tr -d '\r' < "$log" |
			grep -aE "^RESULT: (not )?ok $r( |$)" | head -n 1 || true)
		if [ -z "$line" ]; then
			if [ "$timed_out" = yes ]; then
				echo "RESULT: not ok $r # no result: timed out after ${timeout}s"
			else
				echo "RESULT: not ok $r # no result: guest ended early, see $log"
			fi
		elif [ -n "$problem" ]; then
			echo "RESULT: not ok $r # $problem"
		else
			echo "$line"
		fi
	done
}

# job_timeout FILE: a case's or a session's timeout in seconds.
job_timeout() { echo $(($(header "$1" timeout) * SCALE)); }

# is_session FILE: a cluster session (else a guest case)?
is_session() { [ "$(dirname "$1")" = "$SESSIONS_DIR" ]; }

# job_name FILE: cluster-NAME for a session, case-NAME for a case (a
# case and a session may share a name).
job_name() {
	if is_session "$1"; then
		echo "cluster-$(basename "$1" .sh)"
	else
		echo "case-$(basename "$1" .sh)"
	fi
}

# case_job FILE: run_case in a process of its own, whose TERM takes its
# guest down (and waits for it).
case_job() {
	QEMU_PIDS=()
	qemu_traps case_job_cleanup
	run_case "$1"
}
case_job_cleanup() {
	local pids=("${QEMU_PIDS[@]}") pid
	qemu_cleanup
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}

# start_job FILE: run one case or session (in the launcher), its stdout in
# LANES_DIR/JOB.out, its PID in JOB.pid, its exit status in JOB.rc once
# it ended.  A session's stderr goes to its log, a case's to JOB.err.
start_job() {
	local file=$1 job rc=0 pid
	job=$(job_name "$file")
	# Before the PID: the reporter follows the output once the PID is
	# there, and appends the lines it does not report to the log.
	: > "$LANES_DIR/$job.out"
	if is_session "$file"; then
		: > "$LOGS/$job.log"
		timeout -k 120 "$(job_timeout "$file")" bash "$file" \
			> "$LANES_DIR/$job.out" 2>> "$LOGS/$job.log" &
	else
		: > "$LANES_DIR/$job.err"
		case_job "$file" > "$LANES_DIR/$job.out" 2>> "$LANES_DIR/$job.err" &
	fi
	pid=$!
	echo "$pid" > "$LANES_DIR/$job.pid"
	# cleanup() may have looked for PIDs just before this one was written.
	if [ -e "$LANES_DIR/stop" ]; then kill "$pid" 2>/dev/null || true; fi
	wait "$pid" || rc=$?
	echo "$rc" > "$LANES_DIR/$job.rc"
}

# launch_jobs LANES FILE...: start the jobs in this order, LANES at a time.
launch_jobs() {
	local lanes=$1 f
	shift
	trap - EXIT
	trap 'exit 143' INT TERM
	for f in "$@"; do
		while [ "$(jobs -pr | wc -l)" -ge "$lanes" ]; do
			wait -n || true
		done
		[ ! -e "$LANES_DIR/stop" ] || break
		start_job "$f" &
	done
	wait
}

# run_jobs PHASE LANES FILE...: guest cases or cluster sessions, longest
# timeout first, LANES at a time; each reported in that order
# (follow_job).  Their files in $LOGS/lanes-PHASE.
run_jobs() {
	local phase=$1 lanes=$2 f order=()
	shift 2
	[ "$#" -gt 0 ] || return 0
	[[ "$lanes" =~ ^[1-9][0-9]*$ ]] || lanes=1
	mapfile -t order < <(for f in "$@"; do
		echo "$(job_timeout "$f") $f"
	done | sort -s -k1,1nr | cut -d' ' -f2-)
	LANES_DIR=$LOGS/lanes-$phase
	rm -rf "$LANES_DIR"
	mkdir -p "$LANES_DIR"
	echo "# [$(elapsed)] ${#order[@]} jobs, $lanes at a time"
	launch_jobs "$lanes" "${order[@]}" &
	LAUNCHER_PID=$!
	for f in "${order[@]}"; do
		follow_job "$f"
	done
	wait "$LAUNCHER_PID" || true
	LAUNCHER_PID=
}

# job_line LINE: one line of a job's output (follow_job's variables:
# file, results, seen, abort, log).
job_line() {
	local line=$1 r
	case "$line" in
	"RESULT: "*)
		r=${line#RESULT: }
		r=${r#not }
		r=${r#ok }
		r=${r%% *}
		if [[ " $results " != *" $r "* ]]; then
			report "not ok" "$r" "not declared in $(basename "$file")"
		elif [[ "$seen" == *" $r "* ]]; then
			report "not ok" "$r" "reported twice"
		else
			report_line "$line"
		fi
		seen="$seen$r "
		;;
	"SESSION-ABORT: "*) abort=${line#SESSION-ABORT: } ;;
	"# "*) echo "# [$(elapsed)] ${line#\# }" ;;
	*) echo "$line" >> "$log" ;;
	esac
}

# follow_job FILE: the results of a job the launcher started (or will),
# reported as they are printed: its output is followed until it ends.
follow_job() {
	local file=$1 job name timeout results line seen=' ' abort='' rc=0 log
	local out pidf lines=0
	job=$(job_name "$file")
	name=$(basename "$file" .sh)
	timeout=$(job_timeout "$file")
	results=$(results_of "$file")
	log=$LOGS/$job.log
	is_session "$file" || log=$LANES_DIR/$job.err
	out=$LANES_DIR/$job.out
	pidf=$LANES_DIR/$job.pid
	while [ ! -s "$pidf" ]; do
		kill -0 "$LAUNCHER_PID" 2>/dev/null || break
		sleep 0.5
	done
	if [ ! -s "$pidf" ]; then
		missing_results "$results" "$seen" "no result: never started"
		return
	fi
	if is_session "$file"; then
		echo "# [$(elapsed)] cluster session $name: timeout ${timeout}s, log $log"
	fi
	# A running job is followed (tail reads the file once more after the
	# job ends); what it may still have missed is read after it, from the
	# line it stopped at.  A job that ended already is only read (its PID
	# may belong to another process by now).
	if [ ! -s "$LANES_DIR/$job.rc" ]; then
		exec {fd}< <(exec tail -n +1 -s 0.5 -f --pid="$(cat "$pidf")" "$out")
		while IFS= read -r line <&"$fd" || [ -n "$line" ]; do
			job_line "$line"
			lines=$((lines + 1))
		done
		exec {fd}<&-
	fi
	while [ ! -s "$LANES_DIR/$job.rc" ] && kill -0 "$LAUNCHER_PID" 2>/dev/null; do
		sleep 0.2
	done
	while IFS= read -r line || [ -n "$line" ]; do
		job_line "$line"
	done < <(tail -n +$((lines + 1)) "$out")
	rc=$(cat "$LANES_DIR/$job.rc" 2>/dev/null || echo 1)
	if is_session "$file" && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
		abort="timed out after ${timeout}s"
	fi
	missing_results "$results" "$seen" \
		"no result: ${abort:-ended early (exit $rc), see $log}"
	if is_session "$file"; then
		echo "# [$(elapsed)] cluster session $name: done"
	fi
}

# cases_of DIR: the test files of DIR (those that declare results).
tests_in() {
	local f
	for f in "$1"/*.sh; do
		[ -n "$(results_of "$f")" ] && echo "$f"
	done
	return 0
}

main() {
	local selected=("$@") f name want count=6 to_run=() sessions=()
	qemu_traps cleanup
	if [ ! -f "$KERNEL" ] || [ ! -f "$INITRD" ]; then
		echo "tests/run.sh: build first: make all" >&2
		exit 2
	fi
	mkdir -p "$LOGS"
	qemu_pick_accel "$KERNEL" "$INITRD" "$TOP/build/accel"

	# No argument: everything.  "cluster" selects every cluster
	# session, "cluster-NAME" one of them, any other word a guest case.
	for f in $(tests_in "$CASES_DIR"); do
		name=$(basename "$f" .sh)
		for want in "${selected[@]:-$name}"; do
			[ "$want" = "$name" ] && to_run+=("$f")
		done
	done
	for f in $(tests_in "$SESSIONS_DIR"); do
		name=$(basename "$f" .sh)
		for want in "${selected[@]:-cluster}"; do
			if [ "$want" = cluster ] || [ "$want" = "cluster-$name" ]; then
				sessions+=("$f")
			fi
		done
	done
	for want in "${selected[@]}"; do
		f=$CASES_DIR/$want.sh
		[[ "$want" == cluster-* ]] && f=$SESSIONS_DIR/${want#cluster-}.sh
		if [ "$want" != cluster ] &&
			! { [ -f "$f" ] && [ -n "$(results_of "$f")" ]; }; then
			echo "tests/run.sh: no case or session '$want'" >&2
			exit 2
		fi
	done
	# count starts at the six host checks (three of the workload, the
	# configs, the network namespace, a failed up).
	if [ "${RAMSTER_TEST_LONG_PATH:-}" = 1 ]; then count=$((count + 1)); fi
	if [ -n "$FLAVOR" ] && [ -z "${RAMSTER_TEST_NESTED:-}" ]; then count=$((count + 1)); fi
	for f in "${to_run[@]}" "${sessions[@]}"; do
		count=$((count + $(wc -w <<< "$(results_of "$f")")))
	done

	echo "KTAP version 1"
	echo "1..$count"
	echo "# accelerator: $QEMU_ACCEL"
	echo "# kernel: $KERNEL${FLAVOR:+ (timeouts x$SCALE)}"
	host_tests
	conf_tests
	netns_tests
	failed_up_test
	if [ -n "$FLAVOR" ] && [ -z "${RAMSTER_TEST_NESTED:-}" ]; then debug_checkers_test; fi
	run_jobs cases "${RAMSTER_CASE_LANES:-2}" "${to_run[@]}"
	run_jobs sessions "${RAMSTER_SESSION_LANES:-1}" "${sessions[@]}"
	if [ "${RAMSTER_TEST_LONG_PATH:-}" = 1 ]; then long_path_test; fi
	echo "# total time $(elapsed)"
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
}

main "$@"
