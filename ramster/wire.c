// SPDX-License-Identifier: GPL-2.0
/*
 * wire.c - validation of received frames (see wire.h for the format)
 *
 * A receiver reads the fixed-size header, checks it with
 * ramster_wire_check_hdr() before it reads a byte of payload (the length
 * is then known to be within the bounds of the type), reads the payload,
 * and checks it with ramster_wire_check_payload() before dispatching.
 * Both are pure functions of their arguments: every rule is pinned down by
 * the KUnit suite in wire_test.c.
 */
#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ramster.h"
#include "wire.h"

struct ramster_wire_size {
	u32 min;
	u32 max;
};

#define PAGE_FRAME	sizeof(struct ramster_wire_page)
#define INVAL_FRAME	sizeof(struct ramster_wire_invalidate)
#define KEY_SIZE	sizeof(struct ramster_wire_key)

/* Payload size bounds per type: a length outside them is never read. */
static const struct ramster_wire_size ramster_wire_sizes[RAMSTER_MSG_NR_TYPES] = {
	[RAMSTER_MSG_HELLO] = { 32, 32 },
	[RAMSTER_MSG_HELLO_REPLY] = { 32, 32 },
	[RAMSTER_MSG_KEEPALIVE] = { 16, 16 },
	[RAMSTER_MSG_PUT] = { PAGE_FRAME + 1, PAGE_FRAME + RAMSTER_WIRE_MAX_DATA },
	[RAMSTER_MSG_PUT_REPLY] = { 32, 32 },
	[RAMSTER_MSG_GET] = { KEY_SIZE, KEY_SIZE },
	[RAMSTER_MSG_GET_REPLY] = { PAGE_FRAME, PAGE_FRAME + RAMSTER_WIRE_MAX_DATA },
	[RAMSTER_MSG_INVALIDATE] = { INVAL_FRAME + KEY_SIZE,
		INVAL_FRAME + KEY_SIZE * RAMSTER_WIRE_MAX_INVALIDATE },
	[RAMSTER_MSG_INVALIDATE_AREA] = { 16, 16 },
	[RAMSTER_MSG_RECALL] = { 16, 16 },
	[RAMSTER_MSG_GOODBYE] = { 0, 0 },
};

static const char * const ramster_wire_error_names[RAMSTER_WIRE_NR_ERRORS] = {
	[RAMSTER_WIRE_OK] = "ok",
	[RAMSTER_WIRE_BAD_MAGIC] = "bad magic",
	[RAMSTER_WIRE_BAD_VERSION] = "bad version",
	[RAMSTER_WIRE_UNKNOWN_TYPE] = "unknown type",
	[RAMSTER_WIRE_BAD_FLAGS] = "unknown flags",
	[RAMSTER_WIRE_BAD_RESERVED] = "reserved field not zero",
	[RAMSTER_WIRE_BAD_LENGTH] = "payload length out of bounds for its type",
	[RAMSTER_WIRE_BAD_NODE] = "sender is not the node of the handshake",
	[RAMSTER_WIRE_BEFORE_HANDSHAKE] = "frame before the handshake",
	[RAMSTER_WIRE_BAD_CRC] = "payload checksum mismatch",
	[RAMSTER_WIRE_BAD_PAYLOAD] = "malformed payload",
};

const char *ramster_wire_error_name(enum ramster_wire_error err)
{
	if (err >= RAMSTER_WIRE_NR_ERRORS)
		return "unknown error";
	return ramster_wire_error_names[err];
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_wire_error_name);

static bool ramster_wire_is_hello(u8 type)
{
	return type == RAMSTER_MSG_HELLO || type == RAMSTER_MSG_HELLO_REPLY;
}

/**
 * ramster_wire_check_hdr - check a received header before reading payload
 * @hdr: the header, as received
 * @expect: what the connection knows: negotiated version and peer
 *
 * Return: RAMSTER_WIRE_OK, or the first rule the header breaks.
 */
enum ramster_wire_error ramster_wire_check_hdr(const struct ramster_wire_hdr *hdr,
					       const struct ramster_wire_expect *expect)
{
	u32 plen = le32_to_cpu(hdr->plen);
	u8 type = hdr->type;

	if (le32_to_cpu(hdr->magic) != RAMSTER_WIRE_MAGIC)
		return RAMSTER_WIRE_BAD_MAGIC;
	if (type == 0 || type >= RAMSTER_MSG_NR_TYPES)
		return RAMSTER_WIRE_UNKNOWN_TYPE;
	if (!expect->handshake_done) {
		if (!ramster_wire_is_hello(type))
			return RAMSTER_WIRE_BEFORE_HANDSHAKE;
		/* Any version may say hello: the payload negotiates. */
		if (hdr->version == 0)
			return RAMSTER_WIRE_BAD_VERSION;
	} else if (hdr->version != expect->version) {
		return RAMSTER_WIRE_BAD_VERSION;
	}
	if (le16_to_cpu(hdr->flags) & ~RAMSTER_F_KNOWN)
		return RAMSTER_WIRE_BAD_FLAGS;
	if (hdr->rsvd0 || hdr->rsvd1)
		return RAMSTER_WIRE_BAD_RESERVED;
	if (plen < ramster_wire_sizes[type].min ||
	    plen > ramster_wire_sizes[type].max)
		return RAMSTER_WIRE_BAD_LENGTH;
	if (expect->handshake_done &&
	    le16_to_cpu(hdr->src_node) != expect->peer_node)
		return RAMSTER_WIRE_BAD_NODE;
	return RAMSTER_WIRE_OK;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_wire_check_hdr);

