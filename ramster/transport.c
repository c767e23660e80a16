// SPDX-License-Identifier: GPL-2.0
/*
 * transport.c - links to the other nodes over kernel TCP sockets
 *
 * One TCP connection per pair of nodes that have something to say to each
 * other: a pair is linked if either node may send pages that the other
 * may hold (so client-client and server-server pairs are not).  As in
 * o2net, one side connects, here the node with the higher number; the
 * other accepts.  Either side then sends requests on the link.
 *
 * Each peer has one thread that runs its link through these states:
 *
 *   DOWN --(we connect, backoff over)--> CONNECTING --(connected)-->
 *   HANDSHAKE --(handshake.c: hello, reply, proofs)--> LIVE
 *   DOWN --(a handshake work item completed an accepted connection)--> LIVE
 *   CONNECTING, HANDSHAKE, LIVE --(error, EOF, malformed or unauthentic
 *   frame, no frame for link_timeout_ms, a newer authenticated connection
 *   from the same node, module exit)--> DOWN
 *
 * A request unanswered for request_timeout_ms fails alone (its ->done()
 * gets -ETIMEDOUT, a late reply is counted and dropped): a slow answer
 * is not a dead link, and the link's own liveness is link_timeout_ms of
 * silence, which keepalives prevent.
 *
 * Backoff doubles from 100 ms up to reconnect_max_ms, and is reset by a
 * link that came up.  While LIVE the thread is the link's receiver: it
 * reads frames (frame_io.c: header checked before the payload is read,
 * tag verified, payload checked), then dispatches.  A frame that breaks a
 * rule is counted (rx_*), logged, and takes the link down; the other links
 * are not affected.  The receive timeout is a tick of keepalive_ms, on which the
 * thread sends keepalives, checks the link and expires requests, so
 * every wait in this file is bounded by a module parameter.
 *
 * Accepting: the listener thread only accepts.  A connection from an
 * address that is no node's that may connect to us is closed before a
 * byte is read; the others each get a work item that runs the handshake
 * with one total deadline, at most max_handshakes at a time, so a slow
 * or hostile client delays nobody else's handshake.  Only an
 * authenticated handshake hands its connection to the peer's thread
 * (and replaces a live link).
 *
 * Sending: ramster_send() only queues a frame and kicks the peer's tx
 * work, so callers never block on the network (the receiver answers
 * requests the same way, so two nodes answering each other cannot both
 * block on full socket buffers).  The queue is bounded in bytes
 * (link_queue_kb) for the frames that carry pages (RAMSTER_MSG_F_BOUNDED:
 * PUTs, GET_REPLYs with data): past the bound they are refused with
 * -ENOBUFS, which is backpressure on the remotify thread and a "not now"
 * answer (RAMSTER_ST_NO_MEMORY) from a holder to a GET; small frames
 * (status replies, GETs, keepalives, invalidations) always pass, so the
 * queue holds at most link_queue_kb plus one page and the small frames.
 *
 * Memory reserves only where the traffic frees memory on this node: a
 * frame marked RAMSTER_MSG_F_FREES_MEMORY (a page going to its holder) is
 * sent under memalloc_noreclaim_save(), and only the links to nodes that
 * may hold our pages get sk_set_memalloc() (their replies let the pages'
 * local copies go).  Every other frame is sent under memalloc_noio_save(),
 * which may reclaim but never by swapping: a holder answering a GET
 * frees nothing here and must not drain the reserves for it.  Sends use
 * MSG_NOSIGNAL and a bounded sk_sndtimeo.  The receiver runs under
 * memalloc_noio_save() too, and its handlers allocate with GFP_NOWAIT:
 * a handler short of memory answers "not now", never closes the link.
 * A load's GET comes from a small reserve (ramster_msg_alloc_reserved()):
 * a GFP_NOIO allocation on a node out of memory would retry in reclaim
 * for ever, the faulting task with it.
 *
 * A request that expects a reply (PUT, GET) is on the peer's pending list
 * from ramster_send() until its reply arrives, or the link goes down, and
 * its ->done() is called exactly once, by whoever takes it off the list.
 *
 * Services: the transport never names its users.  A service registers
 * a table of handler rows (transport.h); the row of a type gives both the
 * rule its payload is checked against and the function that acts on it,
 * so a type's size and its handler cannot drift apart.  A frame of a type
 * nobody registered is refused as unknown.  Replies (rows without a
 * function) go to the request waiting for them.  Link events (attach, up,
 * down, restarted, tick) go to every service that asked for them; the
 * KEEPALIVE sent every tick carries what the services' ticks fill in.
 * The transport's own rows are HELLO, HELLO_REPLY and GOODBYE.
 *
 * Locking, in order: ramster_services_rwsem (read: a handler or an event
 * is running; write: a service (un)registers, so unregistering waits for
 * its handlers to finish) -> peer->tx_mutex (serialises senders, protects
 * peer->tx_sock) -> peer->lock (spinlock: the state, the sockets handed
 * over, the send queue, the pending list).  ramster_accepts_lock (a
 * mutex, the handshakes in progress) nests in nothing and nothing in it.
 * ramster_peers[] is filled at start and only emptied after every thread
 * and handshake stopped: at module exit, or when a start fails.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/mempool.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/rwsem.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "auth.h"
#include "frame_io.h"
#include "handshake.h"
#include "ramster.h"
#include "stats.h"
#include "transport.h"
#include "transport_internal.h"

/*********************************
 * module parameters
 *********************************/
static char *cluster_name = "ramster";
module_param(cluster_name, charp, 0444);
MODULE_PARM_DESC(cluster_name,
		 "cluster name, as in cluster.conf; peers of another cluster are refused");

static unsigned int connect_timeout_ms = 3000;
static struct ramster_uint_range connect_timeout_ms_range = {
	&connect_timeout_ms, 100, 600000
};
module_param_cb(connect_timeout_ms, &ramster_uint_range_ops, &connect_timeout_ms_range,
		0644);
MODULE_PARM_DESC(connect_timeout_ms, "bound on one connect() (default 3000)");

static unsigned int handshake_timeout_ms = 3000;
static struct ramster_uint_range handshake_timeout_ms_range = {
	&handshake_timeout_ms, 100, 600000
};
module_param_cb(handshake_timeout_ms, &ramster_uint_range_ops, &handshake_timeout_ms_range,
		0644);
MODULE_PARM_DESC(handshake_timeout_ms,
		 "bound on the HELLO exchange of a new link (default 3000)");

static unsigned int request_timeout_ms = 5000;
static struct ramster_uint_range request_timeout_ms_range = {
	&request_timeout_ms, 100, 3600000
};
module_param_cb(request_timeout_ms, &ramster_uint_range_ops, &request_timeout_ms_range,
		0644);
MODULE_PARM_DESC(request_timeout_ms,
		 "a request unanswered this long fails (its link stays up) (default 5000)");

static unsigned int keepalive_ms = 1000;
static struct ramster_uint_range keepalive_ms_range = {
	&keepalive_ms, 10, 600000
};
module_param_cb(keepalive_ms, &ramster_uint_range_ops, &keepalive_ms_range,
		0644);
MODULE_PARM_DESC(keepalive_ms,
		 "keepalive interval; also the tick of the link checks (default 1000)");

static unsigned int link_timeout_ms = 5000;
static struct ramster_uint_range link_timeout_ms_range = {
	&link_timeout_ms, 100, 3600000
};
module_param_cb(link_timeout_ms, &ramster_uint_range_ops, &link_timeout_ms_range,
		0644);
MODULE_PARM_DESC(link_timeout_ms,
		 "a link that receives nothing this long is down (default 5000)");

