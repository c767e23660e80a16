/* SPDX-License-Identifier: GPL-2.0 */
/*
 * transport.h - links to the other nodes over kernel TCP sockets: the
 * interface the services above it use
 *
 * The transport never names its users (as o2net): a service registers a
 * struct ramster_service, one table of handler rows (message type, the
 * protocol's rule for its payload, function) and optionally a struct
 * ramster_link_events for what happens to links.  Frames of a type no
 * registered service handles are refused as unknown.
 */
#ifndef _RAMSTER_TRANSPORT_H
#define _RAMSTER_TRANSPORT_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/types.h>

#include "cluster.h"
#include "wire.h"

/*
 * What the sender of a frame says of it (struct ramster_msg.flags):
 * RAMSTER_MSG_F_BOUNDED, it carries a page and may wait its turn: it is
 * refused (-ENOBUFS) while the link's queue holds link_queue_kb or more;
 * RAMSTER_MSG_F_FREES_MEMORY, sending it frees memory on this node (a
 * page going to a holder): it is sent with the memory reserves.
 */
#define RAMSTER_MSG_F_BOUNDED		0x1
#define RAMSTER_MSG_F_FREES_MEMORY	0x2

/**
 * struct ramster_msg - one outgoing frame: header and payload in one buffer
 * @list: in the peer's send queue
 * @flags: RAMSTER_MSG_F_*, 0 from ramster_msg_alloc() and
 *	ramster_msg_alloc_reserved()
 * @reserved: from the reserve of small frames (ramster_msg_alloc_reserved()),
 *	given back to it when freed
 * @hdr: the header; ramster_send() fills in everything but type and plen
 * @payload: hdr.plen bytes
 */
struct ramster_msg {
	struct list_head list;
	u32 flags;
	bool reserved;
	struct ramster_wire_hdr hdr;
	u8 payload[];
};

/**
 * struct ramster_req - a request that waits for a reply
 * @list: in the peer's list of pending requests
 * @id: hdr.req_id of the request, set by ramster_send()
 * @reply_type: the message type that answers it
 * @node: the node it went to
 * @sent: when it was queued (ktime), for the round-trip time
 * @done: called exactly once: with 0 and the validated reply (from the
 *	peer's receive thread), or with a negative errno and NULL when the
 *	link goes down or the request times out.  It must not sleep long.
 */
struct ramster_req {
	struct list_head list;
	u64 id;
	u8 reply_type;
	u8 node;
	ktime_t sent;
	void (*done)(struct ramster_req *req, int err,
		     const struct ramster_wire_hdr *hdr, const void *payload);
};

/**
 * struct ramster_handler - one row of a service's table: what a message
 * type is and who acts on it
 * @type: enum ramster_wire_type
 * @rule: the protocol's rule for its payload (RAMSTER_WIRE_RULE_*)
 * @fn: called from the sender's link thread with the validated frame;
 *	a negative return takes the link down, so a handler short of memory
 *	answers "not now" (RAMSTER_ST_NO_MEMORY) or nothing, and returns 0:
 *	it must not block on allocation (GFP_NOWAIT) either.  NULL for a
 *	reply type: the frame goes to the ramster_req waiting for it
 *	(matched by req_id).
 *
 * The frames of one link are handled one at a time, in order.
 */
struct ramster_handler {
	u8 type;
	struct ramster_wire_rule rule;
	int (*fn)(void *ctx, u8 node, const struct ramster_wire_hdr *hdr,
		  const void *payload);
};

/**
 * struct ramster_link_events - what a service hears of the links
 * @attach: the transport starts with a link to @peer (process context,
 *	before any other event for it); @local is this node
 * @up: the link to @node is live
 * @down: it went down (called before the requests pending on it fail)
 * @restarted: the handshake named a new instance of @node (it reloaded
 *	and forgot what it knew); called before @up
 * @tick: every keepalive interval on a live link, and once at @up, from
 *	its link thread: fill in what the KEEPALIVE about to be sent should
 *	carry (zeroed before the first service's tick) and send what else
 *	the interval calls for (it goes out before the KEEPALIVE)
 *
 * Every member may be NULL.  All but @attach run on @node's link thread.
 */
struct ramster_link_events {
	void (*attach)(void *ctx, const struct ramster_node_info *local,
		       const struct ramster_node_info *peer);
	void (*up)(void *ctx, u8 node);
	void (*down)(void *ctx, u8 node);
	void (*restarted)(void *ctx, u8 node);
	void (*tick)(void *ctx, u8 node, struct ramster_wire_keepalive *ka);
};

/**
 * struct ramster_service - a user of the transport
 * @name: for messages
 * @handlers: its table
 * @nr_handlers: rows in @handlers
 * @events: may be NULL
 * @ctx: passed to every handler and event
 * @list: private to the transport
 */
struct ramster_service {
	const char *name;
	const struct ramster_handler *handlers;
	unsigned int nr_handlers;
	const struct ramster_link_events *events;
	void *ctx;
	struct list_head list;
};

int ramster_transport_register(struct ramster_service *svc);
void ramster_transport_unregister(struct ramster_service *svc);
void ramster_transport_sync_events(void);

/* The largest payload ramster_msg_alloc_reserved() takes. */
#define RAMSTER_MSG_RESERVED_PLEN	32

struct ramster_msg *ramster_msg_alloc(u8 type, u32 plen, gfp_t gfp);
struct ramster_msg *ramster_msg_alloc_reserved(u8 type, u32 plen);
void ramster_msg_free(struct ramster_msg *msg);
int ramster_send(u8 node, struct ramster_msg *msg, struct ramster_req *req);
int ramster_send_if(u8 node, u32 cap, struct ramster_msg *msg,
		    struct ramster_req *req);
int ramster_send_reply(u8 node, const struct ramster_wire_hdr *request,
		       struct ramster_msg *msg);
bool ramster_req_cancel(struct ramster_req *req);
int ramster_req_wait(struct ramster_req *req, struct completion *done,
		     unsigned long timeout);

int ramster_transport_init(struct dentry *debugfs_root);
void ramster_transport_stop(void);
void ramster_transport_exit(void);
int ramster_transport_start(const struct ramster_node_info *local);
bool ramster_transport_running(void);
unsigned int ramster_transport_request_timeout_ms(void);
bool ramster_link_has_cap(u8 node, u32 cap);

#endif /* _RAMSTER_TRANSPORT_H */
