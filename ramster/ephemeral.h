/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ephemeral.h - this node's ephemeral pages on other nodes: where one
 * goes, and its PUT, GET and INVALIDATE frames
 */
#ifndef _RAMSTER_EPHEMERAL_H
#define _RAMSTER_EPHEMERAL_H

#include <linux/types.h>

#include "transport.h"

/**
 * struct ramster_eph_put - an ephemeral PUT waiting for its reply
 * @req: the request (private)
 * @gen: the page's name and version
 * @crc: crc32c of the data sent (set by ramster_eph_put())
 * @hash: its keyed hash (set by ramster_eph_put())
 * @done: called once, from a link thread, with 0 if @req.node holds the
 *	page now, or a negative errno; it owns @put then
 */
struct ramster_eph_put {
	struct ramster_req req;
	u64 gen;
	u32 crc;
	u64 hash;
	void (*done)(struct ramster_eph_put *put, int err);
};

int ramster_eph_pick(u8 *node);
int ramster_eph_put(u8 node, struct ramster_eph_put *put, const void *data,
		    u32 len);
int ramster_eph_get(u8 node, u64 gen, void *buf, u32 len, u32 crc, u64 hash,
		    unsigned int timeout_ms);
int ramster_eph_invalidate(u8 node, const u64 *gens, unsigned int count);

#endif /* _RAMSTER_EPHEMERAL_H */
