#!/usr/bin/env bash
# make bench (tests/bench.sh [swap] [security] [reread]; all by default).
#
# swap: the same workload, in the same guest shape, under
#   disk      the patched kernel, no frontswap backend (plain disk swap)
#   zswap     the patched kernel, zswap (lz4, zsmalloc)
#   zram      the patched kernel, a zram swap device (lz4, disksize half
#             the RAM) swapped on before the disk, so with the higher
#             priority; the disk takes what does not fit
#   ramster   the patched kernel, ramster's local tier (lz4, zsmalloc)
#   vanilla   an unpatched 6.1 built from the same config fragment, disk
#             (left out, with a note, when build/kernel-vanilla is not
#             built: make kernel-vanilla)
# and, as root (a network namespace), on node 1 of cluster-configs/pair.conf
# (the same guest shape: 128 MiB unless BENCH_MEM_MIB differs, 2 CPUs, its
# swap disk throttled the same way), node 2 lending its RAM:
#   nbd       swap over NBD to node 2's RAM, the network alternative a user
#             would pick: ramster unloaded on both, Debian's nbd-server on
#             node 2 exporting a file in its RAM (ramfs) of node 2's
#             capacity in pages (the same number of pages ramster may keep
#             there), node 1's /dev/nbd0 (tests/bench/nbd-attach.c) swapped
#             on first, its disk after it for what does not fit
#   pair      ramster as the node runs it: its local tier and node 2
#   pair-nora pair with remote_readahead=0 on node 1: one GET per page, no
#             pages fetched ahead (what readahead.c buys)
#   pair-auth pair with encrypt=0: frames authenticated, pages in clear
#   pair-insecure  pair without a cluster key (--insecure): neither
#             (pair itself runs as a user would: authenticated and
#             encrypted, the default)
# and in the same guest shape, with more nodes:
#   peers3    node 1 of cluster-configs/peers-3.conf, nodes 2 and 3 lending:
#             every page it sends away goes to both (replicas=2), so twice
#             the pair's PUT traffic for half the remote capacity
#   memserver a client (node 2) of cluster-configs/memserver.conf and its
#             memory server (node 1, 512 MiB): one copy (one server)
# Per run besides the runtime: the CPU time busy in every guest of the run
# (the workload's node and its lenders: compression and the network
# cost somewhere), the bytes on the workload node's NIC per page of the workload
# (received and sent), and in the cluster configurations the network's
# own round trip between the workload's node and its first lender
# (tests/guest/tcp-echo.c: 4 KiB echoed 200 times over TCP, a GET-shaped
# round trip, and ping),
# with ramster's remote load latency beside it (the last 1024 loads'
# remote_load_latency_us; NBD has no such figure).  The samples make
# build/bench/latency.png, the latency CDF of remote loads and of the echo.
# with the working set BENCH_FRACTIONS percent in RAM (default "75 50 33":
# workloads of RAM / 0.75, RAM / 0.5 and RAM / 0.33 of the guest's
# MemTotal, the method of the Infiniswap and Fastswap papers), RUNS times
# each.  The pages are the workload's realistic mix (workload -X: 10% zero,
# 12% random, the rest text-like, about 2.6x with lz4); BENCH_MIX=default
# uses the workload's default mix (40% random) instead.  The swap disk is a
# host file; without a limit it is really the host's page cache, faster
# than any device, so it is throttled to BENCH_DISK_MBPS MB/s and
# BENCH_DISK_IOPS (defaults 50 and 5000: a modest SSD, or swap over a
# network block device); BENCH_DISK_MBPS=0 removes the limit.  Runs are
# interleaved (every configuration once per round) so that the machine's
# noise spreads over all of them.  First, the TCG slowdown factor: the
# workload's compression loop (workload -Z, an LZ4-style compressor over
# pages of the mix) for BENCH_COMPRESS_SECONDS (default 5) on the host and
# in a guest, the ratio of their pages/s.  Prints medians and ratios and
# saves the table in build/bench/results.txt, and with gnuplot
# build/bench/runtime.png (median runtime against the fraction in RAM, one
# line per configuration).  BENCH_DILATE=1: the dilated mode, the disk
# throttle (bytes/s and IOPS) divided by the factor for the swap part, so
# that the disk looks to the emulated CPU as it would to a native one (run
# once without and once with it for raw and dilated figures; the header
# says which), and the network of the cluster configurations slowed the
# same way: a netem qdisc on every node's NIC (Debian's tc in the guests,
# scripts/build-tool-initramfs.sh; this host's kernel has no sch_netem
# for the bridge) adds (factor - 1) times BENCH_NET_RTT_US (default 50,
# the round trip of the native link modelled) to each round trip, half
# each way, and limits each NIC to BENCH_NET_GBITS (default 10) over the
# factor.  A measurement, never a pass/fail test.
#
# security: the cost of the cluster key (issue 11).  The pair of
# tests/configs/pair-fuzz.conf booted three ways, RUNS interleaved rounds:
#   insecure        no key (insecure=1): links neither authenticated nor
#                   encrypted
#   authenticated   the key, encrypt=0: every frame tagged, pages in clear
#   encrypted       the key, encrypt=1 (the default)
# Node 1 runs the verifying workload at 3x its RAM (2 passes): remote puts
# per second over the run, remote load latency p50/p99 (the node's last
# 1024 loads), and the median of 20 handshakes of ramster-fuzz as node 9
# (from node 2's VM: its user-space crypto through AF_ALG, plus the
# node's side); beside the puts, the network's TCP ceiling from node 1 to
# node 2 (link_pages_s).  Saved in build/bench/security.txt.
#
# reread: cleancache (issue 12).  A file set of twice the guest's RAM on an
# ext4 data disk (throttled as the swap disk is), created, evicted, then
# read twice, the second time in a shuffled order
# (tests/guest/cases/bench_reread.sh), RUNS interleaved rounds of
#   none        the patched kernel, no backend: every miss reads the disk
#   cleancache  ramster loaded (its local tier keeps clean pages)
#   pair        node 1 of cluster-configs/pair.conf (as much RAM as the
#               others' guest unless BENCH_MEM_MIB changed it), booted with
#               ramster-cluster up --data-disk, clean_remote=1 and a local
#               clean pool of BENCH_PAIR_CC_PERCENT% of RAM (default 5,
#               cleancache_percent): clean pages go to node 2 and come back
# Medians of each pass's time, the ratio of the second pass to "none", the
# second pass's cleancache hits and sectors read (and, for pair, how many
# of the hits came from node 2).  Saved in build/bench/reread.txt.
#
# BENCH_CONFIGS="disk nbd ...": the swap part's configurations (default
# all of them).
# BENCH_WORKLOADS="verify usemem sort" (the default; BENCH_QUICK: verify): the
# swap part's workloads, each its own table and plots (results.txt,
# runtime.png, latency.png for verify; results-usemem.txt and so on):
#   verify    the verifying workload: fill, then a sequential and a random
#             pass, each checking every page whole and rewriting a quarter
#   usemem    workload -U, as linux-mm measures swap (vm-scalability's
#             usemem): two processes (the guests' CPUs), each over half the
#             area, write it in order, then make twice its pages accesses
#             at uniformly random pages (a counter in the first word, read
#             and incremented), then check every page whole: concurrent
#             faults, which the single-threaded verify never makes
#   sort      a real program: GNU sort (Debian's coreutils, LC_ALL=C, its
#             buffer large enough to sort in memory, no temporary files)
#             over text lines of the area's size that workload -G makes,
#             its output checked by workload -V (order, and the same lines:
#             a page lost or stale in sort's memory shows as bad)
# BENCH_QUICK=1: one round (BENCH_RUNS still wins), swap at 50% in RAM only
# (BENCH_FRACTIONS still wins), the verify workload only (BENCH_WORKLOADS
# still wins): every part once, for a smoke run.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/qemu-lib.sh
. "$TOP/scripts/qemu-lib.sh"

