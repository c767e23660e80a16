# shellcheck shell=bash
# hostile: a hostile holder (issue 10, test 6), on
# tests/configs/pair-hostile.conf.  ramster-fuzz, run in node 2's VM,
# borrows node 9's number and address, authenticates with the cluster
# key, advertises room and holds node 1's pages like a memory server,
# but answers every GET of a page it holds wrongly, in turn: another
# generation, another page, the page one byte short, a bit flipped under
# the original crc, a GET_REPLY nobody asked for (then the page), a
# PUT_REPLY instead (a few times: it takes the link down) and NOT_FOUND.
# With replicas=2 (node 2 honest) node 1 runs a workload of 1.5x its RAM
# whose second pass rewrites a quarter of its pages: every page
# verifies, and the counter each wrong answer must move (remote_gets_bad,
# late_replies, protocol_errors) grew by at least the answers sent.  With
# replicas=1 and node 2 offering no room, the hostile holder alone holds
# the remote pages: one process per mode, each dies of SIGBUS or
# completes (a reply nobody asked for is followed by the page), never
# reading a wrong page, and the counters grew likewise.
#
# results: cluster_hostile_r2_pages_verify cluster_hostile_r2_bad_answers_counted
# results: cluster_hostile_r1_never_a_wrong_page cluster_hostile_r1_bad_answers_counted
# results: cluster_hostile_no_kernel_warnings
# timeout: 900

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

MODES=gen,key,short,crc,unsolicited,type,notfound

# holder_start [MODES]: the hostile holder in node 2's VM, in the
# background.
holder_start() {
	cx 2 "$FUZZ -n 9 -s 10.213.0.9 -k $KEY -S 600 -P 2048 -M ${1:-$MODES} holder > /tmp/holder.out 2>&1 & echo \$! > /tmp/holder.pid" >/dev/null
	wait_until 60 peer_state_is 1 9 live ||
		abort "node 9 (the hostile holder) never came up: $(cx 2 'tail -n 2 /tmp/holder.out' | tr '\n' ' ')"
}

holder_done() { cx 2 "cat /tmp/holder.out" | grep -q '^fuzz-holder: puts'; }

# holder_stop NAME: end it (SIGTERM: it prints what it did); its output
# is added to HOLDER_OUT.
holder_stop() {
	local out
	cx 2 "kill \$(cat /tmp/holder.pid)" >/dev/null
	wait_until 30 holder_done || problem "the hostile holder did not end"
	out=$(cx 2 "cat /tmp/holder.out")
	echo "$out" > "$RAMSTER_CLUSTER_DIR/holder-$1.txt"
	HOLDER_OUT="${HOLDER_OUT:+$HOLDER_OUT
}$out"
}

# holder_counted BEFORE AFTER: each counter the holder's modes name grew
# by at least the wrong answers sent in those modes; HOLDER_FIGURES says
# what was sent and what moved.
holder_counted() {
	local before=$1 after=$2 want c got bad
	bad=$(awk '$1 == "fuzz-holder:" && $2 == "puts" { n += $NF } END { print n + 0 }' <<< "$HOLDER_OUT")
	HOLDER_FIGURES=$(awk '$1 == "fuzz-holder:" && $2 == "puts" { p += $3; g += $5; b += $7 } END { printf "puts %d gets %d answered-bad %d", p, g, b }' <<< "$HOLDER_OUT")
	[ "$bad" -gt 0 ] || problem "no GET answered wrongly: nothing was tested"
	while read -r want c; do
		got=$(delta "$before" "$after" "$c")
		if [ "$got" = "?" ] || [ "$got" -lt "$want" ]; then
			problem "$c +$got, want at least +$want"
		fi
		HOLDER_FIGURES="$HOLDER_FIGURES; $c +$got for $want"
	done < <(awk '$1 == "fuzz-holder:" && $2 == "mode" && $7 != "-" { n[$7] += $5 } END { for (c in n) if (n[c]) print n[c], c }' <<< "$HOLDER_OUT")
	HOLDER_FIGURES="$HOLDER_FIGURES ($(awk '$1 == "fuzz-holder:" && $2 == "mode" { n[$3] += $5 } END { for (m in n) if (n[m]) { printf "%s%s %d", sep, m, n[m]; sep = ", " } }' <<< "$HOLDER_OUT"))"
}

# load_start MIB SEED: node 1's workload, its pid in /tmp/load.pid (how
# it ended is in /tmp/reaped: a SIGBUS is seen at once).
load_start() {
	cx 1 "/bin/workload -m $1 -s $2 -p 2 -q > /tmp/load.out 2>&1 & echo \$! > /tmp/load.pid" >/dev/null
}

