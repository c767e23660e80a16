# shellcheck shell=bash
# cleanremote: clean pages remotified to a peer (issue 12, test 4).  The
# pair of tests/configs/pair-fuzz.conf with a data disk each
# (ramster-cluster up --data-disk); node 1 keeps a file set of about twice
# its RAM on its ext4 disk, its local clean pool is too small for it, so
# evicted clean pages go to node 2 as ephemeral pages and come back on a
# re-read.
#  1. The set is created, evicted and read twice (forward, then shuffled):
#     node 2 held pages of it, node 1's second pass got pages from node 2,
#     every page is right.
#  2. The set is written again with another seed, file by file, each read
#     back at once, then evicted and read again: every page is the new
#     data (a copy of the old data on node 2, served for the same file and
#     index, would be read as the old seed's page).
#  3. A workload of 1.5x node 2's RAM presses node 2 while node 1 re-reads:
#     node 2 drops ephemeral pages under its own pressure, node 1 reads
#     those from the disk (a legal miss), every page is right, and node
#     2's workload verifies.
#  4. With clean pages on node 2, node 1's module unloads (clean pages do
#     not pin it), node 2 drops them within 30 s, the module loads again
#     and the set still reads right.
#
# results: cluster_clean_pages_remotified cluster_clean_remote_rewrite_coherent
# results: cluster_clean_lender_drops_under_pressure
# results: cluster_clean_owner_unloads_with_remote_pages
# results: cluster_cleanremote_no_kernel_warnings
# timeout: 1500

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

CC=/sys/kernel/debug/cleancache
SET=/mnt/set
# ext4 on node 1: 4 MiB files, about twice its RAM (64 MiB: ~26 files).
DATA_DISK=256M
# The data disk's device in node 1, the number of files, the seed the set
# was last written with.
DEV=
FILES=
SEED=

# n1 CMD: a command in node 1 with the guest cases' helpers (data_disk,
# mount_data, sectors_read, ram_mib, evict).
n1() { cx 1 ". /cases/lib.sh; $*"; }

cc_stat() { cx 1 "cat $CC/$1" | head -n 1; }
sectors() { n1 "sectors_read $DEV" | head -n 1; }
evict1() { n1 evict >/dev/null; }

# num VALUE: VALUE if it is a number, else 0 (a counter that could not be
# read must not abort the arithmetic; the checks say it is missing).
num() { if [[ "$1" =~ ^[0-9]+$ ]]; then echo "$1"; else echo 0; fi; }
n() { num "$(dbg "$1" "$2")"; }
# shown NODE NAME: a counter for a message ("no NAME" if unreadable).
shown() {
	local v
	v=$(dbg "$1" "$2")
	if [[ "$v" =~ ^[0-9]+$ ]]; then echo "$v"; else echo "(no $2)"; fi
}

# within SECONDS CMD...: poll CMD until it succeeds, for SECONDS of wall
# time (wait_until counts polls, and each poll is a command in a guest).
within() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 1
	done
}

ephemeral_above() { [ "$(n 2 foreign_ephemeral_pages)" -gt "$1" ]; }
ephemeral_zero() { [ "$(dbg 2 foreign_ephemeral_pages)" = 0 ]; }

# create SEED: (re)write the set (every file truncated and written again).
create() {
	local out
	SEED=$1
	out=$(cx 1 "/bin/fileset create $SET $FILES 1024 $SEED && echo created")
	[[ "$out" == *created* ]] || problem "fileset create $SEED: $(tr '\n' ' ' <<< "$out")"
}

# fileset_run NAME ARGS...: /bin/fileset ARGS in node 1 (read or
# rewrite); sets BAD (bad pages, or "?" if it did not say), MS and
# SECTORS (read from the disk).  A problem unless it exited 0 with 0 bad
# pages.
fileset_run() {
	local name=$1 out s0 s1 line
	shift
	s0=$(sectors)
	cx 1 "/bin/fileset $* > /tmp/$name.out 2>&1; echo rc=\$? >> /tmp/$name.out" >/dev/null
	s1=$(sectors)
	out=$(cx 1 "cat /tmp/$name.out")
	echo "$out" > "$RAMSTER_CLUSTER_DIR/fileset-$name.txt"
	line=$(grep -m1 -E '^fileset: (read|rewrite) ' <<< "$out" || true)
	BAD=$(sed -n 's/.* bad=\([0-9]*\).*/\1/p' <<< "$line")
	MS=$(sed -n 's/.* ms=\([0-9]*\).*/\1/p' <<< "$line")
	SECTORS=$(($(num "$s1") - $(num "$s0")))
	if [ -z "$BAD" ]; then
		BAD="?"
		problem "$name: no result ($(tail -n 2 <<< "$out" | tr '\n' ' '))"
	elif [ "$BAD" != 0 ] || ! grep -q '^rc=0$' <<< "$out"; then
		problem "$name: $BAD bad pages ($(grep -m2 '^BAD ' <<< "$out" | tr '\n' ' ')fileset-$name.txt)"
	fi
}

