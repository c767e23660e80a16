// SPDX-License-Identifier: GPL-2.0
/*
 * wire.c - validation of received frames (see wire.h for the format)
 *
 * A receiver reads the fixed-size header, checks it with
 * ramster_wire_check_hdr() against the rule of its type (struct
 * ramster_wire_rule, named in the row of the handler registered for that
 * type) before it reads a byte of payload, reads the payload, and checks
 * it with ramster_wire_check_payload() before dispatching.  The HELLO
 * exchange is filled and checked here too.  All of it is pure functions
 * of the arguments: every rule is pinned down by the KUnit suite in
 * wire_test.c.
 */
#include <kunit/visibility.h>
#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ramster.h"
#include "wire.h"

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
	[RAMSTER_WIRE_BAD_SEQ] = "not the next sequence number (replayed, reordered or lost frame)",
};

const char *ramster_wire_error_name(enum ramster_wire_error err)
{
	if (err >= RAMSTER_WIRE_NR_ERRORS)
		return "unknown error";
	return ramster_wire_error_names[err];
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_error_name);

/* The frames of a handshake: before it is done, nothing else is read. */
static bool ramster_wire_is_handshake(u8 type)
{
	return type == RAMSTER_MSG_HELLO || type == RAMSTER_MSG_HELLO_REPLY ||
	       type == RAMSTER_MSG_AUTH;
}

/* The flags and seq every frame of a live link must carry. */
static enum ramster_wire_error
ramster_wire_check_auth(const struct ramster_wire_hdr *hdr,
			const struct ramster_wire_expect *expect)
{
	u16 flags = le16_to_cpu(hdr->flags);
	u16 want = 0;

	if (expect->handshake_done && expect->auth)
		want = RAMSTER_F_AUTH | (expect->encrypt ? RAMSTER_F_ENCRYPTED : 0);
	if (flags != want)
		return RAMSTER_WIRE_BAD_FLAGS;
	if (!want)
		return hdr->seq ? RAMSTER_WIRE_BAD_RESERVED : RAMSTER_WIRE_OK;
	/* The tag covers the payload; a crc of it in clear would leak. */
	if (hdr->pcrc)
		return RAMSTER_WIRE_BAD_RESERVED;
	if (le32_to_cpu(hdr->seq) != expect->seq)
		return RAMSTER_WIRE_BAD_SEQ;
	return RAMSTER_WIRE_OK;
}

/**
 * ramster_wire_check_hdr - check a received header before reading payload
 * @hdr: the header, as received
 * @expect: what the connection knows: negotiated version and peer
 * @rule: the rule of the header's type; NULL if nobody handles that type
 *
 * Return: RAMSTER_WIRE_OK, or the first rule the header breaks.
 */
enum ramster_wire_error ramster_wire_check_hdr(const struct ramster_wire_hdr *hdr,
					       const struct ramster_wire_expect *expect,
					       const struct ramster_wire_rule *rule)
{
	u32 plen = le32_to_cpu(hdr->plen);
	u8 type = hdr->type;

	if (le32_to_cpu(hdr->magic) != RAMSTER_WIRE_MAGIC)
		return RAMSTER_WIRE_BAD_MAGIC;
	if (type == 0 || type >= RAMSTER_MSG_NR_TYPES)
		return RAMSTER_WIRE_UNKNOWN_TYPE;
	/* Before the rule: a handshake reader knows no data type's rule. */
	if (!expect->handshake_done && !ramster_wire_is_handshake(type))
		return RAMSTER_WIRE_BEFORE_HANDSHAKE;
	if (!rule)
		return RAMSTER_WIRE_UNKNOWN_TYPE;
	if (!expect->handshake_done) {
		/* Any version may say hello: the payload negotiates. */
		if (hdr->version == 0)
			return RAMSTER_WIRE_BAD_VERSION;
	} else if (hdr->version != expect->version) {
		return RAMSTER_WIRE_BAD_VERSION;
	}
	if (le16_to_cpu(hdr->flags) & ~RAMSTER_F_KNOWN)
		return RAMSTER_WIRE_BAD_FLAGS;
	if (hdr->rsvd0)
		return RAMSTER_WIRE_BAD_RESERVED;
	if (plen < rule->min_len || plen > rule->max_len)
		return RAMSTER_WIRE_BAD_LENGTH;
	if (expect->handshake_done &&
	    le16_to_cpu(hdr->src_node) != expect->peer_node)
		return RAMSTER_WIRE_BAD_NODE;
	return ramster_wire_check_auth(hdr, expect);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_check_hdr);