PATCHED=$TOP/build/kernel/bzImage
VANILLA=$TOP/build/kernel-vanilla/bzImage
INITRD=$TOP/build/initramfs.cpio.gz
OUT=$TOP/build/bench
if [ "${BENCH_QUICK:-}" = 1 ]; then
	RUNS=${BENCH_RUNS:-1}
	FRACTIONS=${BENCH_FRACTIONS:-50}
else
	RUNS=${BENCH_RUNS:-3}
	FRACTIONS=${BENCH_FRACTIONS:-75 50 33}
fi
MEM=${BENCH_MEM_MIB:-128}
MIX=${BENCH_MIX:-realistic}
COMPRESS_SECONDS=${BENCH_COMPRESS_SECONDS:-5}
read -r -a CONFIGS <<< "${BENCH_CONFIGS:-disk zswap zram ramster vanilla nbd pair pair-nora pair-auth pair-insecure peers3 memserver}"
PEERS3_CONF=$TOP/cluster-configs/peers-3.conf
MEMSERVER_CONF=$TOP/cluster-configs/memserver.conf
# The TCP port of the echo server (tcp-echo -l) in the first lender.
ECHO_PORT=7901

# cluster_layout CONFIG: "CONF WORKER NODE..." for a configuration booted as
# a cluster (cluster_run): its cluster.conf, the node running the workload
# and the nodes booted; nothing for a single-guest configuration.
cluster_layout() {
	case "$1" in
	nbd|pair|pair-nora|pair-auth|pair-insecure) echo "$PAIR_CONF 1 1 2" ;;
	peers3) echo "$PEERS3_CONF 1 1 2 3" ;;
	memserver) echo "$MEMSERVER_CONF 2 1 2" ;;
	esac
}
is_cluster_config() { [ -n "$(cluster_layout "$1")" ]; }
any_cluster_config() {
	local config
	for config in "${CONFIGS[@]}"; do
		is_cluster_config "$config" && return 0
	done
	return 1
}
NBD_INITRD=$TOP/build/initramfs-nbd.cpio.gz
# The sort workload's GNU sort (scripts/build-tool-initramfs.sh), and the
# initramfs of a single guest with it, of nbd's nodes with it.
SORT_INITRD=$TOP/build/initramfs-sort.cpio.gz
SORT_GUEST_INITRD=$TOP/build/bench/initramfs-with-sort.cpio.gz
SORT_NBD_INITRD=$TOP/build/bench/initramfs-nbd-sort.cpio.gz
# The TCG slowdown factor and the mix's compression ratio (tcg_factor).
TCG_FACTOR=-
# Runs of the swap part in all and so far (bench_swap), for the progress
# lines.
RUNS_TOTAL=0
RUNS_DONE=0
# The swap part's workloads (BENCH_WORKLOADS): verify, the verifying
# workload (workload.c's passes); usemem, workload -U (usemem-style: two
# processes, random accesses); sort, GNU sort over workload -G's lines.  WORKLOAD is the one being run or
# reported, and workload_files sets the names of its files.
if [ "${BENCH_QUICK:-}" = 1 ]; then
	read -r -a WORKLOADS <<< "${BENCH_WORKLOADS:-verify}"
else
	read -r -a WORKLOADS <<< "${BENCH_WORKLOADS:-verify usemem sort}"
fi
WORKLOAD=${WORKLOADS[0]}

# workload_files: SUFFIX ("" for verify, "-usemem" ...) and RAW, the
# raw runs of WORKLOAD; its table, plots and logs carry the same suffix.
workload_files() {
	case "$WORKLOAD" in
	verify) SUFFIX='' ;;
	usemem) SUFFIX=-usemem ;;
	sort) SUFFIX=-sort ;;
	*) echo "bench: unknown workload '$WORKLOAD' in BENCH_WORKLOADS" >&2; exit 2 ;;
	esac
	RAW=$OUT/raw$SUFFIX.txt
}
if [ ${#WORKLOADS[@]} -eq 0 ]; then
	echo "bench: BENCH_WORKLOADS names no workload" >&2
	exit 2
fi
for WORKLOAD in "${WORKLOADS[@]}"; do
	workload_files
done
WORKLOAD=${WORKLOADS[0]}
workload_files
MIX_RATIO=-
MIX_TEXT_RATIO=-
CLUSTER=$TOP/ramster-cluster
SEC_CONF=$TOP/tests/configs/pair-fuzz.conf
SEC_MODES=(insecure authenticated encrypted)
# Set while a cluster of the benchmark's is up: cleanup takes it down.
CLUSTER_UP=
PAIR_CONF=$TOP/cluster-configs/pair.conf
PAIR_CC_PERCENT=${BENCH_PAIR_CC_PERCENT:-5}
DISK_MBPS=${BENCH_DISK_MBPS:-50}
DISK_IOPS=${BENCH_DISK_IOPS:-5000}
DILATE=${BENCH_DILATE:-0}
NET_RTT_US=${BENCH_NET_RTT_US:-50}
NET_GBITS=${BENCH_NET_GBITS:-10}
# Debian's tc, for the dilated network (build-tool-initramfs.sh).
TC_INITRD=$TOP/build/initramfs-tc.cpio.gz
START=$(date +%s)

# The throttle in effect (bytes/s, IOPS, and what the header says of it):
# the configured one, which dilate() divides by the TCG factor for the
# swap part when BENCH_DILATE=1 and undilate() sets back.
# The netem delay each way (us) and rate (kbit/s) in effect: none unless
# dilated.
undilate() {
	DISK_BPS=$((DISK_MBPS * 1000000))
	THROTTLE_IOPS=$DISK_IOPS
	DILATED=
	NET_DELAY_US=
	NET_RATE_KBIT=
}
undilate

disk_limits() {
	[ "$DISK_MBPS" != 0 ] || return 0
	echo ",throttling.bps-total=$DISK_BPS,throttling.iops-total=$THROTTLE_IOPS"
}

disk_description() {
	if [ "$DISK_MBPS" = 0 ]; then
		echo "an unthrottled host file (the host's page cache)"
	else
		echo "a host file throttled to $(awk -v b="$DISK_BPS" 'BEGIN { printf "%.1f", b / 1e6 }') MB/s and $THROTTLE_IOPS IOPS$DILATED"
	fi
}

network_description() {
	if [ -z "$NET_DELAY_US" ]; then
		echo "network: the bridge at native speed (raw)"
	else
		echo "network dilated: netem on each node's NIC, +${NET_DELAY_US} us each way and ${NET_RATE_KBIT} kbit/s"
		echo "(a ${NET_GBITS} Gbit/s link of ${NET_RTT_US} us round trip, over the factor)"
	fi
}

# netem_on NODE DROP: the dilated network's qdisc on NODE's NIC, then the
# files DROP names (tc's that no other member of the run needs) gone, so
# that the node keeps the RAM of an undilated run; fails if the qdisc is
# not in place.
netem_on() {
	local out
	out=$(cx "$1" "/usr/sbin/tc qdisc replace dev eth0 root netem delay ${NET_DELAY_US}us rate ${NET_RATE_KBIT}kbit limit 100000 && /usr/sbin/tc qdisc show dev eth0; rm -f $2")
	echo "node $1: $out"
	grep -q "qdisc netem" <<< "$out"
}

# bench_line LOG: waits for the guest just started, then prints the BENCH:
# line of its console LOG; fails if there is none, or not with rc=0.
bench_line() {
	local line
	qemu_wait "$QEMU_LAST_PID" 1800 || true
	line=$(tr -d '\r' < "$1" | grep -m1 '^BENCH: ' || true)
	[ -n "$line" ] && grep -q ' rc=0 ' <<< "$line" && echo "$line"
}

# field NAME LINE: the value of NAME=VALUE in a BENCH: line.
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<< "$2"; }

# one_run CONFIG FRACTION ROUND: one boot, one line of build/bench/raw.txt:
# CONFIG FRACTION ROUND TOTAL_MS (or FAIL).
one_run() {
	local config=$1 frac=$2 round=$3 kernel=$PATCHED mode=$1 extra=
	local log=$OUT/logs/$config-$frac-$round$SUFFIX.log line initrd
	if is_cluster_config "$config"; then
		cluster_run "$config" "$frac" "$round" "$log"
		run_recorded "$config" "$frac" "$round" "$log" "$CLUSTER_LINE" "$CLUSTER_FIGS"
		return
	fi
	case "$config" in
	zswap) extra="zswap.enabled=1 zswap.compressor=lz4 zswap.zpool=zsmalloc" ;;
	vanilla) kernel=$VANILLA mode=disk ;;
	esac
	make_swap_disk "$OUT/swap.img" 1G
	initrd=$INITRD
	[ "$WORKLOAD" != sort ] || initrd=$SORT_GUEST_INITRD
	qemu_start "$log" "$MEM" 2 "$kernel" "$initrd" \
		"ramster_test=bench bench_mode=$mode bench_frac=$frac bench_mix=$MIX bench_workload=$WORKLOAD $extra" \
		-nic none \
		-drive "$(qemu_swap_drive "$OUT/swap.img" "$(disk_limits)")"
	line=$(bench_line "$log") || line=
	run_recorded "$config" "$frac" "$round" "$log" "$line"
}

