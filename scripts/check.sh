#!/usr/bin/env bash
# make check: the kernel's own style checker on the patch series and the
# module, its layering (scripts/check-layers.py), shellcheck on the
# scripts, and warning-free guest programs.
# Prints one line per checked item and a total; exits 1 on any error or
# warning.
#
# Justified exceptions, each a flag below and nowhere else:
#  - module sources: --no-tree (out-of-tree module, as the kernel docs say).
#  - guest scripts run under busybox sh, which shellcheck does not know:
#    checked as dash, with SC3043 (busybox sh has "local") excluded.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
TOOLS=$TOP/build/checkpatch
FAILED=0

indent() { sed 's/^/        /'; }

# checkpatch.pl and the data files it reads, from the same kernel source.
checkpatch_tools() {
	local member
	[ -x "$TOOLS/scripts/checkpatch.pl" ] && return
	echo "check: extracting checkpatch.pl from $(basename "$TARBALL")"
	mkdir -p "$TOOLS"
	for member in checkpatch.pl spelling.txt const_structs.checkpatch; do
		echo "linux-source-6.1/scripts/$member"
	done > "$TOOLS/members"
	tar -C "$TOOLS" --strip-components=1 -xJf "$TARBALL" -T "$TOOLS/members"
}

# run_check WHAT COMMAND...: the command must succeed and print nothing.
run_check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1) && [ -z "$out" ]; then
		echo "ok      $what"
	else
		echo "FAILED  $what"
		indent <<< "$out"
		FAILED=$((FAILED + 1))
	fi
}

run_checkpatch() {
	local what=$1
	shift
	run_check "checkpatch $what" perl "$TOOLS/scripts/checkpatch.pl" \
		--quiet --show-types --strict "$@"
}

check_patches() {
	local p
	while read -r p; do
		run_checkpatch "kernel-patches/$p" --no-tree \
			"$TOP/kernel-patches/$p"
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
		"$TOP/kernel-patches/series")
}

check_module() {
	local f
	for f in "$TOP"/ramster/*.[ch]; do
		run_checkpatch "ramster/$(basename "$f")" --no-tree -f "$f"
	done
}

run_shellcheck() {
	local what=$1
	shift
	run_check "shellcheck $what" shellcheck "$@"
}

check_scripts() {
	local f
	for f in "$TOP"/scripts/*.sh "$TOP"/tests/*.sh "$TOP"/tests/cluster/*.sh \
		"$TOP"/net-scripts/*.sh "$TOP"/.ci/run "$TOP"/ramster-cluster; do
		[ -f "$f" ] && run_shellcheck "${f#"$TOP"/}" -x "$f"
	done
	for f in "$TOP"/tools/guest/init "$TOP"/tools/guest/ramster-node \
		"$TOP"/tests/guest/cases/*.sh; do
		run_shellcheck "${f#"$TOP"/}" -s dash -e SC3043 "$f"
	done
}

# The module's include graph: no cycle, and a transport that never names
# its users (scripts/check-layers.py says why when it fails).
check_layers() {
	local out
	if out=$(python3 "$TOP/scripts/check-layers.py" "$TOP/ramster" 2>&1); then
		echo "$out"
	else
		echo "FAILED  layering of ramster/"
		indent <<< "$out"
		FAILED=$((FAILED + 1))
	fi
}

check_python() {
	local f
	for f in "$TOP"/scripts/*.py "$TOP"/tools/*.py; do
		run_check "python3 compile ${f#"$TOP"/}" python3 -c \
			"import ast, sys; ast.parse(open(sys.argv[1]).read())" "$f"
	done
}

check_guest_programs() {
	local f
	for f in "$TOP"/tools/*.c "$TOP"/tools/guest/*.c "$TOP"/tests/guest/*.c \
		"$TOP"/tests/bench/*.c; do
		run_check "gcc -Wall -Wextra ${f#"$TOP"/}" \
			gcc -O2 -Wall -Wextra -Werror -fsyntax-only "$f"
	done
}

main() {
	checkpatch_tools
	check_patches
	check_module
	check_layers
	check_scripts
	check_python
	check_guest_programs
	if [ "$FAILED" -eq 0 ]; then
		echo "check: 0 errors, 0 warnings"
	else
		echo "check: $FAILED item(s) with errors or warnings"
		exit 1
	fi
}

main "$@"
