# shellcheck shell=bash
# memserver: a memory server and three clients that overrun its capacity
# (tests/configs/memserver-full.conf); its marks lowered below what it
# holds, the server recalls pages.
#
# results: cluster_memserver_holds_client_pages
# results: cluster_memserver_full_refuses_puts
# results: cluster_memserver_recalls_past_high_mark
# results: cluster_memserver_down_orderly cluster_memserver_no_kernel_warnings
# timeout: 2400

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

CAPACITY=3000

# The clients at 2.5x their RAM: the server holds their pages, never
# sends its own, and the clients never hold any.
holds_client_pages() {
	local num mem bad v
	REFUSED=0
	mem=$(node_mem 2)
	for num in 2 3 4; do load_bg "$num" $((mem * 5 / 2)) "$num"; done
	LOADING="2 3 4" watch_loads 1200 1:foreign_pages || problem "workloads did not finish"
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat.txt" 2>&1 || true
	for num in 2 3 4; do
		bad=$(load_bad "$num")
		[ "$bad" = 0 ] || problem "client $num bad pages: $bad"
		v=$(dbg "$num" foreign_puts)
		[ "$v" = 0 ] || problem "client $num accepted $v foreign pages"
		v=$(dbg "$num" remote_puts_refused)
		[[ "$v" =~ ^[0-9]+$ ]] && REFUSED=$((REFUSED + v))
	done
	[ "${WATCH_MAX[1:foreign_pages]:-0}" -gt 0 ] || problem "the server never held a page"
	for v in remote_puts remote_pages; do
		num=$(dbg 1 "$v")
		[ "$num" = 0 ] || problem "server $v=$num"
	done
	WORKLOAD_PROBLEM=$PROBLEM
	FIGURES="server peak ${WATCH_MAX[1:foreign_pages]:-0} foreign pages, its own never sent, 0 bad"
}

# Past its capacity the server refuses PUTs, and the clients see it (on
# the workload of holds_client_pages).
full_refuses_puts() {
	local v
	problem "$WORKLOAD_PROBLEM"
	v=$(dbg 1 foreign_puts_full)
	[ "$v" -gt 0 ] 2>/dev/null || problem "server never full (foreign_puts_full=$v)"
	[ "$REFUSED" -gt 0 ] || problem "clients saw no refusal"
	[ "${WATCH_MAX[1:foreign_pages]:-0}" -le "$CAPACITY" ] ||
		problem "server held ${WATCH_MAX[1:foreign_pages]} pages, capacity $CAPACITY"
	FIGURES="$v puts refused at capacity, $REFUSED refusals seen by clients, 0 bad"
}

# The clients park pages, some of them on the server; then the server's
# marks are lowered below what it holds (as an administrator asking for
# memory back would): it recalls pages until it is under its high mark,
# and the clients' pages all verify.
recalls_past_high_mark() {
	local num held percent high t0=0 t1=0 taken
	for num in 2 3 4; do
		set_param "$num" suction_interval_ms 0
		park "$num"
	done
	for num in 2 3 4; do
		wait_until 400 parked "$num" || problem "client $num never parked"
	done
	held=$(dbg 1 foreign_pages)
	if [ "$held" -ge 300 ] 2>/dev/null; then
		# High mark at half of what it holds, low mark at a quarter.
		percent=$((held * 50 / CAPACITY))
		high=$((CAPACITY * percent / 100))
		set_param 1 foreign_low_percent $((percent / 2))
		set_param 1 foreign_high_percent "$percent"
		t0=$(date +%s)
		wait_until 180 foreign_at_most 1 "$high" ||
			problem "server still holds $(dbg 1 foreign_pages) pages, high mark $high"
		t1=$(date +%s)
	else
		problem "the server holds only '$held' parked pages"
		high=0
	fi
	[ "$(dbg 1 recalls_sent)" -gt 0 ] 2>/dev/null || problem "server sent no RECALL"
	taken=$(sum_of recall_pages 2 3 4)
	[ "$taken" -gt 0 ] || problem "no client took a page back"
	for num in 2 3 4; do unpark "$num"; done
	for num in 2 3 4; do verify_parked "$num"; done
	FIGURES="$held held, high mark $high: under it in $((t1 - t0))s, $taken pages taken back by the clients ($((taken / (t1 - t0 + 1)))/s), $(dbg 1 recalls_sent) RECALLs, 0 bad"
}

session_up "$TOP/tests/configs/memserver-full.conf"
check cluster_memserver_holds_client_pages holds_client_pages
check cluster_memserver_full_refuses_puts full_refuses_puts
check cluster_memserver_recalls_past_high_mark recalls_past_high_mark
check cluster_memserver_down_orderly check_down_orderly
check cluster_memserver_no_kernel_warnings check_consoles_clean