static unsigned int link_queue_kb = 512;
static struct ramster_uint_range link_queue_kb_range = {
	&link_queue_kb, 16, 1048576
};
module_param_cb(link_queue_kb, &ramster_uint_range_ops, &link_queue_kb_range,
		0644);
MODULE_PARM_DESC(link_queue_kb,
		 "frames with pages queued to one node at most, in KiB; more wait (default 512)");

static unsigned int reconnect_max_ms = 5000;
static struct ramster_uint_range reconnect_max_ms_range = {
	&reconnect_max_ms, 100, 3600000
};
module_param_cb(reconnect_max_ms, &ramster_uint_range_ops, &reconnect_max_ms_range,
		0644);
MODULE_PARM_DESC(reconnect_max_ms, "longest reconnect backoff (default 5000)");

static unsigned int max_handshakes = 32;
/* At most the accept workqueue's max_active: each needs a worker. */
static struct ramster_uint_range max_handshakes_range = {
	&max_handshakes, 1, WQ_DFL_ACTIVE
};
module_param_cb(max_handshakes, &ramster_uint_range_ops, &max_handshakes_range,
		0644);
MODULE_PARM_DESC(max_handshakes,
		 "accepted connections in their handshake at once; more are closed (default 32)");

#define RAMSTER_BACKOFF_MIN_MS	100

/*********************************
 * peers
 *********************************/
static const char * const ramster_link_state_names[RAMSTER_NR_LINK_STATES] = {
	[RAMSTER_LINK_DOWN] = "down",
	[RAMSTER_LINK_CONNECTING] = "connecting",
	[RAMSTER_LINK_HANDSHAKE] = "handshake",
	[RAMSTER_LINK_LIVE] = "live",
};

const char *ramster_link_state_name(enum ramster_link_state state)
{
	return state < RAMSTER_NR_LINK_STATES ?
	       ramster_link_state_names[state] : "?";
}

struct ramster_peer *ramster_peers[RAMSTER_MAX_NODES];
static struct ramster_node_info ramster_local_info;
static bool ramster_started;
static struct socket *ramster_listen_sock;
static struct task_struct *ramster_listen_thread;
static struct workqueue_struct *ramster_tx_wq;
static struct workqueue_struct *ramster_accept_wq;

/**
 * struct ramster_accept - an accepted connection in its handshake
 * @work: runs the handshake
 * @list: on ramster_accepts, so that a stop can cut it short
 * @sock: the connection
 * @from: its source address
 * @start: jiffies when it was accepted: the handshake's deadline counts
 *	from here, however long the work item waited to run
 */
struct ramster_accept {
	struct work_struct work;
	struct list_head list;
	struct socket *sock;
	__be32 from;
	unsigned long start;
};

/* A mutex: a stop shuts the sockets down under it, which may sleep. */
static DEFINE_MUTEX(ramster_accepts_lock);	/* the two below */
static LIST_HEAD(ramster_accepts);
static unsigned int ramster_nr_accepts;

/**
 * struct ramster_route - who handles a message type
 * @row: the registered row, NULL if nobody handles the type
 * @svc: the service whose table it is
 */
struct ramster_route {
	const struct ramster_handler *row;
	struct ramster_service *svc;
};

static DECLARE_RWSEM(ramster_services_rwsem);	/* see the file comment */
static LIST_HEAD(ramster_services);
static struct ramster_route ramster_routes[RAMSTER_MSG_NR_TYPES];
static struct ramster_wire_hello_id ramster_me;

/*********************************
 * services
 *********************************/
static bool ramster_row_ok(const struct ramster_handler *row)
{
	return row->type && row->type < RAMSTER_MSG_NR_TYPES &&
	       row->rule.min_len <= row->rule.max_len &&
	       row->rule.max_len <= RAMSTER_FRAME_BUF_SIZE - RAMSTER_WIRE_HDR_SIZE -
				    RAMSTER_WIRE_TAG_LEN;
}

/**
 * ramster_transport_register - a service takes its message types
 * @svc: the service; it and its table stay valid until it unregisters
 *
 * Services register before the transport starts: the links they attach
 * to are announced at start.
 *
 * Return: 0; -EINVAL for a malformed row; -EEXIST if another service
 * handles one of its types; -EBUSY once the transport runs.
 */
int ramster_transport_register(struct ramster_service *svc)
{
	unsigned int i, j;
	int ret = 0;

	down_write(&ramster_services_rwsem);
	if (READ_ONCE(ramster_started)) {
		ret = -EBUSY;
		goto out;
	}
	for (i = 0; i < svc->nr_handlers && !ret; i++) {
		const struct ramster_handler *row = &svc->handlers[i];

		if (!ramster_row_ok(row))
			ret = -EINVAL;
		else if (ramster_routes[row->type].row)
			ret = -EEXIST;
		else
			ramster_routes[row->type] = (struct ramster_route){ row, svc };
	}
	if (ret) {
		pr_err("service %s: row %u (type %u): %s\n", svc->name, i - 1,
		       svc->handlers[i - 1].type,
		       ret == -EEXIST ? "type handled by another service" :
		       "malformed");
		for (j = 0; j < i; j++)
			if (ramster_routes[svc->handlers[j].type].svc == svc)
				ramster_routes[svc->handlers[j].type] =
					(struct ramster_route){ };
		goto out;
	}
	list_add_tail(&svc->list, &ramster_services);
out:
	up_write(&ramster_services_rwsem);
	return ret;
}

/**
 * ramster_transport_unregister - a service gives its types back
 * @svc: a registered service
 *
 * Waits for its handlers and events that are running: when it returns,
 * none runs and none will.  A frame of its types is then an unknown type,
 * which takes its link down: the transport stops before services go.
 * Requests the service sent are its own to cancel or wait for.
 */
void ramster_transport_unregister(struct ramster_service *svc)
{
	unsigned int i;

	down_write(&ramster_services_rwsem);
	for (i = 0; i < svc->nr_handlers; i++)
		if (ramster_routes[svc->handlers[i].type].svc == svc)
			ramster_routes[svc->handlers[i].type] =
				(struct ramster_route){ };
	list_del_init(&svc->list);
	up_write(&ramster_services_rwsem);
}

/**
 * ramster_transport_sync_events - wait for running handlers and events
 *
 * Every handler and link event running when it is called has returned
 * when it returns; one that starts later sees what the caller wrote
 * before.  For a service that must stop acting on events (a work queue
 * going away) while its reply rows stay registered for requests still in
 * flight.  May sleep; never from a handler or an event.
 */
void ramster_transport_sync_events(void)
{
	down_write(&ramster_services_rwsem);
	up_write(&ramster_services_rwsem);
}

/* The rule of @type's registered row, copied; false if nobody has one. */
static bool ramster_rule_of(u8 type, struct ramster_wire_rule *rule)
{
	bool known = false;

	if (type >= RAMSTER_MSG_NR_TYPES)
		return false;
	down_read(&ramster_services_rwsem);
	if (ramster_routes[type].row) {
		*rule = ramster_routes[type].row->rule;
		known = true;
	}
	up_read(&ramster_services_rwsem);
	return known;
}

enum ramster_link_event {
	RAMSTER_EV_UP,
	RAMSTER_EV_DOWN,
	RAMSTER_EV_RESTARTED,
};

/* Tell every service that listens what happened to @node's link. */
static void ramster_notify(u8 node, enum ramster_link_event ev)
{
	const struct ramster_link_events *e;
	struct ramster_service *svc;

	down_read(&ramster_services_rwsem);
	list_for_each_entry(svc, &ramster_services, list) {
		e = svc->events;
		if (!e)
			continue;
		if (ev == RAMSTER_EV_UP && e->up)
			e->up(svc->ctx, node);
		else if (ev == RAMSTER_EV_DOWN && e->down)
			e->down(svc->ctx, node);
		else if (ev == RAMSTER_EV_RESTARTED && e->restarted)
			e->restarted(svc->ctx, node);
	}
	up_read(&ramster_services_rwsem);
}

