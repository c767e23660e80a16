# shellcheck shell=bash
# security: the cluster key (issue 11), on the pair of
# tests/configs/pair-fuzz.conf.  Node 9 is a borrowed number and address
# (10.213.0.9, added on node 2's VM) from which ramster-fuzz attacks node
# 1; it also poses as node 2 itself (an impostor at node 2's address) and
# as node 1 (a fake acceptor, while node 1's module is unloaded).  Every
# workload rewrites its pages between passes and verifies them all.
#
#   1 a wrong key is rejected at the handshake, on both sides, counted, and
#     nothing it sends after its proof is processed; the real link keeps
#     carrying pages
#   2 an impostor with node 2's number and address but no key (or a wrong
#     one) cannot replace the live link, and the holder drops nothing
#   3 replayed, altered and reordered frames close their link, counted
#   4 20 slow-loris connections do not delay a peer's reconnect
#   5 a capture of the bridge holds none of the workload's marker with
#     encrypt=Y, and finds it with encrypt=N (the check can fail)
#   6 the fuzzer without the key gets nothing past the handshake; with
#     it, malformed authenticated frames of every type are closed and
#     counted
#   7 insecure=1 without a key works and warns; without insecure=1 a
#     node without a key refuses to start
# Figures: remote put rate and remote load latency encrypted,
# authenticated only and insecure; handshake times; reconnect times.
#
# results: cluster_key_delivered_not_leaked cluster_wrong_key_rejected
# results: cluster_impostor_cannot_replace_link
# results: cluster_replay_flip_reorder_closed
# results: cluster_fuzzer_authenticated_frames cluster_slowloris_reconnect
# results: cluster_confidentiality_capture cluster_security_no_kernel_warnings
# results: cluster_insecure_runs_and_warns cluster_security_down_orderly
# timeout: 4800

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

CONF=$TOP/tests/configs/pair-fuzz.conf
AS9="-n 9 -s 10.213.0.9"
MARKER=RAMSTER-MARKER-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
CAPTURE_PID=

#########################################
# helpers
#########################################
# The capture, if one runs, goes with the session (then the cluster).
capture_stop() {
	if [ -n "$CAPTURE_PID" ]; then
		kill "$CAPTURE_PID" 2>/dev/null || true
		wait "$CAPTURE_PID" 2>/dev/null || true
		CAPTURE_PID=
	fi
}
trap 'capture_stop; on_exit' EXIT

fuzz_cases() { grep -c ' closed$' <<< "$FUZZ_OUT" || true; }

# work_bg NODE MIB SEED [ARGS [PASSES]]: the verifying workload, PASSES
# (3) passes with a quarter of the pages rewritten (a new version)
# between passes.
work_bg() {
	cx "$1" "/bin/workload -m $2 -s $3 -p ${5:-3} -q ${4:-} > /tmp/load.out 2>&1 & echo \$! > /tmp/load.pid" >/dev/null
}

# beside_fuzz WHAT: the workload node 2 started before the fuzzer must
# still run when the fuzzer is done, else nothing ran beside it.
beside_fuzz() {
	if workload_gone 2; then
		problem "$1: node 2's workload ended before the fuzzer did: nothing ran beside it"
	fi
}

# work_done NODE WHAT: wait for NODE's workload; a problem unless 0 bad.
work_done() {
	LOADING=$1 watch_loads 900 || problem "$2: node $1's workload did not finish"
	[ "$(load_bad "$1")" = 0 ] || problem "$2: node $1: bad pages: $(load_bad "$1")"
}

# link_security NODE PEER: the security column of NODE's link to PEER.
link_security() { cx "$1" "cat $DEBUGFS/links" | awk -v p="$2" '$1 == p { print $NF }'; }

both_live() { peer_state_is 1 2 live && peer_state_is 2 1 live; }

# rate_figures NODE MIB SEED WHAT [ARGS]: a workload of MIB in NODE while
# nothing else runs, 2 passes (one rewrite: enough for the figures; the
# rates themselves are make bench's): "WHAT: N puts/s, remote load
# latency ...".
rate_figures() {
	local node=$1 mib=$2 seed=$3 what=$4 puts0 puts1 t0 t1
	puts0=$(dbg "$node" remote_puts)
	t0=$(date +%s)
	work_bg "$node" "$mib" "$seed" "${5:-}" 2
	work_done "$node" "$what"
	t1=$(date +%s)
	puts1=$(dbg "$node" remote_puts)
	[ "$((puts1 - puts0))" -gt 0 ] 2>/dev/null || problem "$what: no remote puts"
	RATE="$what: $((puts1 - puts0)) puts in $((t1 - t0))s ($(((puts1 - puts0) / (t1 - t0 + 1)))/s), $(latency_figures "$node")"
}