/* A swap slot's page, or an ephemeral page (never in an area or recall). */
static bool ramster_wire_key_ok(const struct ramster_wire_key *key)
{
	u16 type = le16_to_cpu(key->swap_type);

	return !key->rsvd0 && !key->rsvd1 &&
	       (type < RAMSTER_WIRE_MAX_SWAP_TYPES ||
		type == RAMSTER_WIRE_EPHEMERAL_TYPE);
}

static bool ramster_wire_status_known(__le32 status)
{
	return le32_to_cpu(status) <= RAMSTER_ST_NO_MEMORY;
}

/* PUT_REPLY */
bool ramster_wire_status_valid(const void *payload, u32 plen)
{
	const struct ramster_wire_status *st = payload;

	return ramster_wire_key_ok(&st->key) && !st->rsvd &&
	       ramster_wire_status_known(st->status);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_status_valid);

bool ramster_wire_hello_valid(const void *payload, u32 plen)
{
	const struct ramster_wire_hello *hello = payload;

	/* Version 1's hello had no nonce: it is read to be refused. */
	if (plen == RAMSTER_WIRE_HELLO_V1_LEN) {
		if (hello->max_version != 1 || hello->capabilities)
			return false;
	} else if (plen != sizeof(*hello) || hello->max_version < 2) {
		return false;
	}
	/*
	 * Capability bits this version does not know are ignored, not
	 * refused: a later version may offer more, and the handshake's
	 * proofs cover every bit, so none can be stripped or added.
	 */
	return hello->min_version >= 1 &&
	       hello->min_version <= hello->max_version &&
	       !hello->rsvd0 &&
	       hello->cluster[0] &&
	       memchr(hello->cluster, '\0', sizeof(hello->cluster));
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_hello_valid);

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
	if (page->compressor == RAMSTER_COMP_RAW)
		return clen == RAMSTER_WIRE_RAW_LEN;
	return clen > 0 && page->compressor >= RAMSTER_COMP_LZ4 &&
	       page->compressor <= RAMSTER_COMP_ZSTD;
}

bool ramster_wire_put_valid(const void *payload, u32 plen)
{
	return ramster_wire_page_ok(payload, plen, false);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_put_valid);

bool ramster_wire_get_reply_valid(const void *payload, u32 plen)
{
	return ramster_wire_page_ok(payload, plen, true);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_get_reply_valid);

/* GET */
bool ramster_wire_key_valid(const void *payload, u32 plen)
{
	return ramster_wire_key_ok(payload);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_key_valid);

bool ramster_wire_invalidate_valid(const void *payload, u32 plen)
{
	const struct ramster_wire_invalidate *inv = payload;
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
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_invalidate_valid);

/* INVALIDATE_AREA */
bool ramster_wire_area_valid(const void *payload, u32 plen)
{
	const struct ramster_wire_area *area = payload;

	return !area->rsvd0 && !area->rsvd1 &&
	       le16_to_cpu(area->swap_type) < RAMSTER_WIRE_MAX_SWAP_TYPES;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_area_valid);

/* RECALL: swap_type is reserved (a recall of one area) */
bool ramster_wire_recall_valid(const void *payload, u32 plen)
{
	const struct ramster_wire_area *area = payload;

	return !area->rsvd0 && !area->rsvd1 && !area->swap_type;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_recall_valid);

/* A swap page's key: reconciliation never lists ephemeral pages. */
static bool ramster_wire_swap_key_ok(const struct ramster_wire_key *key)
{
	return !key->rsvd0 && !key->rsvd1 &&
	       le16_to_cpu(key->swap_type) < RAMSTER_WIRE_MAX_SWAP_TYPES;
}