# pass NAME ORDER: read and verify the whole set (fileset_run).
pass() { fileset_run "$1" read "$SET" "$FILES" 1024 "$SEED" "$2"; }

# ephemeral_peak_now: the largest foreign_ephemeral_pages node 2 has shown.
EPH_PEAK=0
ephemeral_sample() {
	local v
	v=$(n 2 foreign_ephemeral_pages)
	if [ "$v" -gt "$EPH_PEAK" ]; then EPH_PEAK=$v; fi
}

# The set is created, evicted, read twice.
clean_pages_remotified() {
	local puts0 eputs0 gets0 gets1 gets2 h0 h1 hits1 hits2 miss0 p1ms p1sect pages
	local inv0 shrunk0 ro1
	inv0=$(n 1 clean_remote_invalidates)
	shrunk0=$(n 1 clean_shrunk)
	puts0=$(n 1 clean_remote_puts)
	gets0=$(n 1 clean_remote_gets)
	eputs0=$(n 2 foreign_ephemeral_puts)
	miss0=$(n 1 clean_remote_get_misses)
	# Freshly written pages are not offered to cleancache when evicted
	# (not mapped to disk), pages read are: the first pass fills it.
	create 11
	evict1
	h0=$(num "$(cc_stat succ_gets)")
	pass pass1 forward
	p1ms=$MS
	p1sect=$SECTORS
	ephemeral_sample
	ro1=$(n 1 clean_remote_pages)
	gets1=$(n 1 clean_remote_gets)
	h1=$(num "$(cc_stat succ_gets)")
	pass pass2 shuffled
	ephemeral_sample
	gets2=$(n 1 clean_remote_gets)
	hits1=$((h1 - h0))
	hits2=$(($(num "$(cc_stat succ_gets)") - h1))
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat-remotified.txt" 2>&1 || true
	puts0=$(($(n 1 clean_remote_puts) - puts0))
	eputs0=$(($(n 2 foreign_ephemeral_puts) - eputs0))
	miss0=$(($(n 1 clean_remote_get_misses) - miss0))
	pages=$((FILES * 1024))
	[ "$puts0" -gt 0 ] || problem "node 1 sent no clean page (clean_remote_puts +0, put_failed $(shown 1 clean_remote_put_failed))"
	[ "$EPH_PEAK" -gt 0 ] || [ "$eputs0" -gt 0 ] ||
		problem "node 2 never held an ephemeral page (foreign_ephemeral_pages $EPH_PEAK, puts +$eputs0)"
	[ "$((gets2 - gets1))" -gt 0 ] || problem "the second pass got no page from node 2 (clean_remote_gets +$((gets2 - gets1)))"
	FIGURES="$FILES files, $pages pages; $puts0 clean pages to node 2 (acknowledged), node 2 took $eputs0, held up to $EPH_PEAK; remote gets $((gets1 - gets0)) then $((gets2 - gets1)) ($(awk -v g="$((gets2 - gets1))" -v p="$pages" 'BEGIN { printf "%.1f", 100 * g / p }')%), misses $miss0; $ro1 pages only on node 2 after pass 1, $(($(n 1 clean_remote_invalidates) - inv0)) remote copies invalidated, $(($(n 1 clean_shrunk) - shrunk0)) entries shrunk; cleancache hits $hits1 then $hits2 ($(awk -v h="$hits2" -v p="$pages" 'BEGIN { printf "%.1f", 100 * h / p }')%); sectors read $p1sect then $SECTORS ($(awk -v a="$p1sect" -v b="$SECTORS" 'BEGIN { if (a) printf "%.1f", 100 * (a - b) / a; else print 0 }')% saved); $p1ms then $MS ms; 0 bad"
}

remote_only_above() { [ "$(n 1 clean_remote_pages)" -gt "$1" ]; }