#########################################
# 0. the key reached the nodes, and nothing else saw it
#########################################
# has_hex HEX: is HEX in the input?  (The pattern never goes on a command
# line: that would show the key in ps.)
# It reads all its input: a grep -q could leave a writer to SIGPIPE, and
# pipefail would turn a match into a failure.
has_hex() { [ "$(grep -caiF -f <(printf '%s\n' "$1"))" -gt 0 ]; }

key_delivered_not_leaked() {
	local keyfile hex sum num where
	keyfile=$(cat "$RAMSTER_CLUSTER_DIR/keyfile" 2>/dev/null || true)
	if [ -z "$keyfile" ] || [ ! -f "$keyfile" ]; then
		problem "no cluster key file"
		return
	fi
	[ "$(stat -c %a "$keyfile")" = 600 ] || problem "key file mode $(stat -c %a "$keyfile")"
	hex=$(head -c 64 "$keyfile")
	sum=$(sha256sum < "$keyfile" | cut -d' ' -f1)
	if cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' | has_hex "$hex"; then
		problem "the key is on a host command line"
	fi
	grep -qF "name=opt/ramster/key,file=$keyfile" <<< "$(pgrep -af qemu-system)" ||
		problem "no QEMU was given the key file"
	for num in 1 2; do
		[ "$(cx "$num" "sha256sum < $KEY" | cut -d' ' -f1)" = "$sum" ] ||
			problem "node $num did not get the key"
		if cx "$num" "cat /proc/cmdline" | has_hex "$hex"; then
			problem "the key is on node $num's kernel command line"
		fi
		if cx "$num" "cat /sys/kernel/config/ramster/key" | has_hex "$hex"; then
			problem "the key reads back from node $num's configfs"
		fi
	done
	where=$(grep -rlaiF --exclude=swap.img -f <(printf '%s\n' "$hex") \
		"$RAMSTER_CLUSTER_DIR" "$UP_LOG" 2>/dev/null | tr '\n' ' ' || true)
	[ -z "$where" ] || problem "the key is in $where"
	[ "$(link_security 1 2)" = encrypted ] || problem "link 1-2 is '$(link_security 1 2)' on node 1"
	[ "$(link_security 2 1)" = encrypted ] || problem "link 1-2 is '$(link_security 2 1)' on node 2"
	FIGURES="key file $(basename "$keyfile") (0600) given by fw_cfg, on no command line, console or log; link 1-2 encrypted"
}

