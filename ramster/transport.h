/* SPDX-License-Identifier: GPL-2.0 */
/*
 * transport.h - links to the other nodes over kernel TCP sockets
 */
#ifndef _RAMSTER_TRANSPORT_H
#define _RAMSTER_TRANSPORT_H

#include <linux/list.h>
#include <linux/types.h>

#include "cluster.h"
#include "wire.h"

struct ramster_peer;

/**
 * struct ramster_msg - one outgoing frame: header and payload in one buffer
 * @list: in the peer's send queue
 * @hdr: the header; ramster_send() fills in everything but type and plen
 * @payload: hdr.plen bytes
 */
struct ramster_msg {
	struct list_head list;
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

struct ramster_msg *ramster_msg_alloc(u8 type, u32 plen, gfp_t gfp);
void ramster_msg_free(struct ramster_msg *msg);
int ramster_send(u8 node, struct ramster_msg *msg, struct ramster_req *req);
bool ramster_req_cancel(struct ramster_req *req);

int ramster_transport_init(struct dentry *debugfs_root);
void ramster_transport_exit(void);
int ramster_transport_start(const struct ramster_node_info *local);
bool ramster_transport_running(void);
unsigned int ramster_transport_request_timeout_ms(void);
bool ramster_transport_may_remotify(void);
int ramster_transport_pick_holder(u8 *node);
void ramster_transport_note_rtt(u8 node, ktime_t sent);
void ramster_transport_held_there(u8 node, long delta);
u64 ramster_transport_held_there_count(u8 node);
void ramster_transport_live_holders(unsigned long *nodes);

#endif /* _RAMSTER_TRANSPORT_H */
