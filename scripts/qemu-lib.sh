#!/usr/bin/env bash
# QEMU helpers shared by the test harness, the cluster launcher, the demo
# and the benchmark: the one place that builds a QEMU command line.
# Source it; it defines functions only.
#
#   qemu_command LOG MEM CPUS KERNEL INITRD APPEND [ARGS...]
#                         the guest's command line, in QEMU_CMD
#   qemu_add_swap_disk FILE [,OPTIONS] / qemu_add_data_disk FILE N [,OPTIONS] /
#   qemu_add_tap_nic TAP MAC / qemu_add_agent SOCKET / qemu_add_secret NAME FILE
#                         append a device (or a fw_cfg file) to QEMU_CMD
#   qemu_swap_drive FILE  the -drive value of a swap disk
#   qemu_data_disk FILE N the arguments of data disk N
#   make_swap_disk FILE [SIZE] / make_ext4_disk FILE SIZE LABEL
#                         the disk images themselves
#   qemu_start ...        qemu_command, then run it in the background
#   pid_alive PID         the process runs (a zombie runs until its last thread exits)
#   pid_start PID / pid_is PID START
#                         when it started / it is still that process
#   recorded_pid DIR      DIR/pid, while DIR/pid.start says it is that process
#
# Every QEMU process qemu_start starts is recorded in QEMU_PIDS, and
# qemu_cleanup (install it with trap) kills exactly those, by PID.

QEMU_PIDS=()
QEMU_CMD=()
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
		QEMU_ACCEL=kvm
		qemu_command "$log" 128 1 "$kernel" "$initrd" ramster_test=none \
			-nic none
		QEMU_ACCEL=tcg
		# QEMU may abort on KVM here.  The "|| true" inside keeps the
		# subshell from exec'ing timeout (so the abort is reported,
		# silently, inside it) and from failing under set -e.
		(timeout 20 "${QEMU_CMD[@]}" || true) >/dev/null 2>&1
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

# qemu_command LOG MEM_MIB CPUS KERNEL INITRD APPEND [EXTRA QEMU ARGS...]
# Sets QEMU_CMD to a guest's command line: serial console in LOG, no
# display, no reboot (the guest's reboot is QEMU's exit), and APPEND after
# the kernel arguments every guest gets.  Those include where QEMU's
# fw_cfg device is (x86's fixed ports; the guests have no ACPI to say
# so), for the files qemu_add_secret gives a guest.  RAMSTER_GUEST_MEM_EXTRA
# MiB are added to MEM_MIB (tests/run.sh sets it for the debug kernel,
# whose own size and KASAN shadow would leave a guest no memory).
qemu_command() {
	local log=$1 mem=$2 cpus=$3 kernel=$4 initrd=$5 append=$6 accel
	shift 6
	read -r -a accel <<< "$(qemu_accel_args)"
	QEMU_CMD=(qemu-system-x86_64 "${accel[@]}"
		-m "$((mem + ${RAMSTER_GUEST_MEM_EXTRA:-0}))" -smp "$cpus"
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 loglevel=6 qemu_fw_cfg.ioport=12@0x510 $(qemu_clock_args) $append"
		-nographic -no-reboot -monitor none -serial "file:$log" "$@")
}

# qemu_add_swap_disk FILE [,MORE-OPTIONS]: a virtio disk for swap, the
# guest's only one without a serial (/dev/vda unless a data disk took
# that name: QEMU gives the data disks' -device slots first).
qemu_add_swap_disk() {
	QEMU_CMD+=(-drive "$(qemu_swap_drive "$@")")
}

# qemu_add_data_disk FILE N [,MORE-DRIVE-OPTIONS]: data disk N (serial
# dataN, see qemu_data_disk).
qemu_add_data_disk() {
	local args
	mapfile -t args < <(qemu_data_disk "$@")
	QEMU_CMD+=("${args[@]}")
}

# qemu_add_tap_nic TAP MAC: a virtio NIC on an existing tap device (QEMU
# must run in the tap's network namespace).
qemu_add_tap_nic() {
	QEMU_CMD+=(-netdev "tap,id=net0,ifname=$1,script=no,downscript=no"
		-device "virtio-net-pci,netdev=net0,mac=$2")
}

