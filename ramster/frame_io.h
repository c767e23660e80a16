/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_io.h - frames on a kernel TCP socket: sealed, sent, received,
 * validated and opened; the link layer's lowest part
 */
#ifndef _RAMSTER_FRAME_IO_H
#define _RAMSTER_FRAME_IO_H

#include <linux/types.h>

#include "auth.h"
#include "wire.h"

struct socket;

/* The largest frame on the wire: header, PUT or GET_REPLY, tag. */
#define RAMSTER_FRAME_BUF_SIZE	(RAMSTER_WIRE_HDR_SIZE + \
				 sizeof(struct ramster_wire_page) + \
				 RAMSTER_WIRE_MAX_DATA + RAMSTER_WIRE_TAG_LEN)

/**
 * struct ramster_frame_reader - how one connection reads its frames
 * @sock: the connection
 * @buf: RAMSTER_FRAME_BUF_SIZE bytes: the frame read last
 * @expect: what the connection knows (wire.h); with @aead, its seq is
 *	kept in step with @aead's
 * @aead: the receiving direction of an authenticated link, or NULL
 * @rule_of: the rule of a message type; false if nobody handles it
 * @idle: a live link's reader: called whenever the socket's receive
 *	timeout passes with the frame incomplete; a negative return ends
 *	the read.  NULL for a handshake: then @deadline bounds the whole
 *	frame, however its bytes trickle in
 * @ctx: for @idle
 * @deadline: jiffies; see @idle
 * @last_rx: if not NULL, set to jiffies whenever bytes arrive
 * @who: names the connection in messages
 */
struct ramster_frame_reader {
	struct socket *sock;
	u8 *buf;
	struct ramster_wire_expect expect;
	struct ramster_aead *aead;
	bool (*rule_of)(u8 type, struct ramster_wire_rule *rule);
	int (*idle)(void *ctx);
	void *ctx;
	unsigned long deadline;
	unsigned long *last_rx;
	const char *who;
};

int ramster_frame_send(struct socket *sock, struct ramster_wire_hdr *hdr,
		       struct ramster_aead *aead);
int ramster_frame_recv(struct ramster_frame_reader *reader);

#endif /* _RAMSTER_FRAME_IO_H */