# Written again with a new seed: the truncation must reach node 1's
# entries and node 2's copies, and what comes back must be the new data.
# First every page of the old data leaves the page cache (to cleancache,
# node 2 getting copies); then each file is truncated, written anew,
# dropped from the page cache and read back at once (fileset rewrite: the
# last files read first, as their old pages are likeliest still kept), so
# a copy of the old data that survived its truncation would be read, and
# name the old seed.  Then the new set is evicted and read again.
rewrite_coherent() {
	local held inv0 gets0 gets miss0 ms1
	evict1
	within 20 remote_only_above 0 || true
	held=$(n 1 clean_remote_pages)
	[ "$held" -gt 0 ] ||
		problem "node 1 had no clean page only on node 2 before the rewrite (clean_remote_pages $held): nothing stale to catch"
	inv0=$(n 1 clean_remote_invalidates)
	gets0=$(n 1 clean_remote_gets)
	miss0=$(n 1 clean_remote_get_misses)
	fileset_run rewrite1 rewrite "$SET" "$FILES" 1024 12 "$SEED" shuffled
	ms1=$MS
	SEED=12
	evict1
	pass rewrite2 shuffled
	gets=$(($(n 1 clean_remote_gets) - gets0))
	[ "$gets" -gt 0 ] || problem "no page of the new data came from node 2 (clean_remote_gets +0)"
	FIGURES="$held pages of the old data only on node 2 when rewritten, remote invalidates +$(($(n 1 clean_remote_invalidates) - inv0)); rewritten and read back file by file in $ms1 ms, read again in $MS ms: $gets remote gets, $(($(n 1 clean_remote_get_misses) - miss0)) misses, 0 bad"
}

# Node 2 under its own memory pressure while node 1 re-reads.
lender_drops_under_pressure() {
	local drop0 miss0 gets0 mem2 bad2 peak sq0 asks0 rec0 wb0
	evict1
	within 30 ephemeral_above 0 ||
		problem "node 2 held no ephemeral page before the pressure"
	peak=$(n 2 foreign_ephemeral_pages)
	drop0=$(n 2 foreign_ephemeral_dropped)
	miss0=$(n 1 clean_remote_get_misses)
	gets0=$(n 1 clean_remote_gets)
	mem2=$(node_mem 2)
	sq0=$(n 1 lender_squeezes)
	asks0=$(n 1 lender_reclaim_asks)
	rec0=$(n 1 recalls_sent)
	wb0=$(n 2 recall_written_back)
	# Node 2's workload swaps to node 1, up to its capacity of 6144 raw
	# pages (24 MiB of its 64, sized for the swap sessions): on top of
	# node 1's own clean pool and page cache, its re-read was OOM-killed
	# in CI, first with a 10% lender reserve never crossed (its file
	# pages and reserved free pages counted as available), then, that
	# fixed, with the store refilled between ticks and node 2, short
	# itself, unable to take its pages back.  Node 1's defaults must
	# protect it now: under the reserve (checked by PUTs between ticks)
	# it recalls back to twice it, and node 2 writes what it cannot
	# take home to its swap device.
	load_bg 2 $((mem2 * 3 / 2)) 5
	pass pressure1 forward
	pass pressure2 shuffled
	LOADING=2 watch_loads 600 || problem "node 2's workload did not finish"
	bad2=$(load_bad 2)
	[ "$bad2" = 0 ] || problem "node 2's workload: bad pages $bad2"
	drop0=$(($(n 2 foreign_ephemeral_dropped) - drop0))
	[ "$drop0" -gt 0 ] ||
		problem "node 2 dropped no ephemeral page under a workload of $((mem2 * 3 / 2)) MiB (foreign_ephemeral_pages $(shown 2 foreign_ephemeral_pages))"
	[ "$(($(n 1 lender_squeezes) - sq0))" -gt 0 ] ||
		problem "node 1 ($(shown 1 foreign_pages) foreign pages now) was never squeezed under its own re-read: nothing protected it"
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat-pressure.txt" 2>&1 || true
	FIGURES="node 2 held $peak, dropped $drop0 under a ${mem2}x1.5 MiB workload (0 bad); node 1: $(($(n 1 clean_remote_gets) - gets0)) remote gets, $(($(n 1 clean_remote_get_misses) - miss0)) remote get misses (read from disk), 0 bad; node 1 as lender: squeezes +$(($(n 1 lender_squeezes) - sq0)), reclaim asks +$(($(n 1 lender_reclaim_asks) - asks0)), recalls sent +$(($(n 1 recalls_sent) - rec0)), foreign pages now $(shown 1 foreign_pages); node 2 wrote $(($(n 2 recall_written_back) - wb0)) recalled pages to its swap device"
}