static void ramster_notify_attach(const struct ramster_node_info *local,
				  const struct ramster_node_info *peer)
{
	struct ramster_service *svc;

	down_read(&ramster_services_rwsem);
	list_for_each_entry(svc, &ramster_services, list)
		if (svc->events && svc->events->attach)
			svc->events->attach(svc->ctx, local, peer);
	up_read(&ramster_services_rwsem);
}

static void ramster_peer_set_state(struct ramster_peer *peer,
				   enum ramster_link_state state)
{
	spin_lock(&peer->lock);
	peer->state = state;
	spin_unlock(&peer->lock);
}

/*********************************
 * frames out
 *********************************/
/*
 * The reserve of small frames.  A page fault on a remote page needs a GET
 * to go out, and the node may be short of memory: a GFP_NOIO allocation
 * then retries in reclaim for ever (it never calls the OOM killer), and
 * the faulting task with it, unkillable.  The reserve's frames come back
 * as soon as they are sent, so a task that waits for one waits for other
 * loads' frames to leave.  A frame leaves once the tx work sent it, which
 * needs an skb: on a holder's link (SOCK_MEMALLOC) the reserves provide
 * it, on others a send short of memory waits as any send does.
 */
#define RAMSTER_MSG_RESERVE	32
static mempool_t *ramster_msg_reserve;

/* Room for the tag of an authenticated link after the payload. */
static size_t ramster_msg_size(u32 plen)
{
	return size_add(offsetof(struct ramster_msg, payload),
			size_add(plen, RAMSTER_WIRE_TAG_LEN));
}

static struct ramster_msg *ramster_msg_init(struct ramster_msg *msg, u8 type,
					    u32 plen, bool reserved)
{
	msg->flags = 0;
	msg->reserved = reserved;
	memset(&msg->hdr, 0, sizeof(msg->hdr));
	msg->hdr.type = type;
	msg->hdr.plen = cpu_to_le32(plen);
	return msg;
}

/**
 * ramster_msg_alloc - allocate a frame to send
 * @type: message type
 * @plen: payload length
 * @gfp: allocation flags
 *
 * Return: the frame with its type and length set, or NULL.
 */
struct ramster_msg *ramster_msg_alloc(u8 type, u32 plen, gfp_t gfp)
{
	struct ramster_msg *msg = kmalloc(ramster_msg_size(plen), gfp);

	return msg ? ramster_msg_init(msg, type, plen, false) : NULL;
}

/**
 * ramster_msg_alloc_reserved - a small frame a load cannot do without
 * @type: message type
 * @plen: payload length, at most RAMSTER_MSG_RESERVED_PLEN
 *
 * mempool_alloc(): an allocation without reclaim, then the reserve; with
 * the reserve empty, one light reclaim pass without I/O (__GFP_NORETRY)
 * and an uninterruptible wait (up to 5 s) for a reserved frame to be
 * sent and freed, again until one comes.  Sleeps; never an endless
 * reclaim.
 *
 * Return: the frame with its type and length set; NULL only for a @plen
 * over RAMSTER_MSG_RESERVED_PLEN.
 */
struct ramster_msg *ramster_msg_alloc_reserved(u8 type, u32 plen)
{
	if (WARN_ON_ONCE(plen > RAMSTER_MSG_RESERVED_PLEN))
		return NULL;
	/* With direct reclaim allowed, mempool_alloc() never returns NULL. */
	return ramster_msg_init(mempool_alloc(ramster_msg_reserve, GFP_NOIO),
				type, plen, true);
}

void ramster_msg_free(struct ramster_msg *msg)
{
	if (msg && msg->reserved)
		mempool_free(msg, ramster_msg_reserve);
	else
		kfree(msg);
}

/* What a frame adds to its link's queue. */
static u32 ramster_msg_bytes(const struct ramster_msg *msg)
{
	return sizeof(msg->hdr) + le32_to_cpu(msg->hdr.plen);
}

/* The rest of the header (crc or tag) is frame_io's, as it is sent. */
static void ramster_msg_seal(struct ramster_msg *msg, u8 version)
{
	msg->hdr.magic = cpu_to_le32(RAMSTER_WIRE_MAGIC);
	msg->hdr.version = version;
	msg->hdr.src_node = cpu_to_le16(ramster_local_info.num);
}

/**
 * ramster_send_if - queue a frame to a node that can take it
 * @node: the node
 * @cap: RAMSTER_CAP_* bits the node must have offered in the live link's
 *	handshake, 0 for none
 * @msg: the frame; always consumed
 * @req: the request waiting for the reply, or NULL for one-way frames
 *
 * The capability is checked under the link's lock, with the link's state:
 * a frame never goes to a later link, with another handshake, that could
 * not take it.
 *
 * Return: 0 if queued (then @req->done will be called), -ENOENT for a node
 * we have no link to, -ENOTCONN if the link is not live, -EOPNOTSUPP if
 * the node lacks @cap, -ENOBUFS if @msg is RAMSTER_MSG_F_BOUNDED and the
 * link's queue is full (see the top of the file).
 */
int ramster_send_if(u8 node, u32 cap, struct ramster_msg *msg,
		    struct ramster_req *req)
{
	struct ramster_peer *peer = node < RAMSTER_MAX_NODES ?
				    ramster_peers[node] : NULL;
	u64 bound;
	u32 bytes;

	if (!peer) {
		ramster_msg_free(msg);
		return -ENOENT;
	}
	ramster_msg_seal(msg, 0);

	spin_lock(&peer->lock);
	if (peer->state != RAMSTER_LINK_LIVE ||
	    (peer->caps & cap) != cap) {
		bool live = peer->state == RAMSTER_LINK_LIVE;

		spin_unlock(&peer->lock);
		ramster_msg_free(msg);
		return live ? -EOPNOTSUPP : -ENOTCONN;
	}
	bytes = ramster_msg_bytes(msg);
	bound = (u64)READ_ONCE(link_queue_kb) * 1024;
	if (peer->txq_max_bound != bound) {
		peer->txq_max_bound = bound;
		peer->txq_max_bytes = peer->txq_bytes;
		peer->txq_page_max_bytes = peer->txq_page_bytes;
	}
	if ((msg->flags & RAMSTER_MSG_F_BOUNDED) && peer->txq_bytes >= bound) {
		peer->txq_refused++;
		spin_unlock(&peer->lock);
		ramster_msg_free(msg);
		return -ENOBUFS;
	}
	peer->txq_bytes += bytes;
	if (msg->flags & RAMSTER_MSG_F_BOUNDED)
		peer->txq_page_bytes += bytes;
	peer->txq_max_bytes = max(peer->txq_max_bytes, peer->txq_bytes);
	peer->txq_page_max_bytes = max(peer->txq_page_max_bytes,
				       peer->txq_page_bytes);
	msg->hdr.version = peer->version;
	if (req) {
		req->id = ++peer->next_req_id;
		req->node = node;
		req->sent = ktime_get();
		msg->hdr.req_id = cpu_to_le64(req->id);
		list_add_tail(&req->list, &peer->pending);
	}
	list_add_tail(&msg->list, &peer->txq);
	spin_unlock(&peer->lock);
	queue_work(ramster_tx_wq, &peer->tx_work);
	return 0;
}

/**
 * ramster_send - queue a frame to a node
 * @node: the node
 * @msg: the frame; always consumed
 * @req: the request waiting for the reply, or NULL for one-way frames
 *
 * Return: as ramster_send_if() with no capability required.
 */