#########################################
# 1. a wrong key
#########################################
wrong_key_rejected() {
	local b a b2 a2 puts0 sent downs0 ups i quiet=0 loaded=0 fake
	# Quiet first: nothing else moves foreign pages, so any PUT, GET or
	# INVALIDATE processed after the wrong proof would show.
	b=$(summary 1)
	fuzz wrongkey 2 "$AS9 -k $KEY wrongkey"
	a=$(summary 1)
	fuzz_ok wrongkey
	fuzz_counted wrongkey "$b" "$a"
	quiet=$(fuzz_cases)
	unchanged "$b" "$a" "node 1 after a wrong proof" foreign_puts \
		foreign_gets foreign_gets_not_found foreign_invalidates \
		foreign_pages protocol_errors link_ups
	[ "$(dbg 1 peers/9/link_ups)" = 0 ] || problem "node 9's link came up"

	# Then while node 2 swaps through node 1.
	puts0=$(dbg 2 remote_puts)
	downs0=$(dbg 1 peers/2/link_downs)
	work_bg 2 $((MEM * 3 / 2)) 11 "" 2
	for i in 1 2 3; do
		sleep 5
		fuzz "wrongkey-load-$i" 2 "$AS9 -k $KEY wrongkey"
		fuzz_ok "wrongkey-load-$i"
		loaded=$((loaded + $(fuzz_cases)))
	done
	beside_fuzz "wrong key"
	work_done 2 "under a wrong key"
	[ "$(dbg 2 remote_puts)" -gt "$puts0" ] 2>/dev/null ||
		problem "the link 1-2 carried no page meanwhile"
	[ "$(dbg 1 peers/2/link_downs)" = "$downs0" ] || problem "link 1-2 went down"
	[ "$(dbg 1 peers/9/link_ups)" = 0 ] || problem "node 9's link came up"
	sent=$(dbg 2 remote_puts)
	[[ "$sent$puts0" =~ ^[0-9]+$ ]] && sent=$((sent - puts0))

	# The connecting side: node 2 meets a fake node 1 without the key
	# (node 1's module unloaded, the fuzzer on its address and port).
	if ! "$CLUSTER" unload 1 >> "$UP_LOG" 2>&1; then
		problem "unload 1 failed"
		return
	fi
	ups=$(dbg 2 peers/1/link_ups)
	b2=$(summary 2)
	fuzz acceptor 1 "-a 10.213.0.2 -s 10.213.0.1 -n 1 -t 2 -S 40 acceptor"
	a2=$(summary 2)
	fuzz_ok acceptor
	fuzz_counted acceptor "$b2" "$a2"
	fake=$(fuzz_cases)
	[ "$(dbg 2 peers/1/link_ups)" = "$ups" ] || problem "node 2 took the fake node 1"
	"$CLUSTER" reload 1 >> "$UP_LOG" 2>&1 || problem "reload 1 failed"
	wait_until 30 both_live || problem "link 1-2 not live after reload"
	FIGURES="node 1 refused $quiet wrong-key handshakes (auth_failures +$(delta "$b" "$a" auth_failures)) with nothing processed, $loaded more while node 2 swapped $sent pages through it (0 bad); node 2 refused $fake fake acceptors without the key (auth_failures +$(delta "$b2" "$a2" auth_failures))"
}