# unload NODE: ramster-cluster unload; its output in unload-NODE.txt.
unload() {
	"$CLUSTER" unload "$1" > "$RAMSTER_CLUSTER_DIR/unload-$1.txt" 2>&1
}

owner_unloads_with_remote_pages() {
	local held t0 t1 t2 out
	# The pressure left node 2 nothing (it dropped every ephemeral page)
	# and node 1 a page cache its local pool takes whole: reading the set
	# again (twice node 1's RAM) overflows that pool to node 2.
	pass before-unload forward
	evict1
	within 30 ephemeral_above 0 ||
		problem "node 2 held no ephemeral page before the unload"
	held=$(n 2 foreign_ephemeral_pages)
	t0=$(date +%s)
	if ! unload 1; then
		problem "unload 1 failed: $(tail -n 2 "$RAMSTER_CLUSTER_DIR/unload-1.txt" | tr '\n' ' ')"
		return
	fi
	t1=$(date +%s)
	out=$(cx 1 "cat /sys/module/ramster/refcnt 2>/dev/null || echo gone")
	[ "$out" = gone ] || problem "the module is still loaded after unload ($out)"
	within 30 ephemeral_zero ||
		problem "node 2 still holds $(shown 2 foreign_ephemeral_pages) ephemeral pages 30 s after node 1 unloaded"
	t2=$(date +%s)
	if ! "$CLUSTER" reload 1 > "$RAMSTER_CLUSTER_DIR/reload-1.txt" 2>&1; then
		problem "reload 1 failed: $(tail -n 2 "$RAMSTER_CLUSTER_DIR/reload-1.txt" | tr '\n' ' ')"
		return
	fi
	wait_until 30 peer_state_is 1 2 live || problem "link 1-2 not live after the reload"
	set_param 1 clean_remote 1
	# The mounted filesystem gets a pool again; its files read right.
	pass reloaded forward
	FIGURES="node 2 held $held ephemeral pages; unload took $((t1 - t0)) s, node 2 had dropped them all $((t2 - t1)) s later; reloaded, $((FILES * 1024)) pages read back, 0 bad"
}

# with_figures FUNCTION: a check whose figures also go with its problems
# (what was measured tells why it failed).
with_figures() {
	"$@"
	if [ -n "$PROBLEM" ] && [ -n "$FIGURES" ]; then problem "$FIGURES"; fi
}

no_kernel_warnings() {
	session_down || problem "down failed: $(tail -n 1 "$DOWN_LOG")"
	check_consoles_clean
}

session_up --data-disk "$DATA_DISK" "$TOP/tests/configs/pair-fuzz.conf" 1 2
case "$(cx 1 cat /sys/module/ramster/parameters/clean_remote)" in
Y | N) ;;
*) skip_session "this module has no clean_remote parameter (clean pages stay local)" ;;
esac
set_param 1 clean_remote 1
set_param 2 clean_remote 1
wait_until 30 peer_state_is 1 2 live || abort "link 1-2 not live"
DEV=$(n1 "data_disk 0" | head -n 1)
[[ "$DEV" == /dev/vd* ]] || abort "node 1: no data disk ($DEV)"
[ "$(n1 "mount_data 0 /mnt && mkdir -p $SET && echo mounted")" = mounted ] ||
	abort "node 1: cannot mount its data disk"
# shellcheck disable=SC2016  # expanded in the guest
FILES=$(n1 'echo $(($(ram_mib) * 2 / 4))' | head -n 1)
[[ "$FILES" =~ ^[1-9][0-9]*$ ]] || abort "node 1: cannot size the file set ($FILES)"
echo "# cluster $SESSION: node 1's file set: $FILES files of 4 MiB on $DEV"

check cluster_clean_pages_remotified with_figures clean_pages_remotified
check cluster_clean_remote_rewrite_coherent with_figures rewrite_coherent
check cluster_clean_lender_drops_under_pressure with_figures lender_drops_under_pressure
check cluster_clean_owner_unloads_with_remote_pages with_figures owner_unloads_with_remote_pages
check cluster_cleanremote_no_kernel_warnings no_kernel_warnings