int ramster_send(u8 node, struct ramster_msg *msg, struct ramster_req *req)
{
	return ramster_send_if(node, 0, msg, req);
}

/**
 * ramster_send_reply - answer a request
 * @node: the node that sent it
 * @request: the request's header
 * @msg: the reply; always consumed
 *
 * Return: as ramster_send().
 */
int ramster_send_reply(u8 node, const struct ramster_wire_hdr *request,
		       struct ramster_msg *msg)
{
	msg->hdr.req_id = request->req_id;
	return ramster_send(node, msg, NULL);
}

/* Send one frame, with the reserves only if it frees memory here. */
static int ramster_peer_send_one(struct ramster_peer *peer,
				 struct ramster_msg *msg)
{
	unsigned int flags;
	int ret;

	if (msg->flags & RAMSTER_MSG_F_FREES_MEMORY)
		flags = memalloc_noreclaim_save();
	else
		flags = memalloc_noio_save();
	ret = ramster_frame_send(peer->tx_sock, &msg->hdr, peer->tx_aead);
	if (msg->flags & RAMSTER_MSG_F_FREES_MEMORY)
		memalloc_noreclaim_restore(flags);
	else
		memalloc_noio_restore(flags);
	return ret;
}

/*
 * Send the queue.  A failed send shuts the socket down, which wakes the
 * receiver to take the link down and fail the pending requests; frames
 * queued behind it are dropped (their requests fail the same way).
 *
 * While more frames wait behind the one being sent (a load's GET and the
 * GETs fetched ahead behind it, a holder's answers to them), the socket
 * is corked, so that they leave in full segments rather than one packet
 * each; uncorking when the queue is empty pushes what is left at once.
 */
static void ramster_peer_tx_work(struct work_struct *work)
{
	struct ramster_peer *peer = container_of(work, struct ramster_peer,
						 tx_work);
	struct socket *corked = NULL;
	struct ramster_msg *msg;
	bool more;
	int ret;

	mutex_lock(&peer->tx_mutex);
	for (;;) {
		spin_lock(&peer->lock);
		msg = list_first_entry_or_null(&peer->txq, struct ramster_msg,
					       list);
		if (msg) {
			list_del(&msg->list);
			peer->txq_bytes -= ramster_msg_bytes(msg);
			if (msg->flags & RAMSTER_MSG_F_BOUNDED)
				peer->txq_page_bytes -= ramster_msg_bytes(msg);
		}
		more = !list_empty(&peer->txq);
		spin_unlock(&peer->lock);
		if (!msg)
			break;
		if (peer->tx_sock) {
			if (more && !corked) {
				corked = peer->tx_sock;
				tcp_sock_set_cork(corked->sk, true);
			}
			ret = ramster_peer_send_one(peer, msg);
			if (ret) {
				pr_warn_ratelimited("node %u: send failed (%d): closing the link\n",
						    peer->info.num, ret);
				kernel_sock_shutdown(peer->tx_sock, SHUT_RDWR);
				peer->tx_sock = NULL;
			}
		}
		ramster_msg_free(msg);
	}
	/* The socket is ours until tx_mutex is released, even shut down. */
	if (corked)
		tcp_sock_set_cork(corked->sk, false);
	mutex_unlock(&peer->tx_mutex);
}

/*
 * Every keepalive interval: the services say what the KEEPALIVE carries
 * and send what else the interval calls for (a lender's RECALL).
 */
static void ramster_peer_tick(struct ramster_peer *peer)
{
	struct ramster_wire_keepalive *ka;
	struct ramster_service *svc;
	struct ramster_msg *msg;

	msg = ramster_msg_alloc(RAMSTER_MSG_KEEPALIVE, sizeof(*ka),
				GFP_KERNEL | __GFP_NOWARN);
	if (!msg)
		return;
	ka = (void *)msg->payload;
	memset(ka, 0, sizeof(*ka));
	down_read(&ramster_services_rwsem);
	list_for_each_entry(svc, &ramster_services, list)
		if (svc->events && svc->events->tick)
			svc->events->tick(svc->ctx, peer->info.num, ka);
	up_read(&ramster_services_rwsem);
	ramster_send(peer->info.num, msg, NULL);
}

/*********************************
 * frames in
 *********************************/
/*
 * Requests unanswered for request_timeout_ms fail one by one, oldest
 * first (the pending list is in sending order); the link stays.  Each
 * leaves the list under the lock before its ->done() runs, as in
 * ramster_peer_flush(), so ramster_req_cancel() cannot race it.
 */
static void ramster_peer_expire(struct ramster_peer *peer)
{
	struct ramster_req *req;

	for (;;) {
		spin_lock(&peer->lock);
		req = list_first_entry_or_null(&peer->pending,
					       struct ramster_req, list);
		if (req && ktime_ms_delta(ktime_get(), req->sent) >
			   READ_ONCE(request_timeout_ms))
			list_del_init(&req->list);
		else
			req = NULL;
		spin_unlock(&peer->lock);
		if (!req)
			return;
		ramster_stat_inc(RAMSTER_STAT_REQUEST_TIMEOUTS);
		pr_warn_ratelimited("node %u: request (type %u reply) unanswered for %u ms: it fails, the link stays\n",
				    peer->info.num, req->reply_type,
				    request_timeout_ms);
		req->done(req, -ETIMEDOUT, NULL, NULL);
	}
}

/*
 * The link checks, on every receive tick and after every frame: returns
 * a negative errno when the link must go down.
 */
static int ramster_peer_check(struct ramster_peer *peer)
{
	unsigned long now = jiffies;
	struct ramster_req *oldest;
	bool keepalive, replaced;
	ktime_t sent = 0;

	spin_lock(&peer->lock);
	replaced = peer->accepted;
	oldest = list_first_entry_or_null(&peer->pending, struct ramster_req,
					  list);
	if (oldest)
		sent = oldest->sent;
	keepalive = time_after_eq(now, peer->last_keepalive +
				  msecs_to_jiffies(keepalive_ms));
	if (keepalive)
		peer->last_keepalive = now;
	spin_unlock(&peer->lock);

	if (replaced) {
		pr_info("node %u: connected again (it restarted?): replacing the link\n",
			peer->info.num);
		return -ECONNRESET;
	}
	if (time_after(now, peer->last_rx + msecs_to_jiffies(link_timeout_ms))) {
		pr_warn("node %u: nothing received for %u ms: link down\n",
			peer->info.num, link_timeout_ms);
		ramster_stat_inc(RAMSTER_STAT_LINK_TIMEOUTS);
		return -ETIMEDOUT;
	}
	if (oldest && ktime_ms_delta(ktime_get(), sent) > request_timeout_ms)
		ramster_peer_expire(peer);
	if (keepalive)
		ramster_peer_tick(peer);
	return 0;
}

/* A live link's receive timeout passed: the link checks. */
static int ramster_peer_idle(void *ctx)
{
	if (kthread_should_stop())
		return -ESHUTDOWN;
	return ramster_peer_check(ctx);
}

/* Take a request off the pending list by id; NULL if it is not there. */
static struct ramster_req *ramster_peer_take_req(struct ramster_peer *peer,
						 u64 id)
{
	struct ramster_req *req;

	spin_lock(&peer->lock);
	list_for_each_entry(req, &peer->pending, list) {
		if (req->id == id) {
			list_del_init(&req->list);
			spin_unlock(&peer->lock);
			return req;
		}
	}
	spin_unlock(&peer->lock);
	return NULL;
}

/**
 * ramster_req_cancel - give up waiting for a reply
 * @req: a request queued by ramster_send()
 *
 * Return: true if the request was still pending: ->done() will not be
 * called.  False if ->done() runs or ran.
 */
