#!/usr/bin/env bash
# make demo: boot a guest, push it to 3x its RAM through ramster, and show
# the counters while it runs and at the end.  (A single node for now; the
# cluster issue turns this into a 3-node cluster.)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/qemu-lib.sh
. "$TOP/scripts/qemu-lib.sh"

KERNEL=$TOP/build/kernel/bzImage
INITRD=$TOP/build/initramfs.cpio.gz
DIR=$TOP/build/demo
MEM=${DEMO_MEM_MIB:-128}

# Print the demo's own console lines as they come, until the guest exits
# or the timeout; no background process to clean up.
follow_console() {
	local pid=$1 log=$2 shown=0 total waited=0
	while :; do
		total=$(wc -l < "$log")
		if [ "$total" -gt "$shown" ]; then
			sed -n "$((shown + 1)),${total}p" "$log" | tr -d '\r' |
				grep -E '^(demo:|stats:|workload:|RESULT:|  [a-z_]+ |--- )' || true
			shown=$total
		fi
		kill -0 "$pid" 2>/dev/null || break
		if [ "$waited" -ge 900 ]; then
			echo "demo: timed out after 900 s"
			break
		fi
		sleep 1
		waited=$((waited + 1))
	done
	qemu_wait "$pid" 5 || true
}

main() {
	qemu_traps qemu_cleanup
	rm -rf "$DIR"
	mkdir -p "$DIR"
	qemu_pick_accel "$KERNEL" "$INITRD" "$TOP/build/accel"
	make_swap_disk "$DIR/swap.img" 1G
	: > "$DIR/console.log"	# followed before QEMU opens it
	echo "demo: one ${MEM} MiB guest ($QEMU_ACCEL), swap on virtio-blk," \
		"ramster loaded; console log: $DIR/console.log"
	qemu_start "$DIR/console.log" "$MEM" 2 "$KERNEL" "$INITRD" \
		"ramster_test=demo" -nic none \
		-drive "$(qemu_swap_drive "$DIR/swap.img")"
	local pid=$QEMU_LAST_PID
	follow_console "$pid" "$DIR/console.log"
	if tr -d '\r' < "$DIR/console.log" | grep -q '^RESULT: ok demo_workload_verified'; then
		echo "demo: every page verified"
	else
		echo "demo: FAILED, see $DIR/console.log"
		exit 1
	fi
}

main "$@"
