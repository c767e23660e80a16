#!/usr/bin/env bash
# QEMU helpers shared by the test harness, the demo and the benchmark.
# Source it; it defines functions only.
#
# Every QEMU process started here is recorded in QEMU_PIDS, and
# qemu_cleanup (install it with trap) kills exactly those, by PID.

QEMU_PIDS=()
QEMU_ACCEL=${QEMU_ACCEL:-}

# qemu_pick_accel KERNEL INITRD CACHE_FILE: KVM only if a probe boot really
# reaches init; TCG otherwise.  The answer is cached per machine.
qemu_pick_accel() {
	local kernel=$1 initrd=$2 cache=$3 log
	if [ -n "$QEMU_ACCEL" ]; then return; fi
	if [ -f "$cache" ]; then QEMU_ACCEL=$(cat "$cache"); return; fi
	QEMU_ACCEL=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		log=$(mktemp)
		# QEMU may abort on KVM here.  The "|| true" inside keeps the
		# subshell from exec'ing timeout (so the abort is reported,
		# silently, inside it) and from failing under set -e.
		(timeout 20 qemu-system-x86_64 -accel kvm -cpu max -m 128 \
			-kernel "$kernel" -initrd "$initrd" -nographic \
			-no-reboot -nic none -serial "file:$log" -monitor none \
			-append "console=ttyS0 panic=-1 ramster_test=none" ||
			true) >/dev/null 2>&1
		if grep -q 'RAMSTER-INIT' "$log"; then QEMU_ACCEL=kvm; fi
		rm -f "$log"
	fi
	echo "$QEMU_ACCEL" > "$cache"
}

qemu_accel_args() {
	if [ "$QEMU_ACCEL" = kvm ]; then
		echo "-accel kvm -cpu max"
	else
		echo "-accel tcg,thread=multi -cpu max"
	fi
}

# Kernel arguments for a usable clock.  Under TCG the guest cannot
# calibrate its TSC (no PIT, HPET or PM timer in a tinyconfig guest) and
# falls back to jiffies: 4 ms resolution, useless for latencies.  TCG's
# TSC is the host's, so with a constant host TSC we give its frequency.
qemu_clock_args() {
	local mhz
	[ "$QEMU_ACCEL" = kvm ] && return 0
	grep -qw constant_tsc /proc/cpuinfo || return 0
	mhz=$(awk -F': *' '/^cpu MHz/ { print int($2 * 1000); exit }' /proc/cpuinfo)
	[ -n "$mhz" ] && echo "tsc_early_khz=$mhz tsc=reliable"
}

# qemu_start LOG MEM_MIB CPUS KERNEL INITRD APPEND [EXTRA QEMU ARGS...]
# Starts a guest in the background with its serial console in LOG and
# records its PID in QEMU_PIDS (and in QEMU_LAST_PID).
qemu_start() {
	local log=$1 mem=$2 cpus=$3 kernel=$4 initrd=$5 append=$6
	shift 6
	# shellcheck disable=SC2046  # the accel args are words on purpose
	qemu-system-x86_64 $(qemu_accel_args) -m "$mem" -smp "$cpus" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=6 $(qemu_clock_args) $append" \
		-nographic -no-reboot -monitor none -serial "file:$log" \
		"$@" </dev/null >"$log.qemu" 2>&1 &
	QEMU_LAST_PID=$!
	QEMU_PIDS+=("$QEMU_LAST_PID")
}

# qemu_wait PID TIMEOUT_S: 0 if the guest exited in time, 1 if it was
# killed at the timeout.
qemu_wait() {
	local pid=$1 timeout=$2 waited=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$waited" -ge "$((timeout * 5))" ]; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			return 1
		fi
		sleep 0.2
		waited=$((waited + 1))
	done
	wait "$pid" 2>/dev/null || true
	return 0
}

# qemu_traps HANDLER: run HANDLER on exit, and on INT/TERM run it and exit
# (a trap that only cleans up would let the script go on to its next run).
qemu_traps() {
	# shellcheck disable=SC2064  # the handler's name is fixed now
	trap "$1" EXIT
	# shellcheck disable=SC2064
	trap "$1; trap - EXIT; exit 143" INT TERM
}

qemu_cleanup() {
	local pid
	for pid in "${QEMU_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	QEMU_PIDS=()
}

# qemu_swap_drive FILE [,MORE-OPTIONS]: the -drive value for a swap disk.
# cache=unsafe: the guest's data need not survive the host.
qemu_swap_drive() {
	echo "file=$1,if=virtio,format=raw,cache=unsafe${2:-}"
}

# A sparse raw disk for swap.
make_swap_disk() {
	rm -f "$1"
	truncate -s "${2:-1G}" "$1"
}