bool ramster_req_cancel(struct ramster_req *req)
{
	struct ramster_peer *peer = ramster_peers[req->node];
	bool pending;

	spin_lock(&peer->lock);
	pending = !list_empty(&req->list);
	if (pending)
		list_del_init(&req->list);
	spin_unlock(&peer->lock);
	return pending;
}

/**
 * ramster_req_wait - wait for a request's ->done(), or give up on it
 * @req: a request queued by ramster_send_if()
 * @done: completed by its ->done()
 * @timeout: in jiffies
 *
 * Return: 0 once ->done() has run (with a reply or an error), or
 * -ETIMEDOUT if the request was cancelled first: ->done() never runs.
 */
int ramster_req_wait(struct ramster_req *req, struct completion *done,
		     unsigned long timeout)
{
	if (wait_for_completion_timeout(done, timeout))
		return 0;
	if (ramster_req_cancel(req))
		return -ETIMEDOUT;
	/* Its reply is being handled: ->done() still writes to its owner. */
	wait_for_completion(done);
	return 0;
}

static int ramster_peer_reply(struct ramster_peer *peer,
			      const struct ramster_wire_hdr *hdr,
			      const void *payload)
{
	struct ramster_req *req;

	req = ramster_peer_take_req(peer, le64_to_cpu(hdr->req_id));
	if (!req) {
		/* Its request timed out and was given up: harmless. */
		ramster_stat_inc(RAMSTER_STAT_LATE_REPLIES);
		return 0;
	}
	if (req->reply_type != hdr->type) {
		u8 expected = req->reply_type;

		/* After ->done() the request may be gone (a waiter's stack). */
		req->done(req, -EPROTO, NULL, NULL);
		ramster_stat_inc(RAMSTER_STAT_PROTOCOL_ERRORS);
		pr_warn("node %u: reply of type %u to a request expecting %u: closing the link\n",
			peer->info.num, hdr->type, expected);
		return -EPROTO;
	}
	req->done(req, 0, hdr, payload);
	return 0;
}

/*
 * Act on one validated frame of a live link: the row of its type says
 * who.  Holding the services' lock for reading keeps the row's service
 * registered until its handler returns.
 */
static int ramster_peer_dispatch(struct ramster_peer *peer,
				 const struct ramster_wire_hdr *hdr,
				 const void *payload)
{
	const struct ramster_route *route;
	int ret;

	down_read(&ramster_services_rwsem);
	route = &ramster_routes[hdr->type];
	if (!route->row) {	/* its service went between check and now */
		up_read(&ramster_services_rwsem);
		return -EPROTO;
	}
	WRITE_ONCE(peer->frames_handled, peer->frames_handled + 1);
	if (!route->row->fn)
		ret = ramster_peer_reply(peer, hdr, payload);
	else
		ret = route->row->fn(route->svc->ctx, peer->info.num, hdr,
				     payload);
	up_read(&ramster_services_rwsem);
	return ret;
}

/*********************************
 * handshake
 *********************************/
static void ramster_sock_set_timeouts(struct socket *sock, unsigned int rcv_ms,
				      unsigned int snd_ms)
{
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(rcv_ms);
	sock->sk->sk_sndtimeo = msecs_to_jiffies(snd_ms);
}

static void ramster_handshake_side_init(struct ramster_handshake_side *side,
					u8 *buf, const char *who)
{
	memset(side, 0, sizeof(*side));
	side->me = ramster_me;
	side->buf = buf;
	side->timeout_ms = READ_ONCE(handshake_timeout_ms);
	side->start = jiffies;
	side->who = who;
}

/*
 * Nodes connect from their own address and a reserved port (below 1024,
 * which only root can bind, as NFS clients do): a listener refuses any
 * other source before reading a byte, so no unprivileged process on a
 * node's host can take up handshake slots.  The first free port from
 * RAMSTER_RESVPORT_MAX down is used.
 */
#define RAMSTER_RESVPORT_MAX	1023
#define RAMSTER_RESVPORT_MIN	512

static int ramster_bind_reserved(struct socket *sock)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = ramster_local_info.addr,
	};
	int port, ret = -EADDRINUSE;

	for (port = RAMSTER_RESVPORT_MAX; port >= RAMSTER_RESVPORT_MIN; port--) {
		sin.sin_port = htons(port);
		ret = kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
		if (ret != -EADDRINUSE)
			break;
	}
	return ret;
}

/* Connect to @peer and open the link; its socket in *sockp on success. */
static int ramster_peer_connect(struct ramster_peer *peer,
				struct socket **sockp,
				struct ramster_handshake *hs)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = peer->info.addr,
		.sin_port = peer->info.port,
	};
	struct ramster_handshake_side side;
	struct socket *sock;
	char who[32];
	int ret;

	ramster_peer_set_state(peer, RAMSTER_LINK_CONNECTING);
	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret)
		return ret;
	ramster_sock_set_timeouts(sock, handshake_timeout_ms,
				  connect_timeout_ms);
	ret = ramster_bind_reserved(sock);
	if (ret) {
		pr_warn_ratelimited("node %u: no reserved port free on our address (%d)\n",
				    peer->info.num, ret);
		goto err_release_sock;
	}
	ret = kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (ret)
		goto err_release_sock;

	ramster_peer_set_state(peer, RAMSTER_LINK_HANDSHAKE);
	ramster_sock_set_timeouts(sock, handshake_timeout_ms,
				  handshake_timeout_ms);
	snprintf(who, sizeof(who), "node %u", peer->info.num);
	ramster_handshake_side_init(&side, peer->rxbuf, who);
	ret = ramster_handshake_connect(sock, &side, peer->info.num, hs);
	if (ret)
		goto err_release_sock;
	*sockp = sock;
	return 0;

err_release_sock:
	sock_release(sock);
	return ret;
}

/*********************************
 * the link thread
 *********************************/
/* Fail every pending request and drop every queued frame. */
static void ramster_peer_flush(struct ramster_peer *peer)
{
	struct ramster_msg *msg, *next_msg;
	struct ramster_req *req;
	LIST_HEAD(msgs);

	spin_lock(&peer->lock);
	list_splice_init(&peer->txq, &msgs);
	peer->txq_bytes = 0;
	peer->txq_page_bytes = 0;
	spin_unlock(&peer->lock);
	list_for_each_entry_safe(msg, next_msg, &msgs, list)
		ramster_msg_free(msg);

	/*
	 * One request at a time, each taken off the pending list under the
	 * lock: a request is always either on the list (and
	 * ramster_req_cancel() takes it) or being completed here (and
	 * cancel returns false, so its owner waits for ->done()).  Moving
	 * them to a private list first would let cancel unlink one that
	 * ->done() is about to be called on, after its owner returned.
	 */
	for (;;) {
		spin_lock(&peer->lock);
		req = list_first_entry_or_null(&peer->pending,
					       struct ramster_req, list);
		if (req)
			list_del_init(&req->list);
		spin_unlock(&peer->lock);
		if (!req)
			break;
		req->done(req, -ENOTCONN, NULL, NULL);
	}
}

/* A new handshake with the peer: is it a new instance of the node? */
static void ramster_peer_note_instance(struct ramster_peer *peer,
				       u32 instance)
{
	bool restarted;

	spin_lock(&peer->lock);
	restarted = peer->instance_known && peer->instance != instance;
	peer->instance = instance;
	peer->instance_known = true;
	spin_unlock(&peer->lock);
	if (!restarted)
		return;
	pr_info("node %u restarted (a new instance)\n", peer->info.num);
	ramster_notify(peer->info.num, RAMSTER_EV_RESTARTED);
}