/* RECONCILE: a cursor (zero with F_START) and a sane page size */
bool ramster_wire_reconcile_valid(const void *payload, u32 plen)
{
	const struct ramster_wire_reconcile *rc = payload;
	u16 flags = le16_to_cpu(rc->flags);
	u32 max = le32_to_cpu(rc->max_keys);

	if (flags & ~RAMSTER_RECONCILE_F_START || !max ||
	    max > RAMSTER_WIRE_MAX_RECONCILE ||
	    le16_to_cpu(rc->swap_type) >= RAMSTER_WIRE_MAX_SWAP_TYPES)
		return false;
	return !(flags & RAMSTER_RECONCILE_F_START) ||
	       (!rc->swap_type && !rc->offset);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_reconcile_valid);

/*
 * RECONCILE_REPLY: the length is the count's, every key a swap key; no
 * keys unless the status is OK.  The order of the keys is checked by the
 * owner against its request (ramster_wire_reconcile_keys_follow()): a
 * reply out of order is ignored and counted, the link stays.
 */
bool ramster_wire_reconcile_reply_valid(const void *payload, u32 plen)
{
	const struct ramster_wire_reconcile_reply *rr = payload;
	const struct ramster_wire_key *keys = (const void *)(rr + 1);
	u32 i, count = le32_to_cpu(rr->count);
	u16 status = le16_to_cpu(rr->status);

	if (count > RAMSTER_WIRE_MAX_RECONCILE ||
	    plen != sizeof(*rr) + count * sizeof(*keys) ||
	    le16_to_cpu(rr->flags) & ~RAMSTER_RECONCILE_F_END ||
	    (status != RAMSTER_ST_OK && status != RAMSTER_ST_NO_MEMORY) ||
	    (status != RAMSTER_ST_OK && count))
		return false;
	for (i = 0; i < count; i++)
		if (!ramster_wire_swap_key_ok(&keys[i]))
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_reconcile_reply_valid);

/**
 * ramster_wire_key_cmp - where a key sorts against a (type, offset)
 * @a: the key
 * @type: a swap type
 * @offset: an offset in it
 *
 * Return: -1, 0 or 1 as @a sorts before, with or after (@type, @offset):
 * the order RECONCILE lists keys in.
 */
int ramster_wire_key_cmp(const struct ramster_wire_key *a, unsigned int type,
			 u64 offset)
{
	unsigned int at = le16_to_cpu(a->swap_type);
	u64 ao = le64_to_cpu(a->offset);

	if (at != type)
		return at < type ? -1 : 1;
	if (ao != offset)
		return ao < offset ? -1 : 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_key_cmp);

/**
 * ramster_wire_reconcile_keys_follow - do a reply's keys answer a request?
 * @req: the RECONCILE sent
 * @keys: the validated reply's keys
 * @count: how many, at most @req->max_keys
 *
 * Return: true if there are no more keys than asked for, in strictly
 * increasing (swap_type, offset) order, the first after the request's
 * cursor (any, from the start).
 */