# raw.txt, one line per run (- where a figure does not apply):
#   CONFIG FRACTION ROUND TOTAL_MS CPU_MS WIRE_B_PER_PAGE LOAD_P50_US
#   LOAD_P99_US ECHO_P50_US ECHO_P99_US GET_P50_US PING_US
# or CONFIG FRACTION ROUND FAIL.  CPU_MS: busy CPU time of every guest of
# the run over the workload; WIRE_B_PER_PAGE: bytes on the workload node's
# NIC over the whole workload (fill and both verify passes) per page of
# its area.
RAW_COLUMNS="config frac round total_ms cpu_ms wire_bpp load_p50 load_p99 echo_p50 echo_p99 get_p50 ping_us"

# column NAME: the column of NAME in raw.txt.
column() {
	local i=1 c
	for c in $RAW_COLUMNS; do
		[ "$c" = "$1" ] && { echo "$i"; return; }
		i=$((i + 1))
	done
	return 1
}

# run_recorded CONFIG FRACTION ROUND LOG LINE [FIGS]: a run's line of
# raw.txt from its BENCH: LINE (empty: it failed) and, for a cluster
# configuration, FIGS (cluster_run's CLUSTER_FIGS: "LENDERS_CPU_MS
# LOAD_P50 LOAD_P99 ECHO_P50 ECHO_P99 GET_P50 PING_US"), and its progress
# line.
run_recorded() {
	local config=$1 frac=$2 round=$3 log=$4 line=$5 figs=${6:-} lenders=0 rest='- - - - - -' bpp=-
	if [ -z "$line" ]; then
		RUNS_DONE=$((RUNS_DONE + 1))
		echo "bench: $WORKLOAD $config $frac% round $round FAILED, see $log" >&2
		echo "$config $frac $round FAIL" >> "$RAW"
		return
	fi
	if [ -n "$figs" ]; then
		read -r lenders rest <<< "$figs"
		bpp=$(awk -v b="$(field net_bytes "$line")" -v p="$(field pages "$line")" \
			'BEGIN { if (b == "" || !p) print "-"; else print int(b / p) }')
	fi
	local total cpu
	RUNS_DONE=$((RUNS_DONE + 1))
	total=$(field total_ms "$line") cpu=$(field cpu_ms "$line")
	if [[ "$cpu$lenders" =~ ^[0-9]+$ ]]; then
		cpu=$((cpu + lenders))
	else
		cpu=-
	fi
	echo "$config $frac $round $total $cpu $bpp $rest" >> "$RAW"
	printf '[bench %4ss] run %s/%s: %s %-13s %s%% in RAM (%s MiB) round %s: %s ms, CPU %s ms, %s B/page on the wire\n' \
		"$(($(date +%s) - START))" "$RUNS_DONE" "$RUNS_TOTAL" "$WORKLOAD" \
		"$config" "$frac" "$(field mib "$line")" \
		"$round" "$total" "$cpu" "$bpp"
}

# nbd_setup LOG: the running pair made the "nbd" configuration (see the
# top): ramster unloaded on both nodes, nbd-server on node 2, node 1
# swapping on /dev/nbd0 first and its disk after it.
nbd_setup() {
	local log=$1 pages out
	pages=$("$TOP/build/host/ramster-conf" get "$PAIR_CONF" 2 capacity)
	"$CLUSTER" unload 1 >> "$log" 2>&1 && "$CLUSTER" unload 2 >> "$log" 2>&1 || return 1
	# Node 1 got nbd-server's files too (ramfs: about 11 MiB of its RAM):
	# gone, so that it has what the other configurations' guests have.
	if [ "$WORKLOAD" = sort ]; then
		# sort keeps the libraries of its own cpio member, as in the
		# other configurations; nbd-server's others go.
		local keep
		keep=$(zcat "$SORT_INITRD" | cpio -t --quiet 2>/dev/null | grep '^lib' | tr '\n' ' ')
		# shellcheck disable=SC2016  # $f: expanded in the guest
		cx 1 'rm -rf /usr/bin/nbd-server /etc/nbd-server; for f in /lib/x86_64-linux-gnu/* /lib64/*; do case " '"$keep"' " in *" ${f#/} "*) ;; *) rm -rf "$f" ;; esac; done' >> "$log"
	else
		cx 1 "rm -rf /usr/bin/nbd-server /lib/x86_64-linux-gnu /lib64 /etc/nbd-server" >> "$log"
	fi
	cx 2 "truncate -s $((pages * 4096)) /tmp/nbd.img && /usr/bin/nbd-server -C /etc/nbd-server/config -d > /tmp/nbd-server.log 2>&1 &" >> "$log"
	# One line (the agent runs one line per command); expanded in the
	# guest.  The server may still be starting: a few tries.
	# shellcheck disable=SC2016
	out=$(cx 1 'd=$(awk "NR == 2 { print \$1 }" /proc/swaps); swapoff "$d" || exit 1; n=0; until /usr/bin/nbd-attach 10.213.0.2 10809 swap /dev/nbd0 2>/tmp/nbd-attach.err; do n=$((n + 1)); [ $n -lt 20 ] || { cat /tmp/nbd-attach.err; exit 1; }; sleep 1; done; mkswap /dev/nbd0 >/dev/null && swapon /dev/nbd0 && swapon "$d" && cat /proc/swaps')
	echo "$out" >> "$log"
	grep -q '^/dev/nbd0 ' <<< "$out"
}

# cluster_down: the pair of a cluster configuration, killed.
cluster_down() {
	"$CLUSTER" down --now > /dev/null 2>&1 || true
	CLUSTER_UP=
}

# node_busy_ms NODE: the busy CPU time of a node of the running cluster
# since its boot (the guests' busy_ms, tests/guest/cases/lib.sh, as the
# workload's node counts its own), or nothing if the node did not answer.
node_busy_ms() { cx "$1" ". /cases/lib.sh; busy_ms"; }

# numbers: the lines of stdin that are whole numbers, sorted.  awk, not
# grep: no match is not a failure under pipefail.
numbers() { awk '/^[0-9]+$/' | sort -n; }

# percentiles: "P50 P99" (nearest rank) of the numbers on stdin, or "- -".
percentiles() {
	numbers | awk '{ a[NR] = $1 } END {
		if (!NR) { print "- -"; exit }
		r = int(NR * 0.99); if (r < NR * 0.99) r++
		print a[int((NR + 1) / 2)], a[r] }'
}