/* Run a live link until it fails, then take it down. */
static void ramster_peer_run(struct ramster_peer *peer, struct socket *sock,
			     struct ramster_handshake *hs)
{
	struct ramster_wire_hdr *hdr = (void *)peer->rxbuf;
	struct ramster_frame_reader r = {
		.sock = sock,
		.buf = peer->rxbuf,
		.expect = {
			.version = hs->version,
			.handshake_done = true,
			.peer_node = peer->info.num,
			.auth = hs->auth,
			.encrypt = hs->encrypt,
		},
		.aead = hs->auth ? &hs->rx : NULL,
		.rule_of = ramster_rule_of,
		.idle = ramster_peer_idle,
		.ctx = peer,
		.last_rx = &peer->last_rx,
	};
	const char *security = ramster_handshake_security(hs);
	char who[32];
	int ret;

	snprintf(who, sizeof(who), "node %u", peer->info.num);
	r.who = who;
	/* Only where replies let local memory go (see the top of the file). */
	if (ramster_role_sends(ramster_local_info.role) &&
	    ramster_role_holds(peer->info.role))
		sk_set_memalloc(sock->sk);
	/*
	 * TCP waits for memory (up to sk_sndtimeo) when an skb cannot be
	 * allocated: under pressure that is expected, not worth a splat.
	 * A send that does fail is logged and takes the link down.
	 */
	sock->sk->sk_allocation |= __GFP_NOWARN;
	tcp_sock_set_nodelay(sock->sk);
	ramster_sock_set_timeouts(sock, keepalive_ms, request_timeout_ms);
	ramster_peer_note_instance(peer, hs->instance);

	mutex_lock(&peer->tx_mutex);
	peer->tx_sock = sock;
	peer->tx_aead = hs->auth ? &hs->tx : NULL;
	mutex_unlock(&peer->tx_mutex);
	spin_lock(&peer->lock);
	peer->version = hs->version;
	peer->security = security;
	peer->caps = hs->caps;
	peer->state = RAMSTER_LINK_LIVE;
	peer->last_rx = jiffies;
	peer->last_keepalive = jiffies;
	peer->link_ups++;
	spin_unlock(&peer->lock);
	ramster_stat_inc(RAMSTER_STAT_LINK_UPS);
	if (!hs->auth) {
		ramster_stat_inc(RAMSTER_STAT_LINKS_INSECURE);
		pr_warn("node %u: link up (protocol %u) NOT authenticated nor encrypted (insecure=1): anyone on the network can read and forge its pages, or make it drop them\n",
			peer->info.num, hs->version);
	} else {
		pr_info("node %u: link up (protocol %u, %s)\n", peer->info.num,
			hs->version, security);
	}
	ramster_notify(peer->info.num, RAMSTER_EV_UP);
	ramster_peer_tick(peer);

	do {
		ret = ramster_frame_recv(&r);
		if (!ret) {
			ret = ramster_peer_dispatch(peer, hdr, hdr + 1);
			/*
			 * Time spent handling a frame (a reconciliation page
			 * walks our trees) is not the peer's silence: what it
			 * sent meanwhile waits in the socket.
			 */
			peer->last_rx = jiffies;
		}
		if (!ret)
			ret = ramster_peer_check(peer);
	} while (!ret && !kthread_should_stop());

	ramster_peer_set_state(peer, RAMSTER_LINK_DOWN);
	/* Before its requests fail: a failed load must see the link down. */
	ramster_notify(peer->info.num, RAMSTER_EV_DOWN);
	kernel_sock_shutdown(sock, SHUT_RDWR);
	mutex_lock(&peer->tx_mutex);
	peer->tx_sock = NULL;
	peer->tx_aead = NULL;
	mutex_unlock(&peer->tx_mutex);
	ramster_peer_flush(peer);
	/* The socket goes: so does its hold on the memalloc static key. */
	lock_sock(sock->sk);
	if (sock_flag(sock->sk, SOCK_MEMALLOC))
		sk_clear_memalloc(sock->sk);
	release_sock(sock->sk);
	sock_release(sock);
	spin_lock(&peer->lock);
	peer->link_downs++;
	peer->security = "-";
	spin_unlock(&peer->lock);
	ramster_stat_inc(RAMSTER_STAT_LINK_DOWNS);
	pr_info("node %u: link down (%d)\n", peer->info.num, ret);
}

/* Take the connection a handshake work item handed over, if any. */
static struct socket *ramster_peer_take_accepted(struct ramster_peer *peer,
						 struct ramster_handshake *hs)
{
	struct socket *sock;

	spin_lock(&peer->lock);
	sock = peer->accepted;
	peer->accepted = NULL;
	if (sock)
		*hs = peer->accepted_hs;
	memset(&peer->accepted_hs, 0, sizeof(peer->accepted_hs));
	spin_unlock(&peer->lock);
	return sock;
}

static int ramster_peer_thread(void *arg)
{
	struct ramster_peer *peer = arg;
	unsigned int backoff = RAMSTER_BACKOFF_MIN_MS;
	unsigned int noio = memalloc_noio_save();
	struct ramster_handshake hs;
	struct socket *sock;
	int ret;

	while (!kthread_should_stop()) {
		sock = NULL;
		if (peer->we_connect) {
			ret = ramster_peer_connect(peer, &sock, &hs);
			if (ret) {
				ramster_peer_set_state(peer, RAMSTER_LINK_DOWN);
				wait_event_timeout(peer->wait,
						   kthread_should_stop(),
						   msecs_to_jiffies(backoff));
				backoff = min(backoff * 2, max(reconnect_max_ms,
							       RAMSTER_BACKOFF_MIN_MS));
				continue;
			}
		} else {
			wait_event_timeout(peer->wait, READ_ONCE(peer->accepted) ||
					   kthread_should_stop(), HZ);
			sock = ramster_peer_take_accepted(peer, &hs);
			if (!sock)
				continue;
		}
		backoff = RAMSTER_BACKOFF_MIN_MS;
		ramster_peer_run(peer, sock, &hs);
		ramster_handshake_release(&hs);
	}

	sock = ramster_peer_take_accepted(peer, &hs);
	if (sock) {
		sock_release(sock);
		ramster_handshake_release(&hs);
	}
	memalloc_noio_restore(noio);
	return 0;
}

/*********************************
 * the listener
 *********************************/
/*
 * May a connection from @addr open a link?  Only a node we link with,
 * with a lower number (it connects to us), has that address.
 */
static struct ramster_peer *ramster_peer_at(__be32 addr)
{
	int i;

	for (i = 0; i < RAMSTER_MAX_NODES; i++)
		if (ramster_peers[i] && !ramster_peers[i]->we_connect &&
		    ramster_peers[i]->info.addr == addr)
			return ramster_peers[i];
	return NULL;
}

/* The handshake's question about the node a HELLO names. */
static const char *ramster_accept_vet(void *ctx, u16 node)
{
	const struct ramster_accept *acc = ctx;
	const struct ramster_peer *peer;

	peer = node < RAMSTER_MAX_NODES ? ramster_peers[node] : NULL;
	if (!peer)
		return "not a node we have a link with";
	if (peer->we_connect)
		return "it should wait for our connection (lower number)";
	if (peer->info.addr != acc->from)
		return "its address is not the node's address";
	return NULL;
}

