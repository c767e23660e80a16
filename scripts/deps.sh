#!/usr/bin/env bash
# Install the Debian packages the project needs; quiet when all are present.
# gnuplot-nox: make bench's plots (build/bench/*.png).
set -euo pipefail

PACKAGES=(
	linux-source-6.1 gcc make libc6-dev qemu-system-x86 iproute2
	busybox-static flex bison bc libelf-dev libssl-dev cpio xz-utils
	gzip ccache perl python3 shellcheck e2fsprogs util-linux tcpdump
	gnuplot-nox
)

missing_packages() {
	local p status
	for p in "${PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[ "$status" = "install ok installed" ] || echo "$p"
	done
}

main() {
	local missing
	mapfile -t missing < <(missing_packages)
	[ "${#missing[@]}" -gt 0 ] || return 0
	echo "deps: installing ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: need root to install packages" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	echo "deps: done"
}

main "$@"
