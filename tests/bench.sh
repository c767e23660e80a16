#!/usr/bin/env bash
# make bench: the same workload, in the same guest shape, under
#   disk      the patched kernel, no frontswap backend (plain disk swap)
#   zswap     the patched kernel, zswap (lz4, zsmalloc)
#   ramster   the patched kernel, ramster's local tier (lz4, zsmalloc)
#   vanilla   an unpatched 6.1 built from the same config fragment, disk
# at 2x and 3x the guest's RAM, RUNS times each.  The swap disk is a host
# file; without a limit it is really the host's page cache, faster than any
# device, so it is throttled to BENCH_DISK_MBPS MB/s and BENCH_DISK_IOPS
# (defaults 50 and 5000: a modest SSD, or swap over a network block
# device); BENCH_DISK_MBPS=0 removes the limit.  Runs are interleaved
# (every configuration once per round) so that the machine's noise spreads
# over all of them.  Prints medians and ratios and saves the table in
# build/bench/results.txt.  A measurement, never a pass/fail test.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/qemu-lib.sh
. "$TOP/scripts/qemu-lib.sh"

PATCHED=$TOP/build/kernel/bzImage
VANILLA=$TOP/build/kernel-vanilla/bzImage
INITRD=$TOP/build/initramfs.cpio.gz
OUT=$TOP/build/bench
RUNS=${BENCH_RUNS:-3}
MEM=${BENCH_MEM_MIB:-128}
MULTS=${BENCH_MULTS:-2 3}
CONFIGS=(disk zswap ramster vanilla)
DISK_MBPS=${BENCH_DISK_MBPS:-50}
DISK_IOPS=${BENCH_DISK_IOPS:-5000}
START=$(date +%s)

disk_limits() {
	[ "$DISK_MBPS" != 0 ] || return 0
	echo ",throttling.bps-total=$((DISK_MBPS * 1000000)),throttling.iops-total=$DISK_IOPS"
}

disk_description() {
	if [ "$DISK_MBPS" = 0 ]; then
		echo "an unthrottled host file (the host's page cache)"
	else
		echo "a host file throttled to $DISK_MBPS MB/s and $DISK_IOPS IOPS"
	fi
}

one_run() {
	local config=$1 mult=$2 round=$3 kernel=$PATCHED mode=$1 extra=
	local log=$OUT/logs/$config-${mult}x-$round.log line
	case "$config" in
	zswap) extra="zswap.enabled=1 zswap.compressor=lz4 zswap.zpool=zsmalloc" ;;
	vanilla) kernel=$VANILLA mode=disk ;;
	esac
	make_swap_disk "$OUT/swap.img" 1G
	qemu_start "$log" "$MEM" 2 "$kernel" "$INITRD" \
		"ramster_test=bench bench_mode=$mode bench_mult=$mult $extra" \
		-nic none \
		-drive "$(qemu_swap_drive "$OUT/swap.img" "$(disk_limits)")"
	qemu_wait "$QEMU_LAST_PID" 1800 || true
	line=$(tr -d '\r' < "$log" | grep -m1 '^BENCH: ' || true)
	if [ -z "$line" ] || ! grep -q ' rc=0 ' <<< "$line"; then
		echo "bench: $config ${mult}x round $round FAILED, see $log" >&2
		echo "$config $mult $round FAIL" >> "$OUT/raw.txt"
		return
	fi
	echo "$config $mult $round $(sed -n 's/.*total_ms=\([0-9]*\).*/\1/p' <<< "$line")" >> "$OUT/raw.txt"
	printf '[bench %4ss] %-8s %sx round %s: %s ms\n' \
		"$(($(date +%s) - START))" "$config" "$mult" "$round" \
		"$(tail -n 1 "$OUT/raw.txt" | cut -d' ' -f4)"
}

# median CONFIG MULT: median total_ms of the successful runs, or "-".
median() {
	awk -v c="$1" -v m="$2" '$1 == c && $2 == m && $4 != "FAIL" { print $4 }' \
		"$OUT/raw.txt" | sort -n |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "-"; exit }
			if (NR % 2) print v[(NR + 1) / 2];
			else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

runs_of() {
	awk -v c="$1" -v m="$2" '$1 == c && $2 == m { printf "%s%s", sep, $4; sep = "," }' \
		"$OUT/raw.txt"
}

ratio() {
	if [ "$1" = - ] || [ "$2" = - ]; then echo -; return; fi
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

table() {
	local mult config med disk
	echo "RAMster benchmark: ${MEM} MiB guest, $QEMU_ACCEL, swap on $(disk_description),"
	echo "workload: fill then 2 verify passes (tests/guest/workload.c),"
	echo "median of $RUNS interleaved runs (ms, lower is better); ratios to disk swap"
	echo "on the patched kernel.  'vanilla' is unpatched 6.1 on disk: its ratio is"
	echo "the cost of the patches when no backend is loaded."
	echo
	printf '%-5s %-8s %10s %8s   %s\n' size config median_ms "x disk" runs
	for mult in $MULTS; do
		disk=$(median disk "$mult")
		for config in "${CONFIGS[@]}"; do
			med=$(median "$config" "$mult")
			printf '%-5s %-8s %10s %8s   %s\n' "${mult}x" "$config" \
				"$med" "$(ratio "$med" "$disk")" \
				"$(runs_of "$config" "$mult")"
		done
	done
}

main() {
	local round mult config
	qemu_traps qemu_cleanup
	for f in "$PATCHED" "$VANILLA" "$INITRD"; do
		[ -f "$f" ] || { echo "bench: $f missing: make all kernel-vanilla" >&2; exit 2; }
	done
	rm -rf "$OUT"
	mkdir -p "$OUT/logs"
	: > "$OUT/raw.txt"
	qemu_pick_accel "$PATCHED" "$INITRD" "$TOP/build/accel"
	echo "bench: $RUNS rounds x ${#CONFIGS[@]} configurations x sizes $MULTS"
	for round in $(seq 1 "$RUNS"); do
		for mult in $MULTS; do
			for config in "${CONFIGS[@]}"; do
				one_run "$config" "$mult" "$round"
			done
		done
	done
	rm -f "$OUT/swap.img"
	table | tee "$OUT/results.txt"
	echo "bench: saved $OUT/results.txt (raw runs: $OUT/raw.txt)"
}

main "$@"