/* One accepted connection: its handshake, then hand it to its peer. */
static void ramster_accept_work(struct work_struct *work)
{
	struct ramster_accept *acc = container_of(work, struct ramster_accept,
						  work);
	unsigned int noio = memalloc_noio_save();
	struct ramster_handshake_side side;
	struct ramster_handshake hs, old_hs;
	struct ramster_peer *peer;
	struct socket *old;
	char who[48];
	u8 *buf;
	int ret = -ENOMEM;

	snprintf(who, sizeof(who), "connection from %pI4", &acc->from);
	buf = kmalloc(RAMSTER_FRAME_BUF_SIZE, GFP_KERNEL);
	if (buf) {
		ramster_sock_set_timeouts(acc->sock, handshake_timeout_ms,
					  handshake_timeout_ms);
		ramster_handshake_side_init(&side, buf, who);
		side.start = acc->start;
		side.vet = ramster_accept_vet;
		side.ctx = acc;
		ret = ramster_handshake_accept(acc->sock, &side, &hs);
		kfree(buf);
	}

	mutex_lock(&ramster_accepts_lock);
	list_del(&acc->list);
	ramster_nr_accepts--;
	mutex_unlock(&ramster_accepts_lock);
	if (ret) {
		sock_release(acc->sock);
		goto out;
	}

	/*
	 * Authenticated: it replaces a live link (ramster_peer_check()),
	 * whose receiver is woken at once by shutting its socket down.
	 */
	peer = ramster_peers[hs.node];
	spin_lock(&peer->lock);
	old = peer->accepted;
	old_hs = peer->accepted_hs;
	peer->accepted = acc->sock;
	peer->accepted_hs = hs;
	spin_unlock(&peer->lock);
	wake_up(&peer->wait);
	mutex_lock(&peer->tx_mutex);
	if (peer->tx_sock)
		kernel_sock_shutdown(peer->tx_sock, SHUT_RDWR);
	mutex_unlock(&peer->tx_mutex);
	if (old) {
		sock_release(old);
		ramster_handshake_release(&old_hs);
	}
out:
	kfree(acc);
	memalloc_noio_restore(noio);
}

/*
 * A new connection: closed at once unless it comes from the address of a
 * node that may connect to us and there is room for one more handshake.
 */
static void ramster_accept_one(struct socket *sock)
{
	struct sockaddr_in from = { };
	struct ramster_accept *acc;
	bool room;

	if (kernel_getpeername(sock, (struct sockaddr *)&from) < 0)
		goto out_release;
	if (!ramster_peer_at(from.sin_addr.s_addr)) {
		ramster_stat_inc(RAMSTER_STAT_ACCEPT_REFUSED_ADDRESS);
		pr_warn_ratelimited("connection from %pI4: no node that connects to us has that address: closed\n",
				    &from.sin_addr);
		goto out_release;
	}
	if (ntohs(from.sin_port) > RAMSTER_RESVPORT_MAX) {
		ramster_stat_inc(RAMSTER_STAT_ACCEPT_REFUSED_ADDRESS);
		pr_warn_ratelimited("connection from %pI4:%u: not from a reserved port (a node connects from one): closed\n",
				    &from.sin_addr, ntohs(from.sin_port));
		goto out_release;
	}
	acc = kzalloc(sizeof(*acc), GFP_KERNEL);
	if (!acc)
		goto out_release;
	acc->sock = sock;
	acc->from = from.sin_addr.s_addr;
	acc->start = jiffies;
	INIT_WORK(&acc->work, ramster_accept_work);

	mutex_lock(&ramster_accepts_lock);
	room = ramster_nr_accepts < READ_ONCE(max_handshakes);
	if (room) {
		list_add_tail(&acc->list, &ramster_accepts);
		ramster_nr_accepts++;
	}
	mutex_unlock(&ramster_accepts_lock);
	if (!room) {
		kfree(acc);
		ramster_stat_inc(RAMSTER_STAT_ACCEPT_OVER_LIMIT);
		pr_warn_ratelimited("connection from %pI4: %u handshakes already running: closed\n",
				    &from.sin_addr, max_handshakes);
		goto out_release;
	}
	queue_work(ramster_accept_wq, &acc->work);
	return;

out_release:
	sock_release(sock);
}

/* Cut every running handshake short and wait for their work items. */
static void ramster_accepts_stop(void)
{
	struct ramster_accept *acc;

	mutex_lock(&ramster_accepts_lock);
	list_for_each_entry(acc, &ramster_accepts, list)
		kernel_sock_shutdown(acc->sock, SHUT_RDWR);
	mutex_unlock(&ramster_accepts_lock);
	flush_workqueue(ramster_accept_wq);
}

static int ramster_listen_fn(void *arg)
{
	unsigned int noio = memalloc_noio_save();
	struct socket *sock;
	int ret;

	while (!kthread_should_stop()) {
		ret = kernel_accept(ramster_listen_sock, &sock, 0);
		if (ret == -EAGAIN)
			continue;
		if (ret) {
			if (!kthread_should_stop())
				msleep(100);
			continue;
		}
		ramster_accept_one(sock);
	}
	memalloc_noio_restore(noio);
	return 0;
}

static int ramster_listen_start(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = ramster_local_info.addr,
		.sin_port = ramster_local_info.port,
	};
	struct socket *sock;
	int ret;

	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret)
		return ret;
	sock_set_reuseaddr(sock->sk);
	/* accept() wakes up every second to see whether to stop. */
	sock->sk->sk_rcvtimeo = HZ;
	ret = kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
	if (ret) {
		pr_err("cannot bind %pI4:%u (%d): is the address configured?\n",
		       &sin.sin_addr, be16_to_cpu(sin.sin_port), ret);
		goto err_release_sock;
	}
	ret = kernel_listen(sock, 16);
	if (ret)
		goto err_release_sock;
	ramster_listen_sock = sock;
	ramster_listen_thread = kthread_run(ramster_listen_fn, NULL,
					    "ramster-listen");
	if (IS_ERR(ramster_listen_thread)) {
		ret = PTR_ERR(ramster_listen_thread);
		ramster_listen_thread = NULL;
		ramster_listen_sock = NULL;
		goto err_release_sock;
	}
	return 0;

err_release_sock:
	sock_release(sock);
	return ret;
}

/*********************************
 * what the services ask
 *********************************/
bool ramster_transport_running(void)
{
	return READ_ONCE(ramster_started);
}

unsigned int ramster_transport_request_timeout_ms(void)
{
	return READ_ONCE(request_timeout_ms);
}

/**
 * ramster_link_has_cap - may a service use a feature with @node now?
 * @node: the peer
 * @cap: RAMSTER_CAP_* bits
 *
 * Return: true if the link to @node is live and @node offered every bit
 * of @cap in its handshake.
 */
bool ramster_link_has_cap(u8 node, u32 cap)
{
	struct ramster_peer *peer;
	bool ret;

	if (node >= RAMSTER_MAX_NODES)
		return false;
	peer = READ_ONCE(ramster_peers[node]);
	if (!peer)
		return false;
	spin_lock(&peer->lock);
	ret = peer->state == RAMSTER_LINK_LIVE && (peer->caps & cap) == cap;
	spin_unlock(&peer->lock);
	return ret;
}

/*********************************
 * start and stop
 *********************************/
static struct ramster_peer *ramster_peer_create(const struct ramster_node_info *info)
{
	const struct ramster_node_info *local = &ramster_local_info;
	struct ramster_peer *peer;

	peer = kzalloc(sizeof(*peer), GFP_KERNEL);
	if (!peer)
		return NULL;
	peer->rxbuf = kmalloc(RAMSTER_FRAME_BUF_SIZE, GFP_KERNEL);
	if (!peer->rxbuf) {
		kfree(peer);
		return NULL;
	}
	peer->info = *info;
	peer->we_connect = local->num > info->num;
	init_waitqueue_head(&peer->wait);
	spin_lock_init(&peer->lock);
	peer->state = RAMSTER_LINK_DOWN;
	peer->security = "-";
	INIT_LIST_HEAD(&peer->txq);
	INIT_LIST_HEAD(&peer->pending);
	mutex_init(&peer->tx_mutex);
	INIT_WORK(&peer->tx_work, ramster_peer_tx_work);
	return peer;
}

