#!/usr/bin/env bash
# Edit the kernel patch series with git.
#
#   scripts/patches.sh workspace   build/kdev: a git repository with the
#                                  vanilla files the series touches as its
#                                  first commit and one commit per patch
#                                  (git am); edit, commit --fixup, rebase
#   scripts/patches.sh export      write the commits after "vanilla" back
#                                  to kernel-patches/ and the series file
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KDEV=$TOP/build/kdev
PATCHES=$TOP/kernel-patches

die() { printf 'patches: %s\n' "$*" >&2; exit 1; }

series() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series"; }

# Every file a patch of the series touches, plus checkpatch's own files.
touched_files() {
	local p
	series | while read -r p; do
		sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$PATCHES/$p"
	done | sort -u
}

workspace() {
	[ ! -e "$KDEV" ] || die "$KDEV exists; remove it first"
	mkdir -p "$KDEV"
	touched_files | sed 's|^|linux-source-6.1/|' > "$KDEV.members"
	tar -C "$KDEV" --strip-components=1 -xJf "$TARBALL" -T "$KDEV.members"
	rm -f "$KDEV.members"
	git -C "$KDEV" init -q
	git -C "$KDEV" add -A
	git -C "$KDEV" -c user.name=vanilla -c user.email=vanilla@localhost \
		commit -qm vanilla
	git -C "$KDEV" tag vanilla
	series | while read -r p; do
		git -C "$KDEV" am -q --keep-cr "$PATCHES/$p" ||
			die "git am failed on $p"
	done
	echo "patches: workspace in $KDEV, $(series | wc -l) patches on top of tag 'vanilla'"
}

export_series() {
	[ -d "$KDEV/.git" ] || die "no workspace: scripts/patches.sh workspace"
	rm -f "$PATCHES"/*.patch
	git -C "$KDEV" format-patch -q --no-signature --zero-commit -o "$PATCHES" vanilla..HEAD
	(cd "$PATCHES" && ls -- *.patch > series)
	echo "patches: exported $(wc -l < "$PATCHES/series") patches"
}

case "${1:-}" in
workspace) workspace ;;
export) export_series ;;
*) die "usage: scripts/patches.sh workspace|export" ;;
esac