#########################################
# 2. an impostor at node 2's address
#########################################
impostor_cannot_replace_link() {
	local b a out spec before after
	local specs="1:peers/2/link_ups 1:peers/2/link_downs 1:peers/2/pages_held_for_it 1:foreign_pages 1:foreign_dropped 2:peers/1/link_ups 2:peers/1/link_downs 2:remote_pages"
	set_param 2 suction_interval_ms 0
	park_with_remote 2
	before=
	for spec in $specs; do before="$before $(dbg "${spec%%:*}" "${spec#*:}")"; done
	b=$(summary 1)
	fuzz impostor-keyless 2 "-n 2 -s 10.213.0.2 keyless"
	fuzz_ok impostor-keyless
	out=$FUZZ_OUT
	fuzz impostor-wrongkey 2 "-n 2 -s 10.213.0.2 -k $KEY -K wrongkey"
	fuzz_ok impostor-wrongkey
	FUZZ_OUT="$out
$FUZZ_OUT"
	sleep 2
	a=$(summary 1)
	fuzz_counted impostor "$b" "$a"
	after=
	for spec in $specs; do after="$after $(dbg "${spec%%:*}" "${spec#*:}")"; done
	[ "$before" = "$after" ] || problem "changed: $specs: $before ->$after"
	unpark 2
	verify_parked 2
	set_param 2 suction_interval_ms 1000
	FIGURES="$(fuzz_cases) impostor handshakes refused while node 1 held $PARKED_REMOTE of node 2's pages: link ups/downs and pages held unchanged, 0 bad"
}

#########################################
# 3. replayed, altered, reordered frames
#########################################
replay_flip_reorder_closed() {
	local b a downs0
	downs0=$(dbg 1 peers/2/link_downs)
	work_bg 2 $((MEM * 3 / 2)) 13 "" 2
	sleep 5
	b=$(summary 1)
	fuzz integrity 2 "$AS9 -k $KEY integrity"
	a=$(summary 1)
	fuzz_ok integrity
	fuzz_counted integrity "$b" "$a"
	beside_fuzz replays
	work_done 2 "replays"
	[ "$(dbg 1 peers/2/link_downs)" = "$downs0" ] || problem "link 1-2 went down"
	FIGURES="$(fuzz_cases) cases closed: rx_bad_seq +$(delta "$b" "$a" rx_bad_seq), rx_bad_tag +$(delta "$b" "$a" rx_bad_tag), auth_failures +$(delta "$b" "$a" auth_failures); concurrent workload 0 bad"
}

#########################################
# 6. the fuzzer, without and with the key
#########################################
fuzzer_authenticated_frames() {
	local b a ups9 handled9 keyless downs0 hs
	# Node 2's suction may still be moving its pages: what node 1 did
	# for node 9 is told apart by node 9's own counters.
	ups9=$(dbg 1 peers/9/link_ups)
	handled9=$(dbg 1 peers/9/frames_handled)
	b=$(summary 1)
	fuzz keyless 2 "$AS9 pre keyless"
	a=$(summary 1)
	fuzz_ok keyless
	fuzz_counted keyless "$b" "$a"
	keyless=$(fuzz_cases)
	[ "$(dbg 1 peers/9/link_ups)" = "$ups9" ] || problem "without the key, node 9's link came up"
	[ "$(dbg 1 peers/9/frames_handled)" = "$handled9" ] ||
		problem "without the key, node 1 handled node 9's frames"
	[ "$(dbg 1 peers/9/pages_held_for_it)" = 0 ] ||
		problem "without the key, node 1 holds pages for node 9"

	downs0=$(dbg 1 peers/2/link_downs)
	work_bg 2 $((MEM * 3 / 2)) 17 "" 2
	b=$(summary 1)
	fuzz malformed 2 "$AS9 -k $KEY live malformed handshake -L 10"
	a=$(summary 1)
	fuzz_ok malformed
	fuzz_counted malformed "$b" "$a"
	grep -q 'fuzz: authenticated link works (encrypted)' <<< "$FUZZ_OUT" ||
		problem "the fuzzer's own authenticated link did not work"
	# The counter the keyless case relies on moves once the key is known.
	[ "$(dbg 1 peers/9/frames_handled)" -gt "$handled9" ] 2>/dev/null ||
		problem "with the key, node 1 handled none of node 9's frames"
	hs=$(sed -n 's/^fuzz: handshake \(.*\)$/\1/p' <<< "$FUZZ_OUT")
	beside_fuzz "malformed frames"
	work_done 2 "malformed frames"
	[ "$(dbg 1 peers/2/link_downs)" = "$downs0" ] || problem "link 1-2 went down"
	check_consoles_clean
	FIGURES="without the key: $keyless cases closed, nothing past the handshake (node 9's frames handled: +0); with it: +$(delta "n=$handled9" "n=$(dbg 1 peers/9/frames_handled)" n) frames handled, $(fuzz_cases) malformed authenticated frames closed and counted, 0 bad; handshake $hs"
}

#########################################
# 4. slow loris
#########################################
# reconnect_time VAR: node 2 reloads ramster; VAR gets the seconds until
# its link to node 1 is live, measured in node 2 (the reload's insmod
# included).  A reload that fails, or a link that is not live within 30 s,
# is a problem, and VAR is then "unmeasured" (no number to average).
# shellcheck disable=SC2016  # expanded in the guest
RECONNECT='t0=$(cut -d" " -f1 /proc/uptime); /bin/ramster-node load > /tmp/reload.out 2>&1; n=0; until [ "$(cat /sys/kernel/debug/ramster/peers/1/state 2>/dev/null)" = live ] || [ $n -ge 3000 ]; do usleep 10000; n=$((n + 1)); done; t1=$(cut -d" " -f1 /proc/uptime); [ $n -lt 3000 ] && echo "reconnect $t0 $t1"'
# shellcheck disable=SC2034  # seconds is the caller's variable
reconnect_time() {
	local -n seconds=$1
	local line=

	seconds=unmeasured
	if ! "$CLUSTER" unload 2 >> "$UP_LOG" 2>&1; then
		problem "node 2 did not unload ramster (see $UP_LOG)"
		return
	fi
	line=$(cx 2 "$RECONNECT" | grep '^reconnect ') || true
	if [ -z "$line" ]; then
		problem "node 2's link to node 1 not live within 30 s of a reload ($(cx 2 "cat /tmp/reload.out" | tail -n 1))"
		return
	fi
	seconds=$(awk '{ printf "%.2f", $3 - $2 }' <<< "$line")
}

loris_start() {
	cx 2 "$FUZZ $AS9 -L 20 -S $1 slowloris > /tmp/loris.out 2>&1 &" >/dev/null
	sleep 5
}
loris_done() { cx 2 "cat /tmp/loris.out" | grep -q 'fuzz: result'; }

slowloris_reconnect() {
	local base1 base2 with1 with2 b a out slower refused timeouts
	reconnect_time base1
	reconnect_time base2
	b=$(summary 1)
	loris_start 75
	reconnect_time with1
	sleep 3
	reconnect_time with2
	wait_until 120 loris_done || problem "the slow loris did not finish"
	a=$(summary 1)
	out=$(cx 2 "cat /tmp/loris.out")
	echo "$out" > "$RAMSTER_CLUSTER_DIR/fuzz-slowloris.txt"
	if [ -z "$PROBLEM" ]; then
		slower=$(awk -v a="$base1" -v b="$base2" -v c="$with1" -v d="$with2" \
			'BEGIN { printf "%.2f", (c + d - a - b) / 2 }')
		awk -v s="$slower" 'BEGIN { exit !(s <= 1.0) }' ||
			problem "reconnects ${slower}s slower with the slow loris ($base1 $base2 -> $with1 $with2)"
	fi
	timeouts=$(delta "$b" "$a" handshake_timeouts)
	[ "$timeouts" -ge 20 ] 2>/dev/null ||
		problem "the loris connections were not timed out (handshake_timeouts +$timeouts)"
	wait_until 30 both_live || problem "link 1-2 not live at the end"

	# From an address that is no node's: closed before a byte is read.
	cx 2 "ip addr add 10.213.0.77/24 dev eth0" >/dev/null
	b=$(summary 1)
	fuzz loris-stranger 2 "-n 9 -s 10.213.0.77 -L 5 -S 3 slowloris"
	a=$(summary 1)
	refused=$(delta "$b" "$a" accept_refused_address)
	[ "$refused" -ge 5 ] 2>/dev/null || problem "accept_refused_address +$refused, want >= 5"
	[ "$(delta "$b" "$a" handshake_timeouts)" = 0 ] ||
		problem "a stranger's connections reached a handshake"
	FIGURES="reconnect after reload ${base1}s, ${base2}s alone; ${with1}s, ${with2}s under 20 slow-loris connections ($(sed -n 's/.*bytes sent, \([0-9]*\) closed.*/\1/p' <<< "$out") closed by the 3 s handshake deadline, handshake_timeouts +$timeouts); $refused connections from a stranger's address refused unread"
}

#########################################
# 5. confidentiality
#########################################
# capture_start FILE: tcpdump on the cluster's bridge (in its namespace).
capture_start() {
	local ns
	ns=$(cat "$RAMSTER_CLUSTER_DIR/netns")
	ip netns exec "$ns" tcpdump -i rbr0 -s 0 -U -w "$1" tcp port 7777 \
		> "$1.log" 2>&1 &
	CAPTURE_PID=$!
	wait_until 10 grep -q 'listening on' "$1.log" || problem "tcpdump did not start"
}

# captured WHAT FILE: the capture's size and how often MARKER is in it.
captured() {
	capture_stop
	CAP_BYTES=$(stat -c %s "$2")
	CAP_MARKERS=$(grep -aoF "$MARKER" "$2" | wc -l || true)
	[ "$CAP_BYTES" -gt 1000000 ] || problem "$1: only $CAP_BYTES bytes captured"
}

# reload_both PARAMS...: both nodes' ramster again, with these parameters.
reload_both() {
	"$CLUSTER" unload 2 >> "$UP_LOG" 2>&1 || problem "unload 2 failed"
	"$CLUSTER" unload 1 >> "$UP_LOG" 2>&1 || problem "unload 1 failed"
	"$CLUSTER" reload 1 "$@" >> "$UP_LOG" 2>&1 || problem "reload 1 failed"
	"$CLUSTER" reload 2 "$@" >> "$UP_LOG" 2>&1 || problem "reload 2 failed"
	wait_until 30 both_live || problem "link 1-2 not live after reload $*"
}

confidentiality_capture() {
	local enc=$RAMSTER_CLUSTER_DIR/encrypted.pcap clear=$RAMSTER_CLUSTER_DIR/auth-only.pcap
	local enc_figs enc_markers enc_bytes
	capture_start "$enc"
	rate_figures 1 $((MEM * 3 / 2)) 21 "encrypted" "-M $MARKER"
	captured encrypted "$enc"
	enc_figs=$RATE
	enc_markers=$CAP_MARKERS
	enc_bytes=$CAP_BYTES
	[ "$enc_markers" = 0 ] || problem "encrypted: the marker is $enc_markers times in the capture"

	# The same with encrypt=0: the check must find the marker.
	reload_both encrypt=0
	[ "$(link_security 1 2)" = authenticated ] ||
		problem "with encrypt=0 the link is '$(link_security 1 2)'"
	capture_start "$clear"
	rate_figures 1 $((MEM * 3 / 2)) 22 "authenticated only" "-M $MARKER"
	captured "authenticated only" "$clear"
	[ "$CAP_MARKERS" -gt 0 ] || problem "encrypt=0: no marker in the capture: the check cannot fail"
	FIGURES="marker $enc_markers times in $((enc_bytes / 1000)) kB encrypted, $CAP_MARKERS times in $((CAP_BYTES / 1000)) kB with encrypt=0; $enc_figs; $RATE"
	rm -f "$enc" "$clear"
}

#########################################
# 7. insecure
#########################################
insecure_runs_and_warns() {
	local out num hs
	session_down || problem "down failed: $(tail -n 1 "$DOWN_LOG")"
	# The first boot's logs, for inspection (up removes the directory).
	rm -rf "$LOGS/cluster-security-keyed"
	cp -a "$RAMSTER_CLUSTER_DIR" "$LOGS/cluster-security-keyed"
	rm -f "$LOGS"/cluster-security-keyed/nodes/*/swap.img
	session_up --insecure "$CONF" 1 2
	cx 2 "ip addr add 10.213.0.9/24 dev eth0" >/dev/null
	wait_until 30 both_live || problem "insecure link 1-2 not live"
	for num in 1 2; do
		[ "$(link_security "$num" $((3 - num)))" = insecure ] ||
			problem "node $num's link is '$(link_security "$num" $((3 - num)))'"
		[ "$(dbg "$num" links_insecure)" -ge 1 ] 2>/dev/null ||
			problem "node $num: links_insecure $(dbg "$num" links_insecure)"
		grep -aq 'NOT authenticated nor encrypted (insecure=1)' \
			"$RAMSTER_CLUSTER_DIR/nodes/$num/console.log" ||
			problem "node $num: no warning on its console"
		if [ -n "$(cx "$num" "ls $KEY 2>/dev/null")" ]; then
			problem "node $num got a key"
		fi
	done
	rate_figures 1 $((MEM * 3 / 2)) 23 "insecure"
	fuzz handshake-insecure 2 "$AS9 -L 10 handshake"
	fuzz_ok handshake-insecure
	hs=$(sed -n 's/^fuzz: handshake \(.*\)$/\1/p' <<< "$FUZZ_OUT")
	# Without insecure=1 and without a key, a node refuses to start.
	"$CLUSTER" unload 2 >> "$UP_LOG" 2>&1 || problem "unload 2 failed"
	# shellcheck disable=SC2016  # expanded in the guest
	out=$(cx 2 'insmod /lib/modules/ramster.ko cluster_name=ramster && /bin/ramster-conf apply /etc/ramster/cluster.conf 2; echo "apply-exit=$?"; dmesg | grep "no cluster key: write one" | tail -n 1; for d in /sys/kernel/config/ramster/*; do [ -d "$d" ] && rmdir "$d"; done; rmmod ramster')
	echo "$out" > "$RAMSTER_CLUSTER_DIR/nokey.txt"
	if grep -q 'apply-exit=0' <<< "$out"; then
		problem "a node without key nor insecure=1 started"
	fi
	grep -q 'no cluster key: write one' <<< "$out" || problem "no message for a node without a key"
	"$CLUSTER" reload 2 >> "$UP_LOG" 2>&1 || problem "reload 2 failed"
	wait_until 30 both_live || problem "link 1-2 not live after reload"
	check_consoles_clean
	FIGURES="$RATE; handshake $hs; without insecure=1: $(grep -o 'ramster-conf: .*key.*' <<< "$out" | head -n 1)"
}

session_up "$CONF" 1 2
MEM=$(node_mem 1)
cx 2 "ip addr add 10.213.0.9/24 dev eth0" >/dev/null
check cluster_key_delivered_not_leaked key_delivered_not_leaked
check cluster_wrong_key_rejected wrong_key_rejected
check cluster_impostor_cannot_replace_link impostor_cannot_replace_link
check cluster_replay_flip_reorder_closed replay_flip_reorder_closed
check cluster_fuzzer_authenticated_frames fuzzer_authenticated_frames
check cluster_slowloris_reconnect slowloris_reconnect
check cluster_confidentiality_capture confidentiality_capture
check cluster_security_no_kernel_warnings check_consoles_clean
check cluster_insecure_runs_and_warns insecure_runs_and_warns
check cluster_security_down_orderly check_down_orderly
