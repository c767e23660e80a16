#!/usr/bin/env bash
# Host test harness: boots the patched kernel in QEMU guests, one boot per
# case, and reports every result of every case as a KTAP line.
#
#   tests/run.sh [CASE...]      (default: all cases; run by "make test")
#
# A case is a script in tests/guest/cases/ that prints "RESULT: ok NAME" or
# "RESULT: not ok NAME # REASON" lines on the serial console.  The harness
# knows which results each case must produce: a result that is missing
# (crash, timeout) is a failure, and so is every result of a boot whose
# console shows an oops, a BUG, a WARNING or a hung task.
#
# Logs: build/test-logs/<case>/console.log.  Expects "make all" to have
# built the kernel, the module and the initramfs.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/qemu-lib.sh
. "$TOP/scripts/qemu-lib.sh"
# shellcheck source=tests/cluster.sh
. "$TOP/tests/cluster.sh"

KERNEL=$TOP/build/kernel/bzImage
INITRD=$TOP/build/initramfs.cpio.gz
LOGS=$TOP/build/test-logs
START=$(date +%s)

# case|guest MiB|timeout s|swap disk|extra kernel command line|results
CASES=(
	"basics|128|180|no||kernel_boots_frontswap_debugfs bad_module_params_refused ramster_loads_counters_zero kunit_suites_pass rmmod_empty_backend_and_reload no_kernel_warnings"
	"integrity|128|600|yes||integrity_3x_ram rmmod_refused_with_pages_then_works integrity_no_kernel_warnings"
	"compressors|128|900|yes||compressor_lz4 compressor_lzo compressor_zstd compressors_no_kernel_warnings"
	"pool_limit|128|600|yes||pool_limit_rejects_to_disk pool_limit_no_kernel_warnings"
	"writethrough|128|600|yes||writethrough_writes_device writethrough_no_kernel_warnings"
	"swapoff|256|600|yes||shrink_to_target swapoff_with_stored_pages swapoff_no_kernel_warnings"
	"zswap|128|600|yes|zswap.enabled=1 zswap.compressor=lz4 zswap.zpool=zsmalloc|zswap_same_image ramster_refused_while_zswap_registered zswap_no_kernel_warnings"
	"nobackend|128|600|yes||no_backend_disk_swap nobackend_no_kernel_warnings"
	"membership|128|120|no||membership_from_cluster_conf membership_rules_enforced membership_pins_module membership_no_kernel_warnings"
	"stress|128|900|yes||concurrent_workloads_with_shrink stress_counters_back_to_zero stress_no_kernel_warnings"
)

KERNEL_PROBLEMS='Kernel panic|BUG:|Oops|WARNING: CPU|Call Trace|general protection fault|blocked for more than'

N=0
PASSED=0
FAILED=0

elapsed() { echo "$(($(date +%s) - START))s"; }

report() {
	local status=$1 name=$2 reason=${3:-}
	N=$((N + 1))
	if [ "$status" = ok ]; then
		PASSED=$((PASSED + 1))
		echo "ok $N $name${reason:+ # $reason}"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $name${reason:+ # $reason}"
	fi
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
}

# Shipped cluster configs pass; every config in tests/bad-configs/ fails
# with the "FILE:LINE: error: ..." its first line announces.
conf_tests() {
	local out=$LOGS/host conf=$LOGS/host/ramster-conf f want got problem=
	gcc -O2 -Wall -Wextra -Werror -o "$conf" "$TOP/tests/guest/ramster-conf.c"
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

cleanup() {
	qemu_cleanup
	if [ -n "$NETNS" ]; then netns_destroy "$NETNS"; fi
	if [ -n "$CLUSTER_UP" ]; then "$CLUSTER" down >/dev/null 2>&1 || true; fi
}

run_case() {
	local spec=$1 name mem timeout disk append results dir log r line
	IFS='|' read -r name mem timeout disk append results <<< "$spec"
	dir=$LOGS/$name
	log=$dir/console.log
	rm -rf "$dir"
	mkdir -p "$dir"
	local qemu_args=(-nic none)
	if [ "$disk" = yes ]; then
		make_swap_disk "$dir/swap.img" 1G
		qemu_args+=(-drive "$(qemu_swap_drive "$dir/swap.img")")
	fi

	echo "# [$(elapsed)] case $name: ${mem} MiB guest, timeout ${timeout}s, log $log"
	qemu_start "$log" "$mem" 2 "$KERNEL" "$INITRD" \
		"ramster_test=$name $append" "${qemu_args[@]}"
	local timed_out=no
	qemu_wait "$QEMU_LAST_PID" "$timeout" || timed_out=yes
	echo "# [$(elapsed)] case $name: guest exited (timed out: $timed_out)"
	rm -f "$dir/swap.img"	# up to 1 GiB each; the console log stays

	local problem=
	if grep -qE "$KERNEL_PROBLEMS" "$log"; then
		problem="kernel problem on the console: $(grep -m1 -E "$KERNEL_PROBLEMS" "$log" | tr -d '\r' | cut -c1-120)"
	fi
	for r in $results; do
		line=$(tr -d '\r' < "$log" |
			grep -aE "^RESULT: (not )?ok $r( |$)" | head -n 1 || true)
		if [ -z "$line" ]; then
			if [ "$timed_out" = yes ]; then
				report "not ok" "$r" "no result: timed out after ${timeout}s"
			else
				report "not ok" "$r" "no result: guest ended early, see $log"
			fi
		elif [ -n "$problem" ]; then
			report "not ok" "$r" "$problem"
		elif [[ "$line" == "RESULT: ok "* ]]; then
			report ok "$r" "$(sed -n 's/^[^#]*# *//p' <<< "$line")"
		else
			report "not ok" "$r" "${line#*# }"
		fi
	done
}

main() {
	local selected=("$@") spec want count=3 sessions=()
	qemu_traps cleanup
	if [ ! -f "$KERNEL" ] || [ ! -f "$INITRD" ]; then
		echo "tests/run.sh: build first: make all" >&2
		exit 2
	fi
	mkdir -p "$LOGS"
	qemu_pick_accel "$KERNEL" "$INITRD" "$TOP/build/accel"

	local to_run=()
	for spec in "${CASES[@]}"; do
		if [ ${#selected[@]} -eq 0 ]; then
			to_run+=("$spec")
			continue
		fi
		for want in "${selected[@]}"; do
			[ "${spec%%|*}" = "$want" ] && to_run+=("$spec")
		done
	done
	# count starts at the three host tests.  "cluster" selects every
	# cluster session, "cluster-NAME" one of them.
	for spec in "${CLUSTER_SESSIONS[@]}"; do
		want=${spec%%|*}
		if [ ${#selected[@]} -eq 0 ] ||
			[[ " ${selected[*]} " == *" cluster "* ]] ||
			[[ " ${selected[*]} " == *" cluster-$want "* ]]; then
			sessions+=("$want")
			count=$((count + $(wc -w <<< "${spec#*|}")))
		fi
	done
	for spec in "${to_run[@]}"; do
		count=$((count + $(awk -F'|' '{ print split($6, a, " ") }' <<< "$spec")))
	done

	echo "KTAP version 1"
	echo "1..$count"
	echo "# accelerator: $QEMU_ACCEL"
	host_tests
	conf_tests
	netns_tests
	for spec in "${to_run[@]}"; do
		run_case "$spec"
	done
	for want in "${sessions[@]}"; do
		cluster_session "$want"
	done
	echo "# total time $(elapsed)"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

main "$@"