static void ramster_peer_destroy(struct ramster_peer *peer)
{
	struct ramster_handshake hs;
	struct socket *sock;

	if (peer->thread)
		kthread_stop(peer->thread);
	/* Handed over to a thread that never ran (a failed start)? */
	sock = ramster_peer_take_accepted(peer, &hs);
	if (sock) {
		sock_release(sock);
		ramster_handshake_release(&hs);
	}
	flush_work(&peer->tx_work);
	ramster_peer_flush(peer);
	ramster_peer_debugfs_remove(peer);
	kfree(peer->rxbuf);
	kfree(peer);
}

/* Stop every thread and free the peers: module exit, or a failed start. */
void ramster_transport_stop(void)
{
	int i;

	WRITE_ONCE(ramster_started, false);
	if (ramster_listen_thread) {
		kernel_sock_shutdown(ramster_listen_sock, SHUT_RDWR);
		kthread_stop(ramster_listen_thread);
		ramster_listen_thread = NULL;
	}
	if (ramster_listen_sock) {
		sock_release(ramster_listen_sock);
		ramster_listen_sock = NULL;
	}
	/* They hand connections to peers: gone before the peers go. */
	ramster_accepts_stop();
	for (i = 0; i < RAMSTER_MAX_NODES; i++) {
		if (ramster_peers[i]) {
			ramster_peer_destroy(ramster_peers[i]);
			ramster_peers[i] = NULL;
		}
	}
}

/**
 * ramster_transport_start - listen, and start a link to every node
 * @local: this node, as configured
 *
 * Called once, when the local node is set in configfs.  The nodes
 * configured by then are the cluster.
 *
 * Return: 0 or a negative errno (nothing is left running then).
 */
int ramster_transport_start(const struct ramster_node_info *local)
{
	struct ramster_node_info info;
	struct ramster_peer *peer;
	int i, ret, links = 0;

	if (ramster_started)
		return -EBUSY;
	if (READ_ONCE(link_timeout_ms) <= 2 * READ_ONCE(keepalive_ms)) {
		pr_err("link_timeout_ms (%u) must be more than twice keepalive_ms (%u), or links flap\n",
		       link_timeout_ms, keepalive_ms);
		return -EINVAL;
	}
	ret = ramster_handshake_may_start();
	if (ret)
		return ret;
	ramster_local_info = *local;
	ramster_me.node = local->num;
	ret = ramster_listen_start();
	if (ret)
		return ret;

	for (i = 0; i < RAMSTER_MAX_NODES; i++) {
		if (i == local->num || ramster_cluster_node(i, &info))
			continue;
		if (!ramster_roles_linked(local->role, info.role))
			continue;
		peer = ramster_peer_create(&info);
		if (!peer) {
			ret = -ENOMEM;
			goto err_stop;
		}
		ramster_peers[i] = peer;
		ramster_peer_debugfs_add(peer);
		ramster_notify_attach(local, &info);
		peer->thread = kthread_run(ramster_peer_thread, peer,
					   "ramster-n%u", i);
		if (IS_ERR(peer->thread)) {
			ret = PTR_ERR(peer->thread);
			peer->thread = NULL;
			goto err_stop;
		}
		links++;
	}
	WRITE_ONCE(ramster_started, true);
	pr_info("node %u (%s): listening on %pI4:%u, %d links, cluster \"%s\"\n",
		local->num, ramster_role_name(local->role), &local->addr,
		be16_to_cpu(local->port), links, cluster_name);
	return 0;

err_stop:
	ramster_transport_stop();
	return ret;
}

/* On a live link, the handshake's frames are out of place. */
static int ramster_link_late_hello(void *ctx, u8 node,
				   const struct ramster_wire_hdr *hdr,
				   const void *payload)
{
	ramster_stat_inc(RAMSTER_STAT_PROTOCOL_ERRORS);
	pr_warn("node %u: unexpected frame of type %u on a live link: closing it\n",
		node, hdr->type);
	return -EPROTO;
}

static int ramster_link_goodbye(void *ctx, u8 node,
				const struct ramster_wire_hdr *hdr,
				const void *payload)
{
	pr_info("node %u: said goodbye\n", node);
	return -ECONNRESET;
}

/* The transport's own message types. */
static const struct ramster_handler ramster_link_handlers[] = {
	{ RAMSTER_MSG_HELLO, RAMSTER_WIRE_RULE_HELLO, ramster_link_late_hello },
	{ RAMSTER_MSG_HELLO_REPLY, RAMSTER_WIRE_RULE_HELLO, ramster_link_late_hello },
	{ RAMSTER_MSG_AUTH, RAMSTER_WIRE_RULE_AUTH, ramster_link_late_hello },
	{ RAMSTER_MSG_GOODBYE, RAMSTER_WIRE_RULE_GOODBYE, ramster_link_goodbye },
};

static struct ramster_service ramster_link_service = {
	.name = "link",
	.handlers = ramster_link_handlers,
	.nr_handlers = ARRAY_SIZE(ramster_link_handlers),
};

int ramster_transport_init(struct dentry *debugfs_root)
{
	size_t size;
	int ret;

	if (strlen(cluster_name) == 0 ||
	    strlen(cluster_name) >= RAMSTER_WIRE_CLUSTER_NAME_LEN) {
		pr_err("cluster_name must be 1 to %d characters\n",
		       RAMSTER_WIRE_CLUSTER_NAME_LEN - 1);
		return -EINVAL;
	}
	size = ramster_msg_size(RAMSTER_MSG_RESERVED_PLEN);
	ramster_msg_reserve = mempool_create_kmalloc_pool(RAMSTER_MSG_RESERVE,
							  size);
	if (!ramster_msg_reserve)
		return -ENOMEM;
	ret = ramster_auth_init();
	if (ret)
		goto err_reserve;
	ramster_tx_wq = alloc_workqueue("ramster_tx",
					WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!ramster_tx_wq) {
		ret = -ENOMEM;
		goto err_auth;
	}
	/* Handshakes free no memory: no rescuer, no reserves. */
	ramster_accept_wq = alloc_workqueue("ramster_accept", WQ_UNBOUND,
					    WQ_DFL_ACTIVE);
	if (!ramster_accept_wq) {
		ret = -ENOMEM;
		goto err_tx_wq;
	}
	ramster_me.cluster = cluster_name;
	do {
		ramster_me.instance = get_random_u32();
	} while (!ramster_me.instance);
	ret = ramster_transport_register(&ramster_link_service);
	if (ret)
		goto err_accept_wq;
	ramster_transport_debugfs_init(debugfs_root);
	return 0;

err_accept_wq:
	destroy_workqueue(ramster_accept_wq);
	ramster_accept_wq = NULL;
err_tx_wq:
	destroy_workqueue(ramster_tx_wq);
	ramster_tx_wq = NULL;
err_auth:
	ramster_auth_exit();
err_reserve:
	mempool_destroy(ramster_msg_reserve);
	ramster_msg_reserve = NULL;
	return ret;
}

void ramster_transport_exit(void)
{
	ramster_transport_stop();
	ramster_auth_exit();
	ramster_transport_unregister(&ramster_link_service);
	if (ramster_accept_wq) {
		destroy_workqueue(ramster_accept_wq);
		ramster_accept_wq = NULL;
	}
	if (ramster_tx_wq) {
		destroy_workqueue(ramster_tx_wq);
		ramster_tx_wq = NULL;
	}
	/* Every frame was sent or dropped with its link: all are back. */
	mempool_destroy(ramster_msg_reserve);
	ramster_msg_reserve = NULL;
}
