# shellcheck shell=bash
# memservers: two memory servers and two clients
# (tests/configs/memservers-2.conf, replicas=2, the default): every page
# a client sends away is on both servers.  Both clients run a long
# workload (2.5x their RAM, three passes, each rewriting a quarter of
# their pages, so a stale copy is caught as well as a lost one).  Server
# 1 restarts in the middle (killed, booted again): the clients keep
# running (a SIGBUS would kill them), their loads go to server 2, and
# once server 1 is back they make its copies again until
# under_replicated is 0 (timed).  Every page verifies.
#
# results: cluster_memservers_two_copies cluster_memservers_server_restarts
# results: cluster_memservers_pages_verify cluster_memservers_no_kernel_warnings
# timeout: 2400

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

CLIENTS="3 4"

under_replicated_is_0() { [ "$(dbg "$1" under_replicated)" = 0 ]; }
# copies_forgotten NODE: copies of NODE's pages it knows are gone, when
# a holder's restart is seen or when the reconciliation at its link up
# finds them missing, whichever comes first.
copies_forgotten() {
	add_known "$(dbg "$1" replicas_lost)" "$(dbg "$1" reconcile_copies_lost)"
}
# add_known A B: A + B, or "?" if either is not a number (a counter that
# could not be read is not a zero).
add_known() {
	if [[ "$1" =~ ^-?[0-9]+$ && "$2" =~ ^-?[0-9]+$ ]]; then echo $(($1 + $2)); else echo "?"; fi
}
# links_live NODE: the links of both clients to NODE are live.
links_live() {
	local num
	for num in $CLIENTS; do peer_state_is "$num" "$1" live || return 1; done
}

start_workloads() {
	local num mem
	mem=$(node_mem 3)
	for num in $CLIENTS; do
		cx "$num" "/bin/workload -m $((mem * 5 / 2)) -s $num -p 3 -q > /tmp/load.out 2>&1 & echo \$! > /tmp/load.pid" >/dev/null
	done
	for num in $CLIENTS; do
		wait_until 600 remote_at_least "$num" 1500 ||
			abort "client $num never had 1500 remote pages ($(dbg "$num" remote_pages))"
	done
}

# Each page a client sent away is on both servers (read while the
# workloads run: a few pages in flight either way are allowed).
two_copies() {
	local num remote on1 on2
	for num in $CLIENTS; do
		remote=$(dbg "$num" remote_pages)
		on1=$(dbg "$num" peers/1/pages_held_there)
		on2=$(dbg "$num" peers/2/pages_held_there)
		if ! [[ "$remote" =~ ^[0-9]+$ && "$on1" =~ ^[0-9]+$ && "$on2" =~ ^[0-9]+$ ]]; then
			problem "client $num: counters unreadable ('$remote' '$on1' '$on2')"
		elif [ $(((on1 + on2) * 100)) -lt $((remote * 190)) ]; then
			problem "client $num: $remote remote pages but $on1 copies on server 1 and $on2 on server 2"
		fi
		FIGURES="${FIGURES:+$FIGURES; }client $num: $remote remote, $on1 copies on server 1, $on2 on server 2"
	done
	for num in 1 2; do
		[ "$(dbg "$num" remote_puts)" = 0 ] || problem "server $num sent pages away"
	done
}

# Server 1 killed and booted again under both workloads.
server_restarts() {
	local num held t0 t_back secs failover=0 lost=0 copies=0 v
	local -A failover0 lost0 copies0
	for num in $CLIENTS; do
		failover0[$num]=$(dbg "$num" remote_loads_failover)
		lost0[$num]=$(copies_forgotten "$num")
		copies0[$num]=$(dbg "$num" replica_copies)
	done
	for num in $CLIENTS; do
		if workload_gone "$num"; then problem "client $num's workload ended before the kill: nothing was tested"; fi
	done
	held=$(dbg 1 foreign_pages)
	t0=$(date +%s)
	"$CLUSTER" kill 1 >/dev/null 2>&1 || problem "kill of server 1 failed"
	for num in $CLIENTS; do
		wait_until 60 peer_state_is "$num" 1 down ||
			problem "client $num never saw server 1 down"
	done
	"$CLUSTER" start 1 >/dev/null 2>&1 || problem "restart of server 1 failed"
	wait_until 120 links_live 1 || problem "server 1 not live again on both clients"
	t_back=$(date +%s)
	for num in $CLIENTS; do
		if workload_gone "$num"; then
			problem "client $num's workload ended before server 1 was back: nothing was re-replicated under it"
		fi
	done
	for num in $CLIENTS; do
		load_not_killed "$num"
		wait_until 600 under_replicated_is_0 "$num" ||
			problem "client $num: still $(dbg "$num" under_replicated) pages under-replicated"
		load_not_killed "$num"
		v=$(since "$num" remote_loads_failover "${failover0[$num]}")
		failover=$(add_known "$failover" "$v")
		v=$(copies_forgotten "$num")
		if [[ "$v" =~ ^[0-9]+$ && "${lost0[$num]}" =~ ^[0-9]+$ ]]; then
			lost=$(add_known "$lost" $((v - ${lost0[$num]})))
		else
			lost="?"
		fi
		v=$(since "$num" replica_copies "${copies0[$num]}")
		copies=$(add_known "$copies" "$v")
	done
	secs=$(($(date +%s) - t_back))
	# Not only the workloads writing their pages again (on both).
	[ "$copies" -gt 0 ] 2>/dev/null || problem "no copy made again: re-replication never ran (copies: $copies)"
	[ "$lost" -gt 0 ] 2>/dev/null || problem "server 1 held $held pages, yet no copy was forgotten: its restart was not seen (forgotten: $lost)"
	FIGURES="server 1 held $held pages when killed, back after $((t_back - t0))s (boot included); clients: $lost copies forgotten (replicas_lost + reconcile_copies_lost), $copies copies made again, under_replicated 0 within ${secs}s of its return; loads served by server 2 after a failure +$failover"
}

pages_verify() {
	local num
	LOADING=$CLIENTS watch_loads 1500 || problem "the workloads did not finish"
	for num in $CLIENTS; do
		case "$(load_bad "$num")" in
		0) ;;
		none) problem "client $num: the workload died (SIGBUS?): $(cx "$num" 'tail -n 2 /tmp/load.out' | tr '\n' ' ')" ;;
		*) problem "client $num: $(load_bad "$num") bad pages" ;;
		esac
		FIGURES="${FIGURES:+$FIGURES; }client $num: $(load_result "$num" | sed 's/workload: result //')"
	done
}

session_up "$TOP/tests/configs/memservers-2.conf"
start_workloads
check cluster_memservers_two_copies two_copies
check cluster_memservers_server_restarts server_restarts
check cluster_memservers_pages_verify pages_verify
check cluster_memservers_no_kernel_warnings check_consoles_clean