# network_rtt CONF WORKER LENDER SAMPLES: the network's own round trips
# from WORKER to LENDER before the workload: a 4 KiB TCP echo (its
# samples in SAMPLES), a round trip shaped like a GET (64 bytes out, 4 KiB
# back) and ping; prints "ECHO_P50 ECHO_P99 GET_P50 PING_US" (- if none).
network_rtt() {
	local conf=$1 worker=$2 lender=$3 samples=$4 ip ping get
	ip=$("$TOP/build/host/ramster-conf" get "$conf" "$lender" ip_address)
	# The client retries its connection while the servers start.
	cx "$lender" "/bin/tcp-echo -l $ECHO_PORT > /dev/null 2>&1 & /bin/tcp-echo -l $((ECHO_PORT + 1)) -r 64 > /dev/null 2>&1 &" > /dev/null
	cx "$worker" "/bin/tcp-echo -c $ip -p $ECHO_PORT -n 200 -v" > "$samples"
	get=$(cx "$worker" "/bin/tcp-echo -c $ip -p $((ECHO_PORT + 1)) -r 64 -n 200" |
		sed -n 's/.* p50_us=\([0-9]*\) .*/\1/p')
	cx "$lender" "killall tcp-echo" > /dev/null
	ping=$(cx "$worker" "ping -c 20 -i 0.2 -q $ip" |
		sed -n 's|.*min/avg/max = [0-9.]*/\([0-9.]*\)/.*|\1|p' |
		awk 'NF { printf "%d", $1 * 1000 }')
	echo "$(percentiles < "$samples") ${get:--} ${ping:--}"
}

# cluster_run CONFIG FRACTION ROUND LOG: one run of a cluster
# configuration (cluster_layout) in the workload's node of a fresh
# cluster (its output in LOG); its BENCH: line in CLUSTER_LINE, empty if
# it failed, and the run's other figures in CLUSTER_FIGS (run_recorded).
# Not in a subshell: cleanup must see CLUSTER_UP.
cluster_run() {
	local config=$1 frac=$2 round=$3 log=$4 extra='' mode=pair conf worker nodes
	local n lenders=() busy0=() busy=0 rtt load=('-' '-') lat=$OUT/latency/$WORKLOAD-$config-$frac-$round b
	local flags=() params=''
	CLUSTER_LINE=''
	CLUSTER_FIGS=''
	read -r conf worker nodes <<< "$(cluster_layout "$config")"
	for n in $nodes; do
		[ "$n" = "$worker" ] || lenders+=("$n")
	done
	export RAMSTER_CLUSTER_DIR=$OUT/cluster/$config-$frac-$round$SUFFIX
	case "$config/$WORKLOAD" in
	nbd/sort) extra=$SORT_NBD_INITRD ;;
	nbd/*) extra=$NBD_INITRD ;;
	*/sort) extra=$SORT_INITRD ;;
	esac
	# The guest case's mode: every cluster configuration but nbd runs
	# ramster as the nodes loaded it.
	case "$config" in
	nbd) mode=nbd ;;
	pair-auth) params=encrypt=0 ;;
	pair-insecure) flags=(--insecure) ;;
	esac
	# The dilated network's tc rides with the run's other member, if any
	# (one file per combination).
	local members=$extra
	if [ -n "$NET_DELAY_US" ]; then
		members=$OUT/cluster/with-tc-$(basename "${extra:-none}")
		mkdir -p "$OUT/cluster"
		[ -f "$members" ] || cat ${extra:+"$extra"} "$TC_INITRD" > "$members"
	fi
	CLUSTER_UP=yes
	# shellcheck disable=SC2086  # nodes: numbers
	if ! RAMSTER_EXTRA_INITRD=$members RAMSTER_SWAP_DISK_OPTIONS=$(disk_limits) \
		RAMSTER_PARAMS=$params "$CLUSTER" up "${flags[@]}" "$conf" $nodes > "$log" 2>&1; then
		cluster_down
		return
	fi
	if [ -n "$NET_DELAY_US" ]; then
		# Listed member by member: cpio -t stops at the end of the first
		# archive of a concatenation.
		local keep='' drop m parts=()
		case "$extra" in
		"") ;;
		"$SORT_NBD_INITRD") parts=("$NBD_INITRD" "$SORT_INITRD") ;;
		*) parts=("$extra") ;;
		esac
		for m in "${parts[@]}"; do
			keep+=$(zcat "$m" | cpio -t --quiet 2>/dev/null || true)$'\n'
		done
		drop=$(zcat "$TC_INITRD" | cpio -t --quiet 2>/dev/null |
			grep -E '(\.so(\.[0-9]+)*|^usr/sbin/tc)$' | grep -vxF -f <(printf '%s\n' "$keep") |
			sed 's|^|/|' | tr '\n' ' ' || true)
		for n in $nodes; do
			if ! netem_on "$n" "$drop" >> "$log"; then
				echo "bench: $config: no netem on node $n, see $log" >&2
				cluster_down
				return
			fi
		done
	fi
	if [ "$config" = nbd ] && ! nbd_setup "$log"; then
		echo "bench: nbd: setup failed, see $log" >&2
		cluster_down
		return
	fi
	if [ "$config" = pair-nora ]; then
		cx "$worker" "echo 0 > /sys/module/ramster/parameters/remote_readahead" >> "$log"
	fi
	rtt=$(network_rtt "$conf" "$worker" "${lenders[0]}" "$lat.echo")
	for n in "${lenders[@]}"; do
		busy0+=("$(node_busy_ms "$n")")
	done
	RAMSTER_EXEC_TIMEOUT=1800 cx "$worker" "export bench_mode=$mode bench_frac=$frac bench_mix=$MIX bench_workload=$WORKLOAD; . /cases/lib.sh; . /cases/bench.sh" >> "$log"
	# A lender that did not answer (before or after) makes the sum "-".
	for n in "${!lenders[@]}"; do
		b=$(node_busy_ms "${lenders[$n]}")
		if [[ "$busy" =~ ^[0-9]+$ && "$b${busy0[$n]}" =~ ^[0-9]+$ ]] && [ "$b" -ge "${busy0[$n]}" ]; then
			busy=$((busy + b - busy0[n]))
		else
			busy=-
		fi
	done
	if [ "$config" = nbd ]; then
		cx "${lenders[0]}" "cat /tmp/nbd-server.log; ls -l /tmp/nbd.img" >> "$log"
	else
		cx "$worker" cat /sys/kernel/debug/ramster/remote_load_latency_us > "$lat.load"
		read -r -a load <<< "$(percentiles < "$lat.load")"
		"$CLUSTER" stat >> "$log" 2>&1 || true
	fi
	echo "network: 4 KiB TCP echo p50/p99, GET-shaped p50, ping (us): $rtt; lenders' CPU $busy ms" >> "$log"
	cluster_down
	CLUSTER_LINE=$(grep -m1 '^BENCH: .* rc=0 ' "$log" || true)
	# A failed run's samples stay out of the latency plot, as its figures
	# stay out of the tables.
	[ -n "$CLUSTER_LINE" ] || rm -f "$lat.echo" "$lat.load"
	CLUSTER_FIGS="$busy ${load[0]} ${load[1]} $rtt"
}

# tcg_factor: the workload's compression loop on the host and in a guest
# (the same source, the same mix); sets TCG_FACTOR (host pages/s over
# the guest's), MIX_RATIO and MIX_TEXT_RATIO (the host's, the same pages).
tcg_factor() {
	local host=$OUT/workload-host log=$OUT/logs/compress.log mixarg=() hl gl hp gp
	[ "$MIX" != realistic ] || mixarg=(-X)
	gcc -O2 -Wall -Wextra -Werror -o "$host" "$TOP/tests/guest/workload.c"
	hl=$("$host" -Z "$COMPRESS_SECONDS" "${mixarg[@]}" | tail -n 1)
	qemu_start "$log" "$MEM" 2 "$PATCHED" "$INITRD" \
		"ramster_test=bench bench_mode=compress bench_mix=$MIX bench_seconds=$COMPRESS_SECONDS" \
		-nic none
	if ! gl=$(bench_line "$log"); then
		echo "bench: compression loop in the guest FAILED, see $log" >&2
		return
	fi
	hp=$(field pages_per_s " $hl") gp=$(field pages_per_s "$gl")
	MIX_RATIO=$(field ratio " $hl") MIX_TEXT_RATIO=$(field text_ratio " $hl")
	[ -n "$hp" ] && [ -n "$gp" ] && [ "$gp" != 0 ] || return 0
	TCG_FACTOR=$(ratio "$hp" "$gp")
	printf '[bench %4ss] compression loop: host %s pages/s, guest %s pages/s: factor %s\n' \
		"$(($(date +%s) - START))" "$hp" "$gp" "$TCG_FACTOR"
}