# replicas=2: every load the hostile holder answers fails over to node 2.
r2_pages_verify() {
	local mem v
	mem=$(node_mem 1)
	R2_BEFORE=$(summary 1)
	load_start $((mem * 3 / 2)) 5
	wait_until 360 load_exited 1 || problem "workload did not finish"
	v=$(load_exit 1)
	[ "$v" = 0 ] || problem "workload exit $v (135: SIGBUS): $(cx 1 'tail -n 2 /tmp/load.out' | tr '\n' ' ')"
	[ "$(load_bad 1)" = 0 ] || problem "bad pages: $(load_bad 1)"
	holder_stop r2
	R2_AFTER=$(summary 1)
	FIGURES="$(load_result 1 | sed 's/workload: result //'), remote puts +$(delta "$R2_BEFORE" "$R2_AFTER" remote_puts), remote loads +$(delta "$R2_BEFORE" "$R2_AFTER" remote_loads), of which failed over to node 2 +$(delta "$R2_BEFORE" "$R2_AFTER" remote_loads_failover), readahead hits +$(delta "$R2_BEFORE" "$R2_AFTER" remote_readahead_hits), not found by a holder no longer listed +$(delta "$R2_BEFORE" "$R2_AFTER" remote_gets_forgotten)"
}

r2_bad_answers_counted() {
	[ -n "${HOLDER_OUT:-}" ] || { problem "no holder output"; return; }
	holder_counted "$R2_BEFORE" "$R2_AFTER"
	FIGURES=$HOLDER_FIGURES
}

# replicas=1, node 2 offers no room: node 9 alone holds the remote
# pages.  One process per mode, the holder answering every GET in that
# mode: each process dies of SIGBUS or completes, never with a wrong page.
r1_never_a_wrong_page() {
	local mem v mode ends=
	mem=$(node_mem 1)
	set_param 2 foreign_low_percent 0
	set_param 1 replicas 1
	R1_BEFORE=$(summary 1)
	for mode in ${MODES//,/ }; do
		holder_start "$mode"
		load_start "$mem" 13
		wait_until 300 load_exited 1 || problem "$mode: workload did not end (hung?)"
		v=$(load_exit 1)
		case "$v" in
		0|135) ;;
		*) problem "$mode: workload exit $v, want 0 (completed) or 135 (SIGBUS)" ;;
		esac
		if cx 1 "cat /tmp/load.out" | grep -q 'BAD page'; then
			problem "$mode: the workload read a wrong page: $(cx 1 "grep -m1 'BAD page' /tmp/load.out")"
		fi
		[ "$v" != 0 ] || [ "$(load_bad 1)" = 0 ] || problem "$mode: bad pages: $(load_bad 1)"
		holder_stop "r1-$mode"
		if [ "$v" = 135 ]; then v=SIGBUS; else v="completed $(load_bad 1) bad"; fi
		ends="${ends:+$ends, }$mode $v"
	done
	R1_AFTER=$(summary 1)
	set_param 1 replicas 2
	set_param 2 foreign_low_percent 100
	v=$(cx 1 "/bin/workload -m 8 -p 2 -q | tail -n 1")
	[[ "$v" == *"bad=0"* ]] || problem "a new process failed: $v"
	FIGURES="$ends; node 2 held $(dbg 2 foreign_pages) pages, remote loads failed loudly: bad +$(delta "$R1_BEFORE" "$R1_AFTER" remote_loads_bad), failed +$(delta "$R1_BEFORE" "$R1_AFTER" remote_loads_failed); a new process runs"
}

r1_bad_answers_counted() {
	[ -n "${HOLDER_OUT:-}" ] || { problem "no holder output"; return; }
	holder_counted "$R1_BEFORE" "$R1_AFTER"
	FIGURES=$HOLDER_FIGURES
}

HOLDER_OUT=
session_up "$TOP/tests/configs/pair-hostile.conf" 1 2
cx 2 "ip addr add 10.213.0.9/24 dev eth0" >/dev/null
holder_start
check cluster_hostile_r2_pages_verify r2_pages_verify
check cluster_hostile_r2_bad_answers_counted r2_bad_answers_counted
HOLDER_OUT=
check cluster_hostile_r1_never_a_wrong_page r1_never_a_wrong_page
check cluster_hostile_r1_bad_answers_counted r1_bad_answers_counted
check cluster_hostile_no_kernel_warnings check_consoles_clean