# qemu_add_agent SOCKET: a second virtio console (the guest's /dev/hvc0)
# served on the UNIX socket SOCKET, for the node's command agent.  A
# socket path must be shorter than 108 bytes: keep it in a short
# runtime directory, never under the clone.
qemu_add_agent() {
	[ "${#1}" -lt 108 ] || {
		echo "qemu-lib: socket path too long (${#1} bytes): $1" >&2
		return 1
	}
	QEMU_CMD+=(-device virtio-serial-pci
		-chardev "socket,id=agent,path=$1,server=on,wait=off"
		-device "virtconsole,chardev=agent")
}

# qemu_add_secret NAME FILE: FILE's contents as the fw_cfg file NAME
# (opt/...), which the guest reads as
# /sys/firmware/qemu_fw_cfg/by_name/NAME/raw (root only).  Only the
# path is on QEMU's command line, never the contents: a secret must not
# show in ps on the host, nor in the guest's /proc/cmdline.
qemu_add_secret() {
	QEMU_CMD+=(-fw_cfg "name=$1,file=$2")
}

# qemu_start LOG MEM_MIB CPUS KERNEL INITRD APPEND [EXTRA QEMU ARGS...]
# Starts a guest in the background with its serial console in LOG and
# records its PID in QEMU_PIDS (and in QEMU_LAST_PID).
qemu_start() {
	local log=$1
	qemu_command "$@"
	"${QEMU_CMD[@]}" </dev/null >"$log.qemu" 2>&1 &
	QEMU_LAST_PID=$!
	QEMU_PIDS+=("$QEMU_LAST_PID")
}

# pid_alive PID: the process runs.  A zombie whose threads have all exited
# counts as gone: a QEMU that outlived its launcher belongs to whoever
# adopted it (PID 1, a container's init), which may reap it late or never;
# its tap and memory are free.  While other threads of it are still on
# their way out (the leader shows Z first), they hold those: alive.
pid_alive() {
	[ -n "$1" ] && awk '/^State:/ { z = $2 == "Z" } /^Threads:/ { t = $2 }
		END { exit !(NR > 0 && (!z || t > 1)) }' "/proc/$1/status" 2>/dev/null
}

# pid_start PID: when the process started (field 22 of /proc/PID/stat,
# clock ticks after boot; readable for a zombie too), nothing if there is
# no such process.  A PID alone proves nothing once its process is gone:
# pid_max is often 32768, a long test run wraps it, and a PID recorded
# for a guest may by then be somebody else's; the pair is unique.
pid_start() { awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null || true; }

# pid_is PID START: PID is still the process that started at START, and
# it runs (pid_alive).
pid_is() {
	[ -n "$1" ] && [ -n "$2" ] && pid_alive "$1" && [ "$(pid_start "$1")" = "$2" ]
}

# recorded_pid DIR: the PID in DIR/pid while that process, started at the
# time in DIR/pid.start, still runs (pid_is); else nothing.
recorded_pid() {
	local pid
	pid=$(cat "$1/pid" 2>/dev/null) || return 0
	if pid_is "$pid" "$(cat "$1/pid.start" 2>/dev/null)"; then echo "$pid"; fi
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

# qemu_data_disk FILE N [,MORE-DRIVE-OPTIONS]: the QEMU arguments for data
# disk N, one per line (mapfile them): a virtio disk with the serial
# "dataN", which the guest finds it by (/sys/block/vd*/serial, data_disk N
# in tests/guest/cases/lib.sh), whatever letter it gets.
qemu_data_disk() {
	printf '%s\n' -drive "file=$1,if=none,id=data$2,format=raw,cache=unsafe${3:-}" \
		-device "virtio-blk-pci,drive=data$2,serial=data$2"
}

# A sparse raw disk for swap.
make_swap_disk() {
	rm -f "$1"
	truncate -s "${2:-1G}" "$1"
}

# make_ext4_disk FILE SIZE LABEL: a raw disk with an empty ext4 filesystem,
# made by the host's mkfs.ext4 on a file (nothing is mounted on the host):
# 4 KiB blocks, a page each (cleancache keeps only such pages), and inode
# tables and journal written now, not by the guest while it measures.
make_ext4_disk() {
	rm -f "$1"
	truncate -s "$2" "$1"
	mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 \
		-L "$3" "$1" >&2
}