# dilate: with BENCH_DILATE=1 and a factor measured, the disk throttle
# (bytes/s and IOPS) divided by the factor, so that the disk looks to the
# emulated CPU as it would to a native one.  undilate (above) puts it
# back.
dilate() {
	[ "$DILATE" = 1 ] || return 0
	if [ "$TCG_FACTOR" = - ]; then
		echo "bench: no TCG slowdown factor measured: not dilated" >&2
		return 0
	fi
	if [ "$DISK_MBPS" != 0 ]; then
		DISK_BPS=$(awk -v b="$((DISK_MBPS * 1000000))" -v f="$TCG_FACTOR" 'BEGIN { print int(b / f) }')
		THROTTLE_IOPS=$(awk -v i="$DISK_IOPS" -v f="$TCG_FACTOR" 'BEGIN { v = int(i / f); print v < 1 ? 1 : v }')
		DILATED=" (dilated: $DISK_MBPS MB/s and $DISK_IOPS IOPS over the factor)"
		printf '[bench %4ss] dilated: the disk throttled to %s bytes/s and %s IOPS\n' \
			"$(($(date +%s) - START))" "$DISK_BPS" "$THROTTLE_IOPS"
	fi
	if [ -f "$TC_INITRD" ] && any_cluster_config; then
		NET_DELAY_US=$(awk -v r="$NET_RTT_US" -v f="$TCG_FACTOR" 'BEGIN { v = int(r * (f - 1) / 2); print v < 0 ? 0 : v }')
		NET_RATE_KBIT=$(awk -v g="$NET_GBITS" -v f="$TCG_FACTOR" 'BEGIN { v = int(g * 1e6 / f); print v < 1 ? 1 : v }')
		printf '[bench %4ss] dilated: netem on every node, +%s us each way, %s kbit/s\n' \
			"$(($(date +%s) - START))" "$NET_DELAY_US" "$NET_RATE_KBIT"
	fi
}

mix_description() {
	if [ "$MIX" = realistic ]; then
		echo "the realistic mix (workload -X): 10% zero pages, 12% random, 78% text-like;"
		echo "lz4 ratio (this file's LZ4-style compressor) ${MIX_RATIO}x over the mix, ${MIX_TEXT_RATIO}x on the text-like pages"
	else
		echo "the workload's default mix: 30% same-filled, 30% text-like, 40% random;"
		echo "lz4 ratio (this file's LZ4-style compressor) ${MIX_RATIO}x over the mix"
	fi
}

# middle: the median of the numbers on stdin, one per line ("-" if none;
# the integer mean of the two middle ones for an even count).
middle() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# median CONFIG FRACTION [COLUMN]: median of COLUMN (a name of
# RAW_COLUMNS, total_ms unless given) over the successful runs, or "-".
median() {
	local col
	col=$(column "${3:-total_ms}")
	awk -v c="$1" -v m="$2" -v f="$col" '$1 == c && $2 == m && $4 != "FAIL" && $f != "" && $f != "-" { print $f }' \
		"$RAW" | middle
}

runs_of() {
	awk -v c="$1" -v m="$2" '$1 == c && $2 == m { printf "%s%s", sep, $4; sep = "," }' \
		"$RAW"
}

ratio() {
	if [ "$1" = - ] || [ "$2" = - ]; then echo -; return; fi
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

table() {
	local frac config med disk nbd nbd_wire wire
	echo "RAMster benchmark: ${MEM} MiB guest, $QEMU_ACCEL, swap on $(disk_description),"
	if [ "$WORKLOAD" = sort ]; then
		echo "workload: GNU sort (LC_ALL=C, in memory) of text lines (workload -G) of 70% of"
		echo "RAM * 100 / in RAM%, about that whole area in memory with sort's line table,"
		echo "its output checked (workload -V); B/page: per page of sort's input"
	elif [ "$WORKLOAD" = usemem ]; then
		echo "workload: usemem-style (workload -U -P 2 -p 2, tests/guest/workload.c): two processes"
		echo "of half the area each write it, make twice its pages random accesses, check"
		echo "every page; the area RAM * 100 / in RAM%,"
	else
		echo "workload: fill then 2 verify passes (tests/guest/workload.c) of RAM * 100 / in RAM%,"
	fi
	if [ "$WORKLOAD" = sort ]; then
		echo "pages: text lines (a 16-hex-digit key and 5 to 24 words of 16), not the mix"
	elif [ "$WORKLOAD" = usemem ]; then
		echo "pages: $(mix_description)"
		echo "(but no page same-filled: the counter in each page's first word)"
	else
		echo "pages: $(mix_description)"
	fi
	echo "TCG slowdown factor: $TCG_FACTOR (the compression loop's pages/s, host over guest)"
	network_description
	echo "zram: /dev/zram0, lz4, disksize RAM/2, a higher priority than the disk"
	echo "(swapped on first), which takes what does not fit."
	echo "median of $RUNS interleaved runs (ms, lower is better); ratios to disk swap"
	echo "on the patched kernel.  'vanilla' is unpatched 6.1 on disk: its ratio is"
	echo "the cost of the patches when no backend is loaded.  nbd and pair: node 1"
	echo "of pair.conf, node 2 lending RAM: swap over NBD to it (an export of its"
	echo "capacity in pages, then the disk), and ramster (its local tier, then node 2,"
	echo "then the disk); they run in a cluster node (a NIC, the node's agent) where"
	echo "the others run in a single guest; 'x nbd': ratio to nbd."
	echo
	echo "cpu_ms: busy CPU time of every guest of the run over the workload (the"
	echo "lenders' too; the host's own work for the disk and the bridge is in no"
	echo "column); B/page: bytes on the workload node's NIC over the whole workload"
	echo "(fill and both passes) per page of its area; B x nbd: ratio to nbd's."
	echo
	printf '%-7s %-13s %10s %8s %8s %9s %7s %7s   %s\n' "in RAM" config median_ms "x disk" "x nbd" \
		cpu_ms B/page "B x nbd" runs
	for frac in $FRACTIONS; do
		disk=$(median disk "$frac")
		nbd=$(median nbd "$frac")
		nbd_wire=$(median nbd "$frac" wire_bpp)
		for config in "${CONFIGS[@]}"; do
			med=$(median "$config" "$frac")
			wire=$(median "$config" "$frac" wire_bpp)
			printf '%-7s %-13s %10s %8s %8s %9s %7s %7s   %s\n' "$frac%" "$config" \
				"$med" "$(ratio "$med" "$disk")" "$(ratio "$med" "$nbd")" \
				"$(median "$config" "$frac" cpu_ms)" "$wire" \
				"$(ratio "$wire" "$nbd_wire")" "$(runs_of "$config" "$frac")"
		done
	done
	network_table
}

# network_table: the cluster configurations' remote load latency beside
# the network's own round trip (medians over the runs of each figure).
network_table() {
	local frac config p50 p99 e50 e99
	has_cluster_config || return 0
	echo
	echo "Remote loads (ramster's last 1024 per run, remote_load_latency_us, timed in"
	echo "the kernel under the workload) against the network between the same guests,"
	echo "idle, before the workload (tcp-echo, user space, 200 round trips each): a"
	echo "4 KiB echo, a GET-shaped round trip (64 bytes out, 4 KiB back), and ping"
	echo "(20, 0.2 s apart, average); medians over the runs (us).  x e50: ratio to"
	echo "the 4 KiB echo's p50 (the targets: p50 within 2x, p99 within 5x)."
	echo
	printf '%-7s %-13s %9s %9s %9s %9s %8s %8s %9s %9s\n' "in RAM" config load_p50 load_p99 \
		echo_p50 echo_p99 get_p50 ping "p50 x e50" "p99 x e50"
	for frac in $FRACTIONS; do
		for config in "${CONFIGS[@]}"; do
			is_cluster_config "$config" || continue
			p50=$(median "$config" "$frac" load_p50)
			p99=$(median "$config" "$frac" load_p99)
			e50=$(median "$config" "$frac" echo_p50)
			e99=$(median "$config" "$frac" echo_p99)
			printf '%-7s %-13s %9s %9s %9s %9s %8s %8s %9s %9s\n' "$frac%" "$config" \
				"$p50" "$p99" "$e50" "$e99" "$(median "$config" "$frac" get_p50)" \
				"$(median "$config" "$frac" ping_us)" \
				"$(ratio "$p50" "$e50")" "$(ratio "$p99" "$e50")"
		done
	done
}

has_cluster_config() {
	local c
	for c in "${CONFIGS[@]}"; do
		is_cluster_config "$c" && return 0
	done
	return 1
}

# plot: build/bench/runtime.dat (a row per fraction, a column per
# configuration) and, with gnuplot, build/bench/runtime.png.
plot() {
	local frac config dat=$OUT/runtime$SUFFIX.dat png=$OUT/runtime$SUFFIX.png i=2 lines=()
	{
		echo "# in_ram_percent ${CONFIGS[*]} (median ms, - for none)"
		for frac in $FRACTIONS; do
			printf '%s' "$frac"
			for config in "${CONFIGS[@]}"; do
				printf ' %s' "$(median "$config" "$frac")"
			done
			echo
		done
	} > "$dat"
	if ! command -v gnuplot > /dev/null; then
		echo "bench: no gnuplot (make deps): $dat only" >&2
		return 0
	fi
	for config in "${CONFIGS[@]}"; do
		lines+=("'$dat' using 1:$i with linespoints title '$config'")
		i=$((i + 1))
	done
	gnuplot <<- EOF
		set terminal pngcairo size 800,500
		set output '$png'
		set title 'RAMster benchmark: ${MEM} MiB guest, $QEMU_ACCEL, $WORKLOAD workload, $MIX mix'
		set xlabel 'working set in RAM (%)'
		set ylabel 'runtime, median (ms)'
		set datafile missing '-'
		set key top left
		set grid
		set xrange [100:0]
		set yrange [0:*]
		plot $(IFS=,; echo "${lines[*]}")
	EOF
	echo "bench: plot $png (data: $dat)"
	latency_plot
}

# cdf: the numbers on stdin as "VALUE FRACTION_AT_OR_BELOW" lines.
cdf() {
	numbers | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }'
}

