#!/usr/bin/env bash
# Edit the kernel patch series with git.
#
#   scripts/patches.sh workspace   build/kdev: a git repository with the
#                                  vanilla files the series touches as its
#                                  first commit and one commit per patch
#                                  (git am); edit, commit --fixup, rebase
#   scripts/patches.sh add FILE... vanilla copies of more files, for a
#                                  patch about to touch them: folded into
#                                  the "vanilla" commit, the series rebased
#                                  on it (FILE: a path in the kernel tree)
#   scripts/patches.sh export      write the commits after "vanilla" back
#                                  to kernel-patches/ and the series file
set -euo pipefail

# One collation for sort and comm.
export LC_ALL=C
TOP=$(cd "$(dirname "$0")/.." && pwd)
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KDEV=$TOP/build/kdev
PATCHES=$TOP/kernel-patches

die() { printf 'patches: %s\n' "$*" >&2; exit 1; }

series() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series"; }

# series_paths AWK: what AWK prints for the patches of the series, sorted
# and unique; f is the path of the diff --git line last seen.
series_paths() {
	local p
	series | while read -r p; do
		awk '/^diff --git / { f = substr($3, 3) } '"$1" "$PATCHES/$p"
	done | sort -u
}

# Every file a patch of the series touches.
touched_files() { series_paths '/^diff --git / { print f }'; }

# Files the series creates (a "new file mode" after their diff line):
# not in the archive.
created_files() { series_paths '/^new file mode/ { print f }'; }

workspace() {
	local touched created
	[ ! -e "$KDEV" ] || die "$KDEV exists; remove it first"
	touched=$(touched_files) || die "cannot read the series"
	created=$(created_files) || die "cannot read the series"
	[ -n "$touched" ] || die "the series touches no file"
	mkdir -p "$KDEV"
	comm -23 <(printf '%s\n' "$touched") <(printf '%s\n' "$created") |
		sed 's|^|linux-source-6.1/|' > "$KDEV.members"
	if ! tar -C "$KDEV" --strip-components=1 -xJf "$TARBALL" -T "$KDEV.members"; then
		rm -rf "$KDEV" "$KDEV.members"
		die "extracting the vanilla files failed"
	fi
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

# Files no patch touches yet are not in the workspace: a patch that creates
# or edits one needs the vanilla file (or its absence) in the base commit,
# or it would carry the whole file.
add_files() {
	local old base f
	[ -d "$KDEV/.git" ] || die "no workspace: scripts/patches.sh workspace"
	[ $# -gt 0 ] || die "usage: scripts/patches.sh add FILE..."
	git -C "$KDEV" diff --quiet HEAD || die "$KDEV has uncommitted changes"
	old=$(git -C "$KDEV" symbolic-ref --short HEAD) ||
		die "$KDEV: not on a branch"
	git -C "$KDEV" checkout -q vanilla
	for f in "$@"; do
		tar -C "$KDEV" --strip-components=1 -xJf "$TARBALL" \
			"linux-source-6.1/$f" || die "$f: not in $(basename "$TARBALL")"
		git -C "$KDEV" add -- "$f"
	done
	git -C "$KDEV" -c user.name=vanilla -c user.email=vanilla@localhost \
		commit -q --amend --no-edit
	base=$(git -C "$KDEV" rev-parse HEAD)
	git -C "$KDEV" rebase -q --onto "$base" vanilla "$old" ||
		die "rebase onto the new vanilla failed: see $KDEV"
	git -C "$KDEV" tag -f vanilla "$base" >/dev/null
	echo "patches: added $# file(s) to the vanilla commit"
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
add) shift; add_files "$@" ;;
export) export_series ;;
*) die "usage: scripts/patches.sh workspace|add FILE...|export" ;;
esac
