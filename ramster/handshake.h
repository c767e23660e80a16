/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handshake.h - opening a link: HELLO, HELLO_REPLY and, with the cluster
 * key, the AUTH exchange (wire.h), on a freshly connected socket
 */
#ifndef _RAMSTER_HANDSHAKE_H
#define _RAMSTER_HANDSHAKE_H

#include <linux/types.h>

#include "auth.h"
#include "wire.h"

struct socket;

/**
 * struct ramster_handshake - what a handshake agreed on
 * @version: the protocol version of the link
 * @node: the other node's number
 * @instance: the other node's instance
 * @caps: the RAMSTER_CAP_* the other node offered (what it can do; the
 *	proofs of an authenticated handshake cover them)
 * @auth: frames carry tags: @tx and @rx are keyed
 * @encrypt: and their payloads are encrypted
 * @tx: the sending direction
 * @rx: the receiving direction
 */
struct ramster_handshake {
	u8 version;
	u16 node;
	u32 instance;
	u32 caps;
	bool auth;
	bool encrypt;
	struct ramster_aead tx;
	struct ramster_aead rx;
};

/**
 * struct ramster_handshake_side - who this node is in a handshake
 * @me: cluster name, node number, instance (capabilities are filled in)
 * @buf: RAMSTER_FRAME_BUF_SIZE bytes to read frames into
 * @timeout_ms: the whole handshake's deadline, from @start
 * @start: jiffies when the connection was made or accepted
 * @who: names the connection in messages
 * @vet: the accepting side's question, once the HELLO is read and valid:
 *	may node @node open a link from here?  NULL, or why not
 * @ctx: for @vet
 */
struct ramster_handshake_side {
	struct ramster_wire_hello_id me;
	u8 *buf;
	unsigned int timeout_ms;
	unsigned long start;
	const char *who;
	const char *(*vet)(void *ctx, u16 node);
	void *ctx;
};

int ramster_handshake_connect(struct socket *sock,
			      struct ramster_handshake_side *side, u16 peer,
			      struct ramster_handshake *hs);
int ramster_handshake_accept(struct socket *sock,
			     struct ramster_handshake_side *side,
			     struct ramster_handshake *hs);
void ramster_handshake_release(struct ramster_handshake *hs);
int ramster_handshake_may_start(void);
const char *ramster_handshake_security(const struct ramster_handshake *hs);

#endif /* _RAMSTER_HANDSHAKE_H */