# latency_plot: build/bench/latency.png, the CDF of the remote loads of
# each ramster cluster configuration (every run's samples pooled) and of
# the 4 KiB TCP echo (every cluster run's), with gnuplot.
latency_plot() {
	local config dat png=$OUT/latency$SUFFIX.png lines=()
	for config in "${CONFIGS[@]}"; do
		if ! is_cluster_config "$config" || [ "$config" = nbd ]; then
			continue
		fi
		dat=$OUT/latency$SUFFIX-$config.dat
		{ cat "$OUT/latency/$WORKLOAD-$config-"[0-9]*.load 2>/dev/null || true; } | cdf > "$dat"
		[ -s "$dat" ] && lines+=("'$dat' using 1:2 with lines title '$config remote load'")
	done
	dat=$OUT/latency$SUFFIX-echo.dat
	{ cat "$OUT/latency/$WORKLOAD"-*.echo 2>/dev/null || true; } | cdf > "$dat"
	[ -s "$dat" ] && lines+=("'$dat' using 1:2 with lines dashtype 2 title '4 KiB TCP echo'")
	[ ${#lines[@]} -gt 0 ] && command -v gnuplot > /dev/null || return 0
	gnuplot <<- EOF
		set terminal pngcairo size 800,500
		set output '$png'
		set title 'Remote load latency vs the network: ${MEM} MiB guests, $QEMU_ACCEL, $WORKLOAD workload'
		set xlabel 'latency (us, log scale)'
		set ylabel 'fraction at or below'
		set logscale x
		set key bottom right
		set grid
		set yrange [0:1]
		plot $(IFS=,; echo "${lines[*]}")
	EOF
	echo "bench: plot $png (data: $OUT/latency$SUFFIX-<config>.dat)"
}

#########################################
# security: insecure vs authenticated vs encrypted links
#########################################
cleanup() {
	qemu_cleanup
	if [ -n "$CLUSTER_UP" ]; then
		"$CLUSTER" down --now > /dev/null 2>&1 || true
		CLUSTER_UP=
	fi
}

# cx NODE CMD: a command in a node of the running cluster.
cx() { "$CLUSTER" exec "$@" 2>/dev/null | tr -d '\r' || true; }

links_live() {
	[ "$(cx 1 cat /sys/kernel/debug/ramster/peers/2/state)" = live ] &&
		[ "$(cx 2 cat /sys/kernel/debug/ramster/peers/1/state)" = live ]
}

# link_pages_s CONF WORKER LENDER: the network's TCP ceiling from WORKER
# to LENDER in 4 KiB pages per second (16 MiB streamed over one plain TCP
# connection, tests/guest/tcp-echo.c -s), or "-".
link_pages_s() {
	local conf=$1 worker=$2 lender=$3 ip pps
	ip=$("$TOP/build/host/ramster-conf" get "$conf" "$lender" ip_address)
	cx "$lender" "/bin/tcp-echo -l $((ECHO_PORT + 2)) -s 16 > /dev/null 2>&1 &" > /dev/null
	pps=$(cx "$worker" "/bin/tcp-echo -c $ip -p $((ECHO_PORT + 2)) -s 16" |
		sed -n 's/.* pages_s=\([0-9]*\).*/\1/p')
	cx "$lender" "killall tcp-echo" > /dev/null
	echo "${pps:--}"
}

# security_run MODE ROUND: one boot, one measurement, one line of
# build/bench/security-raw.txt: MODE ROUND PUTS/S P50_US P99_US HS_MS BAD
# LINK_PAGES/S.
security_run() {
	local mode=$1 round=$2 flags=() params='' mem puts0 puts1 t0 t1 lat hs bad waited=0 link
	export RAMSTER_CLUSTER_DIR=$OUT/security/$mode-$round
	case "$mode" in
	insecure) flags=(--insecure) ;;
	authenticated) params=encrypt=0 ;;
	esac
	CLUSTER_UP=yes
	if ! RAMSTER_PARAMS=$params "$CLUSTER" up "${flags[@]}" "$SEC_CONF" 1 2 \
		> "$RAMSTER_CLUSTER_DIR.up.log" 2>&1; then
		CLUSTER_UP=
		echo "bench: security $mode round $round: up FAILED, see $RAMSTER_CLUSTER_DIR.up.log" >&2
		echo "$mode $round FAIL" >> "$OUT/security-raw.txt"
		return
	fi
	until links_live || [ "$waited" -ge 60 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	mem=$("$TOP/build/host/ramster-conf" get "$SEC_CONF" 1 memory)
	link=$(link_pages_s "$SEC_CONF" 1 2)
	puts0=$(cx 1 cat /sys/kernel/debug/ramster/remote_puts)
	t0=$(date +%s%N)
	RAMSTER_EXEC_TIMEOUT=1800 cx 1 "/bin/workload -m $((mem * 3)) -s $round -p 2 -q > /tmp/load.out 2>&1" >/dev/null
	t1=$(date +%s%N)
	puts1=$(cx 1 cat /sys/kernel/debug/ramster/remote_puts)
	bad=$(cx 1 cat /tmp/load.out | sed -n 's/.*bad=\([0-9]*\).*/\1/p')
	lat=$(cx 1 cat /sys/kernel/debug/ramster/remote_load_latency_us | percentiles)
	cx 2 "ip addr add 10.213.0.9/24 dev eth0" >/dev/null
	hs=$(cx 2 "/bin/ramster-fuzz -a 10.213.0.1 -p 7777 -t 1 -c ramster -n 9 -s 10.213.0.9 $([ "$mode" = insecure ] || echo "-k /sys/firmware/qemu_fw_cfg/by_name/opt/ramster/key/raw") -L 20 handshake" |
		sed -n 's/.* median \([0-9]*\) .*/\1/p')
	"$CLUSTER" down --now > /dev/null 2>&1 || true
	CLUSTER_UP=
	[[ "$puts0$puts1" =~ ^[0-9]+$ ]] || puts0=0 puts1=0
	echo "$mode $round $(( (puts1 - puts0) * 1000000000 / (t1 - t0) )) $lat ${hs:--} ${bad:-?} $link" >> "$OUT/security-raw.txt"
	printf '[bench %4ss] security %-13s round %s: %s\n' "$(($(date +%s) - START))" \
		"$mode" "$round" "$(tail -n 1 "$OUT/security-raw.txt" | cut -d' ' -f3-)"
}

# sec_median MODE FIELD [FILE]: median of a column over the rounds, or "-"
# (FILE: under build/bench/, security-raw.txt unless given).
sec_median() {
	awk -v m="$1" -v f="$2" '$1 == m && $3 != "FAIL" && $f != "-" && $f != "" { print $f }' \
		"$OUT/${3:-security-raw.txt}" | middle
}

security_table() {
	local mode
	echo "RAMster link security: the pair of pair-fuzz.conf (64 MiB guests), $QEMU_ACCEL,"
	echo "node 1 at 3x RAM (2 verify passes), medians of $RUNS interleaved rounds."
	echo "puts/s: remote puts per second over the run; load p50/p99: remote load"
	echo "latency; handshake: ramster-fuzz connect to trusted link (median of 20);"
	echo "link pages/s: the network's TCP ceiling, 16 MiB over one plain TCP connection"
	echo "from node 1 to node 2 before the run (no framing, no crypto: the same for every"
	echo "mode), in 4 KiB pages per second; puts/link: puts/s over that ceiling (puts/s"
	echo "is averaged over the whole run, so this is not how busy the link was)."
	echo
	printf '%-14s %8s %12s %12s %13s %12s %9s %s\n' mode puts/s load_p50_us load_p99_us \
		handshake_ms "link pages/s" puts/link "bad pages"
	local puts link
	for mode in "${SEC_MODES[@]}"; do
		puts=$(sec_median "$mode" 3) link=$(sec_median "$mode" 8)
		printf '%-14s %8s %12s %12s %13s %12s %9s %s\n' "$mode" "$puts" \
			"$(sec_median "$mode" 4)" "$(sec_median "$mode" 5)" \
			"$(sec_median "$mode" 6)" "$link" \
			"$(awk -v p="$puts" -v l="$link" 'BEGIN { if (p ~ /^[0-9.]+$/ && l ~ /^[0-9.]+$/ && l > 0) printf "%.1f%%", 100 * p / l; else print "-" }')" \
			"$(awk -v m="$mode" '$1 == m { printf "%s%s", s, $7; s = "," }' "$OUT/security-raw.txt")"
	done
}

# interleaved PART RUN TABLE MODE...: RUNS rounds of "RUN MODE ROUND" for
# every mode (each round runs every mode once, so that the machine's noise
# spreads over all of them), then TABLE, saved as build/bench/PART.txt
# beside the raw runs RUN appends to PART-raw.txt.
interleaved() {
	local part=$1 run=$2 table=$3 round mode
	shift 3
	: > "$OUT/$part-raw.txt"
	echo "bench: $part: $RUNS rounds x $# modes"
	for round in $(seq 1 "$RUNS"); do
		for mode in "$@"; do
			"$run" "$mode" "$round"
		done
	done
	"$table" | tee "$OUT/$part.txt"
	echo "bench: saved $OUT/$part.txt (raw runs: $OUT/$part-raw.txt)"
}

bench_security() {
	[ "$(id -u)" = 0 ] || { echo "bench: security: network namespaces need root" >&2; return 1; }
	rm -rf "$OUT/security"
	mkdir -p "$OUT/security"
	interleaved security security_run security_table "${SEC_MODES[@]}"
}

#########################################
# reread: a file set read twice, with and without cleancache
#########################################
REREAD_MODES=(none cleancache pair)

# reread_pair LOG: one run in node 1 of a pair cluster (its output in
# LOG); its BENCH: line in PAIR_LINE, or a failure.  Not in a subshell:
# cleanup must see CLUSTER_UP.  The pair is cluster-configs/pair.conf,
# each node with a data disk throttled as the single guest's is,
# clean_remote=1 and a small local clean pool.
reread_pair() {
	local log=$1 mem params
	mem=$("$TOP/build/host/ramster-conf" get "$PAIR_CONF" 1 memory 2>/dev/null || echo "$MEM")
	params=clean_remote=1,cleancache_percent=$PAIR_CC_PERCENT
	PAIR_LINE=
	CLUSTER_UP=yes
	if ! RAMSTER_PARAMS=$params RAMSTER_DATA_DISK_OPTIONS=$(disk_limits) \
		"$CLUSTER" up --data-disk "$((mem * 3))M" "$PAIR_CONF" 1 2 > "$log" 2>&1; then
		CLUSTER_UP=
		echo "bench: reread pair: up failed: $(tail -n 1 "$log")" >&2
		return 1
	fi
	if [[ "$(cx 1 cat /sys/module/ramster/parameters/clean_remote)" != Y ]]; then
		echo "bench: reread pair: this module has no clean_remote (clean pages stay local)" >&2
		"$CLUSTER" down --now > /dev/null 2>&1 || true
		CLUSTER_UP=
		return 1
	fi
	RAMSTER_EXEC_TIMEOUT=1800 cx 1 "export bench_mode=pair; . /cases/lib.sh; . /cases/bench_reread.sh" >> "$log"
	"$CLUSTER" stat >> "$log" 2>&1 || true
	"$CLUSTER" down --now > /dev/null 2>&1 || true
	CLUSTER_UP=
	PAIR_LINE=$(grep -m1 '^BENCH: .* rc=0 ' "$log")
}

# reread_run MODE ROUND: one boot (a pair for "pair"), one line of
# build/bench/reread-raw.txt:
# MODE ROUND PASS1_MS PASS2_MS PAGES HITS2 SECTORS1 SECTORS2 REMOTE2.
reread_run() {
	local mode=$1 round=$2 log=$OUT/logs/reread-$1-$2.log line v disk ok=yes
	if [ "$mode" = pair ]; then
		export RAMSTER_CLUSTER_DIR=$OUT/reread-pair/$round
		reread_pair "$log" || ok=
		line=${PAIR_LINE:-}
	else
		make_ext4_disk "$OUT/data.img" "$((MEM * 3))M" data0
		mapfile -t disk < <(qemu_data_disk "$OUT/data.img" 0 "$(disk_limits)")
		qemu_start "$log" "$MEM" 2 "$PATCHED" "$INITRD" \
			"ramster_test=bench_reread bench_mode=$mode" -nic none "${disk[@]}"
		line=$(bench_line "$log") || ok=
	fi
	if [ -z "$ok" ]; then
		echo "bench: reread $mode round $round FAILED, see $log" >&2
		echo "$mode $round FAIL" >> "$OUT/reread-raw.txt"
		return
	fi
	v=$(for f in pass1_ms pass2_ms pages hits2 sectors1 sectors2 remote2; do
		field "$f" "$line"
	done | tr '\n' ' ')
	echo "$mode $round ${v% }" >> "$OUT/reread-raw.txt"
	printf '[bench %4ss] reread %-10s round %s: %s\n' \
		"$(($(date +%s) - START))" "$mode" "$round" "${v% }"
}

reread_table() {
	local mode p2 base
	echo "RAMster re-read benchmark (cleancache): ${MEM} MiB guest, $QEMU_ACCEL,"
	echo "ext4 on $(disk_description);"
	echo "a file set of 2x RAM (text-like pages, ~2:1 with lz4, 1 in 8 random) read"
	echo "forward, then again shuffled; medians of $RUNS interleaved runs (ms, lower"
	echo "is better); ratio: pass 2 to pass 2 of 'none'; hit rate: pass 2's gets"
	echo "from cleancache over its pages.  pair: node 1 of $(basename "$PAIR_CONF"),"
	echo "clean_remote=1, a local clean pool of $PAIR_CC_PERCENT% of RAM; its clean pages go to node 2."
	echo
	printf '%-11s %9s %9s %7s %9s %10s %10s\n' mode pass1_ms pass2_ms ratio "hit rate" sectors1 sectors2
	base=$(sec_median none 4 reread-raw.txt)
	for mode in "${REREAD_MODES[@]}"; do
		p2=$(sec_median "$mode" 4 reread-raw.txt)
		printf '%-11s %9s %9s %7s %8s%% %10s %10s\n' "$mode" \
			"$(sec_median "$mode" 3 reread-raw.txt)" "$p2" \
			"$(ratio "$p2" "$base")" \
			"$(awk -v m="$mode" '$1 == m && $3 != "FAIL" { h += $6; p += $5 }
				END { if (p) printf "%.1f", 100 * h / p; else print "-" }' \
				"$OUT/reread-raw.txt")" \
			"$(sec_median "$mode" 7 reread-raw.txt)" \
			"$(sec_median "$mode" 8 reread-raw.txt)"
	done
	echo
	echo "pair: pass 2's gets answered by node 2 (median): $(sec_median pair 9 reread-raw.txt)"
}

bench_reread() {
	rm -rf "$OUT/reread-pair"
	mkdir -p "$OUT/logs" "$OUT/reread-pair"
	if [ "$(id -u)" != 0 ]; then
		echo "bench: reread: pair needs root (network namespaces); none and cleancache only" >&2
		REREAD_MODES=(none cleancache)
	fi
	interleaved reread reread_run reread_table "${REREAD_MODES[@]}"
	rm -f "$OUT/data.img"
}

#########################################
# swap: disk vs zswap vs zram vs ramster vs vanilla
#########################################
has_config() { [[ " ${CONFIGS[*]} " == *" $1 "* ]]; }

# check_configs: every name in CONFIGS is a configuration (a typo would
# run as disk).
check_configs() {
	local c
	for c in "${CONFIGS[@]}"; do
		case "$c" in
		disk|zswap|zram|ramster|vanilla|nbd|pair|pair-nora|pair-auth|pair-insecure|peers3|memserver) ;;
		*) echo "bench: unknown configuration '$c' in BENCH_CONFIGS" >&2; exit 2 ;;
		esac
	done
}

