/* SPDX-License-Identifier: GPL-2.0 */
/*
 * transport_internal.h - what transport.c shares with transport_debug.c
 * only; services use transport.h
 */
#ifndef _RAMSTER_TRANSPORT_INTERNAL_H
#define _RAMSTER_TRANSPORT_INTERNAL_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "cluster.h"
#include "handshake.h"

enum ramster_link_state {
	RAMSTER_LINK_DOWN,
	RAMSTER_LINK_CONNECTING,
	RAMSTER_LINK_HANDSHAKE,
	RAMSTER_LINK_LIVE,
	RAMSTER_NR_LINK_STATES
};

/**
 * struct ramster_peer - another node and our link to it
 * @info: its configuration
 * @we_connect: our number is higher: we connect, it accepts
 * @thread: runs the link (see transport.c)
 * @wait: the thread waits here for a handed-over socket or a stop
 * @lock: protects the fields below it, up to @tx_mutex
 * @state: enum ramster_link_state
 * @accepted: a connection accepted and authenticated by a handshake work
 *	item, for the thread to take
 * @accepted_hs: what that handshake agreed on (its keys)
 * @version: protocol version of the live link
 * @security: "encrypted", "authenticated" or "insecure": the live link's
 * @caps: RAMSTER_CAP_* the peer offered in the live link's handshake
 * @instance: the peer's instance as of the last handshake
 * @instance_known: @instance is valid
 * @txq: frames waiting for the tx work
 * @txq_bytes: bytes of the frames on @txq
 * @txq_page_bytes: of @txq_bytes, those of the frames that carry pages
 *	(RAMSTER_MSG_F_BOUNDED): at most link_queue_kb plus one frame
 * @txq_max_bytes: the most @txq_bytes has been under @txq_max_bound
 * @txq_page_max_bytes: the most @txq_page_bytes has been, the same way
 * @txq_max_bound: link_queue_kb (in bytes) when the two above were last
 *	reset: the first frame queued after link_queue_kb changed starts
 *	them again from the queue as it is, so they tell how the bound in
 *	force behaves (once a queue above a lowered bound has drained)
 * @txq_refused: page-sized frames refused because @txq was full
 * @pending: requests waiting for their replies, oldest first
 * @next_req_id: id of the next request
 * @last_rx: jiffies of the last byte received
 * @last_keepalive: jiffies of the last keepalive queued
 * @link_ups: times the link came up
 * @link_downs: times it went down
 * @frames_handled: frames of a live link handed to a service or a
 *	request (written by the peer's thread only)
 * @tx_mutex: serialises the tx work; protects @tx_sock and @tx_aead
 * @tx_sock: the live socket, for the tx work
 * @tx_aead: the live link's sending direction, NULL if insecure
 * @tx_work: sends @txq
 * @rxbuf: one received frame
 * @debugfs: its files in peers/<num>/ (transport_debug.c)
 */
struct ramster_peer {
	struct ramster_node_info info;
	bool we_connect;
	struct task_struct *thread;
	wait_queue_head_t wait;

	spinlock_t lock;		/* see above */
	enum ramster_link_state state;
	struct socket *accepted;
	struct ramster_handshake accepted_hs;
	u8 version;
	const char *security;
	u32 caps;
	u32 instance;
	bool instance_known;
	struct list_head txq;
	u64 txq_bytes;
	u64 txq_page_bytes;
	u64 txq_max_bytes;
	u64 txq_page_max_bytes;
	u64 txq_max_bound;
	u64 txq_refused;
	struct list_head pending;
	u64 next_req_id;
	unsigned long last_rx;
	unsigned long last_keepalive;
	u64 link_ups;
	u64 link_downs;
	u64 frames_handled;

	struct mutex tx_mutex;		/* see above */
	struct socket *tx_sock;
	struct ramster_aead *tx_aead;
	struct work_struct tx_work;

	u8 *rxbuf;
	struct dentry *debugfs[9];
};

extern struct ramster_peer *ramster_peers[RAMSTER_MAX_NODES];

const char *ramster_link_state_name(enum ramster_link_state state);

#ifdef CONFIG_DEBUG_FS
void ramster_transport_debugfs_init(struct dentry *root);
void ramster_peer_debugfs_add(struct ramster_peer *peer);
void ramster_peer_debugfs_remove(struct ramster_peer *peer);
#else
static inline void ramster_transport_debugfs_init(struct dentry *root) { }
static inline void ramster_peer_debugfs_add(struct ramster_peer *peer) { }
static inline void ramster_peer_debugfs_remove(struct ramster_peer *peer) { }
#endif

#endif /* _RAMSTER_TRANSPORT_INTERNAL_H */
