#!/usr/bin/env bash
# A program of this host for the benchmark's guests (tests/bench.sh), with
# the libraries it links, as a cpio member appended to a guest's or a
# cluster node's initramfs.  Not in the base initramfs: each costs the
# guests RAM (their root is ramfs) that only one benchmark mode needs.
#   sort  GNU sort from Debian's coreutils (every Debian system has it):
#         the "sort" workload's real program (about 2.5 MiB).
#   tc    tc from Debian's iproute2: the dilated mode's netem qdisc on
#         each node's NIC (busybox's tc has no netem).
#
#   build-tool-initramfs.sh sort|tc OUT.cpio.gz
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cpio-lib.sh
. "$TOP/scripts/cpio-lib.sh"

die() { printf 'build-tool-initramfs: error: %s\n' "$*" >&2; exit 1; }

# tool_path TOOL: the host's binary, checked; its place in the guest on
# the second line.
tool_path() {
	local bin
	case "$1" in
	sort)
		bin=$(command -v sort) || die "no sort on this host (coreutils)"
		sort --version | head -n 1 | grep -q 'GNU coreutils' ||
			die "$bin is not GNU sort"
		printf '%s\nusr/bin/sort\n' "$bin"
		;;
	tc)
		bin=$(PATH=$PATH:/usr/sbin:/sbin command -v tc) ||
			die "no tc on this host (apt-get install iproute2)"
		"$bin" -V 2>&1 | grep -q iproute2 || die "$bin is not iproute2's tc"
		printf '%s\nusr/sbin/tc\n' "$bin"
		;;
	*) die "no tool '$1' (sort or tc)" ;;
	esac
}

main() {
	[ $# -eq 2 ] || die "usage: build-tool-initramfs.sh sort|tc OUT.cpio.gz"
	local tool=$1 out=$2 paths
	mapfile -t paths < <(tool_path "$tool")
	[ "${#paths[@]}" -eq 2 ] || exit 1
	STAGING=$(mktemp -d "${TMPDIR:-/tmp}/ramster-$tool.XXXXXX")
	trap 'rm -rf "$STAGING"' EXIT
	add_with_libs "$STAGING" "$(readlink -f "${paths[0]}")" "${paths[1]}"
	pack_cpio "$STAGING" "$out"
	echo "$tool: $out ($(stat -c %s "$out") bytes)"
}

main "$@"