# drop_workload NAME: NAME out of WORKLOADS (at least one stays: verify).
drop_workload() {
	drop_from WORKLOADS "$1"
	[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=(verify)
}

# drop_config NAME: NAME out of CONFIGS.
drop_config() { drop_from CONFIGS "$1"; }

# drop_from ARRAY NAME: every NAME out of the array named ARRAY.
drop_from() {
	local -n list=$1
	local item kept=()
	for item in "${list[@]}"; do
		[ "$item" = "$2" ] || kept+=("$item")
	done
	list=("${kept[@]}")
}

bench_swap() {
	local round frac config fracs
	check_configs
	if [ ! -f "$VANILLA" ] && has_config vanilla; then
		echo "bench: $VANILLA missing (make kernel-vanilla): no 'vanilla' configuration" >&2
		drop_config vanilla
	fi
	if [ "$(id -u)" != 0 ]; then
		for config in "${CONFIGS[@]}"; do
			is_cluster_config "$config" || continue
			echo "bench: $config needs root (network namespaces): left out" >&2
			drop_config "$config"
		done
	fi
	if has_config nbd && ! "$TOP/scripts/build-nbd-initramfs.sh" "$NBD_INITRD"; then
		echo "bench: no nbd-server for the peer (see above): no 'nbd' configuration" >&2
		drop_config nbd
	fi
	if [ "$DILATE" = 1 ] && any_cluster_config &&
		! "$TOP/scripts/build-tool-initramfs.sh" tc "$TC_INITRD"; then
		echo "bench: no tc for the guests (see above): the network is not dilated" >&2
		rm -f "$TC_INITRD"
	fi
	if [[ " ${WORKLOADS[*]} " == *" sort "* ]]; then
		if "$TOP/scripts/build-tool-initramfs.sh" sort "$SORT_INITRD"; then
			cat "$INITRD" "$SORT_INITRD" > "$SORT_GUEST_INITRD"
			if has_config nbd; then
				cat "$NBD_INITRD" "$SORT_INITRD" > "$SORT_NBD_INITRD"
			fi
		else
			echo "bench: no GNU sort for the guests (see above): no 'sort' workload" >&2
			drop_workload sort
		fi
	fi
	# The last run's files, of every workload: none of them may sit beside
	# this run's as if they were its own.
	rm -rf "$OUT/logs" "$OUT/cluster" "$OUT/latency" "$OUT"/raw*.txt \
		"$OUT"/results*.txt "$OUT"/runtime* "$OUT"/latency*.dat "$OUT"/latency*.png
	mkdir -p "$OUT/logs" "$OUT/cluster" "$OUT/latency"
	for WORKLOAD in "${WORKLOADS[@]}"; do
		workload_files
		: > "$RAW"
	done
	tcg_factor
	dilate
	read -r -a fracs <<< "$FRACTIONS"
	RUNS_TOTAL=$((RUNS * ${#CONFIGS[@]} * ${#fracs[@]} * ${#WORKLOADS[@]}))
	RUNS_DONE=0
	# About 100 s a run under TCG (a cluster run boots its nodes too).
	echo "bench: $RUNS rounds x ${#CONFIGS[@]} configurations x working set in RAM: $FRACTIONS (%)" \
		"x workloads: ${WORKLOADS[*]}: $RUNS_TOTAL runs, about $((RUNS_TOTAL * 100 / 60)) minutes under TCG"
	for round in $(seq 1 "$RUNS"); do
		for WORKLOAD in "${WORKLOADS[@]}"; do
			workload_files
			for frac in $FRACTIONS; do
				for config in "${CONFIGS[@]}"; do
					one_run "$config" "$frac" "$round"
				done
			done
		done
	done
	rm -f "$OUT/swap.img"
	for WORKLOAD in "${WORKLOADS[@]}"; do
		workload_files
		table | tee "$OUT/results$SUFFIX.txt"
		echo "bench: saved $OUT/results$SUFFIX.txt (raw runs: $RAW)"
		plot
	done
	undilate
}

main() {
	local parts=(swap security reread) part f
	[ $# -eq 0 ] || parts=("$@")
	qemu_traps cleanup
	for f in "$PATCHED" "$INITRD"; do
		[ -f "$f" ] || { echo "bench: $f missing: make all" >&2; exit 2; }
	done
	mkdir -p "$OUT"
	qemu_pick_accel "$PATCHED" "$INITRD" "$TOP/build/accel"
	for part in "${parts[@]}"; do
		case "$part" in
		swap) bench_swap ;;
		security) bench_security ;;
		reread) bench_reread ;;
		*) echo "usage: tests/bench.sh [swap] [security] [reread]" >&2; exit 2 ;;
		esac
	done
}

main "$@"