static bool ramster_wire_key_ok(const struct ramster_wire_key *key)
{
	return !key->rsvd0 && !key->rsvd1 &&
	       le16_to_cpu(key->swap_type) < RAMSTER_WIRE_MAX_SWAP_TYPES;
}

static bool ramster_wire_status_known(__le32 status)
{
	return le32_to_cpu(status) <= RAMSTER_ST_NO_MEMORY;
}

static bool ramster_wire_status_ok(const struct ramster_wire_status *st)
{
	return ramster_wire_key_ok(&st->key) && !st->rsvd &&
	       ramster_wire_status_known(st->status);
}

static bool ramster_wire_hello_ok(const struct ramster_wire_hello *hello)
{
	return hello->min_version >= 1 &&
	       hello->min_version <= hello->max_version &&
	       !hello->rsvd0 && !hello->capabilities &&
	       hello->cluster[0] &&
	       memchr(hello->cluster, '\0', sizeof(hello->cluster));
}

static bool ramster_wire_page_ok(const struct ramster_wire_page *page,
				 u32 plen, bool reply)
{
	u32 clen = le32_to_cpu(page->clen);

	if (!ramster_wire_key_ok(&page->key) || page->rsvd[0] ||
	    page->rsvd[1] || page->rsvd[2])
		return false;
	if (clen != plen - sizeof(*page))
		return false;
	if (reply) {
		if (!ramster_wire_status_known(page->status))
			return false;
		/* A failed GET_REPLY carries no data, a good one some. */
		if (page->status != cpu_to_le32(RAMSTER_ST_OK))
			return clen == 0;
	} else if (page->status) {
		return false;
	}
	return clen > 0 && page->compressor >= RAMSTER_COMP_LZ4 &&
	       page->compressor <= RAMSTER_COMP_ZSTD;
}

static bool ramster_wire_invalidate_ok(const struct ramster_wire_invalidate *inv,
				       u32 plen)
{
	const struct ramster_wire_key *keys = (const void *)(inv + 1);
	u32 i, count = le32_to_cpu(inv->count);

	if (inv->rsvd || count == 0 || count > RAMSTER_WIRE_MAX_INVALIDATE ||
	    plen != sizeof(*inv) + count * sizeof(*keys))
		return false;
	for (i = 0; i < count; i++)
		if (!ramster_wire_key_ok(&keys[i]))
			return false;
	return true;
}

/**
 * ramster_wire_check_payload - check a payload before dispatching it
 * @hdr: its header, already accepted by ramster_wire_check_hdr()
 * @payload: hdr->plen bytes
 *
 * Return: RAMSTER_WIRE_OK, RAMSTER_WIRE_BAD_CRC, or RAMSTER_WIRE_BAD_PAYLOAD.
 */
enum ramster_wire_error ramster_wire_check_payload(const struct ramster_wire_hdr *hdr,
						   const void *payload)
{
	u32 plen = le32_to_cpu(hdr->plen);
	const struct ramster_wire_area *area = payload;
	bool ok;

	if (crc32c(0, payload, plen) != le32_to_cpu(hdr->pcrc))
		return RAMSTER_WIRE_BAD_CRC;

	switch (hdr->type) {
	case RAMSTER_MSG_HELLO:
	case RAMSTER_MSG_HELLO_REPLY:
		ok = ramster_wire_hello_ok(payload);
		break;
	case RAMSTER_MSG_PUT:
		ok = ramster_wire_page_ok(payload, plen, false);
		break;
	case RAMSTER_MSG_GET_REPLY:
		ok = ramster_wire_page_ok(payload, plen, true);
		break;
	case RAMSTER_MSG_PUT_REPLY:
		ok = ramster_wire_status_ok(payload);
		break;
	case RAMSTER_MSG_GET:
		ok = ramster_wire_key_ok(payload);
		break;
	case RAMSTER_MSG_INVALIDATE:
		ok = ramster_wire_invalidate_ok(payload, plen);
		break;
	case RAMSTER_MSG_INVALIDATE_AREA:
		ok = !area->rsvd0 && !area->rsvd1 &&
		     le16_to_cpu(area->swap_type) < RAMSTER_WIRE_MAX_SWAP_TYPES;
		break;
	case RAMSTER_MSG_RECALL:
		/* swap_type is reserved (a recall of one area) */
		ok = !area->rsvd0 && !area->rsvd1 && !area->swap_type;
		break;
	default:	/* KEEPALIVE, GOODBYE: any content of the right size */
		ok = true;
		break;
	}
	return ok ? RAMSTER_WIRE_OK : RAMSTER_WIRE_BAD_PAYLOAD;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_wire_check_payload);