bool ramster_wire_reconcile_keys_follow(const struct ramster_wire_reconcile *req,
					const struct ramster_wire_key *keys,
					u32 count)
{
	u16 type = le16_to_cpu(req->swap_type);
	u64 offset = le64_to_cpu(req->offset);
	bool start = le16_to_cpu(req->flags) & RAMSTER_RECONCILE_F_START;
	u32 i;

	if (count > le32_to_cpu(req->max_keys))
		return false;
	for (i = 0; i < count; i++) {
		if (!start && ramster_wire_key_cmp(&keys[i], type, offset) <= 0)
			return false;
		start = false;
		type = le16_to_cpu(keys[i].swap_type);
		offset = le64_to_cpu(keys[i].offset);
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_reconcile_keys_follow);

/**
 * ramster_wire_check_payload - check a payload before dispatching it
 * @hdr: its header, already accepted by ramster_wire_check_hdr()
 * @payload: hdr->plen bytes
 * @rule: the rule the header was checked with
 *
 * A frame with RAMSTER_F_AUTH has no crc: its tag, checked (and the
 * payload decrypted) before this, covers it.
 *
 * Return: RAMSTER_WIRE_OK, RAMSTER_WIRE_BAD_CRC, or RAMSTER_WIRE_BAD_PAYLOAD.
 */
enum ramster_wire_error ramster_wire_check_payload(const struct ramster_wire_hdr *hdr,
						   const void *payload,
						   const struct ramster_wire_rule *rule)
{
	u32 plen = le32_to_cpu(hdr->plen);

	if (!(le16_to_cpu(hdr->flags) & RAMSTER_F_AUTH) &&
	    crc32c(0, payload, plen) != le32_to_cpu(hdr->pcrc))
		return RAMSTER_WIRE_BAD_CRC;
	if (rule->valid && !rule->valid(payload, plen))
		return RAMSTER_WIRE_BAD_PAYLOAD;
	return RAMSTER_WIRE_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_check_payload);

/**
 * ramster_wire_hello_fill - say hello (HELLO or HELLO_REPLY payload)
 * @hello: the payload to fill
 * @me: who we are
 * @peer: whom we believe we talk to
 * @nonce: RAMSTER_WIRE_NONCE_LEN fresh random bytes
 */
void ramster_wire_hello_fill(struct ramster_wire_hello *hello,
			     const struct ramster_wire_hello_id *me, u16 peer,
			     const u8 *nonce)
{
	memset(hello, 0, sizeof(*hello));
	hello->min_version = RAMSTER_WIRE_MIN_VERSION;
	hello->max_version = RAMSTER_WIRE_VERSION;
	hello->node = cpu_to_le16(me->node);
	hello->peer_node = cpu_to_le16(peer);
	strscpy(hello->cluster, me->cluster, sizeof(hello->cluster));
	hello->instance = cpu_to_le32(me->instance);
	hello->capabilities = cpu_to_le32(me->capabilities);
	memcpy(hello->nonce, nonce, RAMSTER_WIRE_NONCE_LEN);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_hello_fill);

/**
 * ramster_wire_hello_check - check a validated HELLO or HELLO_REPLY
 * @hdr: its header
 * @hello: its payload
 * @me: who we are
 * @why: set to the reason when the hello is refused
 *
 * Whether the sender is a node we have a link with is the transport's
 * question, not this one's.
 *
 * Return: the negotiated protocol version, or 0 with *@why set.
 */
u8 ramster_wire_hello_check(const struct ramster_wire_hdr *hdr,
			    const struct ramster_wire_hello *hello,
			    const struct ramster_wire_hello_id *me,
			    const char **why)
{
	u8 version = min_t(u8, hello->max_version, RAMSTER_WIRE_VERSION);

	if (version < max_t(u8, hello->min_version, RAMSTER_WIRE_MIN_VERSION)) {
		*why = "no common protocol version";
		return 0;
	}
	if (strncmp(hello->cluster, me->cluster, sizeof(hello->cluster))) {
		*why = "another cluster";
		return 0;
	}
	if (hello->node != hdr->src_node) {
		*why = "header and hello name different nodes";
		return 0;
	}
	if (le16_to_cpu(hello->node) == me->node) {
		*why = "it claims our own node number";
		return 0;
	}
	if (le16_to_cpu(hello->peer_node) != me->node) {
		*why = "it believes it talks to another node";
		return 0;
	}
	return version;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_hello_check);

/**
 * ramster_wire_link_mode - what a link protects, from both HELLOs' caps
 * @mine: RAMSTER_CAP_* this node offered
 * @theirs: RAMSTER_CAP_* the other node offered (unknown bits ignored)
 * @auth: set when the link authenticates every frame
 * @encrypt: set when it also encrypts payloads
 *
 * Both sides must agree on authentication: a keyed node never talks to
 * a keyless one, whichever connected, so a link cannot be downgraded.
 * An authenticated link is encrypted if either side asked for it.
 *
 * Return: NULL, or why the link is refused.
 */
const char *ramster_wire_link_mode(u32 mine, u32 theirs, bool *auth,
				   bool *encrypt)
{
	*auth = false;
	*encrypt = false;
	if ((mine & RAMSTER_CAP_AUTH) && !(theirs & RAMSTER_CAP_AUTH))
		return "it has no cluster key (loaded with insecure=1?): refused, we have one";
	if (!(mine & RAMSTER_CAP_AUTH) && (theirs & RAMSTER_CAP_AUTH))
		return "it has a cluster key and we have none";
	*auth = mine & RAMSTER_CAP_AUTH;
	*encrypt = *auth && ((mine | theirs) & RAMSTER_CAP_ENCRYPT);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_wire_link_mode);
