// SPDX-License-Identifier: GPL-2.0
/*
 * wire_test.c - KUnit suite for frame validation (wire.c)
 *
 * Every rule of ramster_wire_check_hdr() and ramster_wire_check_payload()
 * is broken once, starting from a valid frame of each type; every reason
 * ramster_wire_hello_check() refuses a hello is met once; the header
 * rules of an authenticated link (flags, crc, seq) likewise.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/string.h>

#include "wire.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define PEER	7

struct frame {
	struct ramster_wire_hdr hdr;
	union {
		u8 bytes[sizeof(struct ramster_wire_page) + RAMSTER_WIRE_MAX_DATA + 16];
		struct ramster_wire_hello hello;
		struct ramster_wire_page page;
		struct ramster_wire_status status;
		struct ramster_wire_key key;
		struct ramster_wire_invalidate inv;
		struct ramster_wire_area area;
	};
};

static const struct ramster_wire_expect before = { .handshake_done = false };
static const struct ramster_wire_expect after = {
	.handshake_done = true, .version = RAMSTER_WIRE_VERSION, .peer_node = PEER,
};

/* The protocol's rule of each type, as the services' handler rows name them. */
static const struct ramster_wire_rule rules[RAMSTER_MSG_NR_TYPES] = {
	[RAMSTER_MSG_HELLO] = RAMSTER_WIRE_RULE_HELLO,
	[RAMSTER_MSG_HELLO_REPLY] = RAMSTER_WIRE_RULE_HELLO,
	[RAMSTER_MSG_KEEPALIVE] = RAMSTER_WIRE_RULE_KEEPALIVE,
	[RAMSTER_MSG_PUT] = RAMSTER_WIRE_RULE_PUT,
	[RAMSTER_MSG_PUT_REPLY] = RAMSTER_WIRE_RULE_PUT_REPLY,
	[RAMSTER_MSG_GET] = RAMSTER_WIRE_RULE_GET,
	[RAMSTER_MSG_GET_REPLY] = RAMSTER_WIRE_RULE_GET_REPLY,
	[RAMSTER_MSG_INVALIDATE] = RAMSTER_WIRE_RULE_INVALIDATE,
	[RAMSTER_MSG_INVALIDATE_AREA] = RAMSTER_WIRE_RULE_INVALIDATE_AREA,
	[RAMSTER_MSG_RECALL] = RAMSTER_WIRE_RULE_RECALL,
	[RAMSTER_MSG_GOODBYE] = RAMSTER_WIRE_RULE_GOODBYE,
	[RAMSTER_MSG_AUTH] = RAMSTER_WIRE_RULE_AUTH,
	[RAMSTER_MSG_RECONCILE] = RAMSTER_WIRE_RULE_RECONCILE,
	[RAMSTER_MSG_RECONCILE_REPLY] = RAMSTER_WIRE_RULE_RECONCILE_REPLY,
};

static const struct ramster_wire_rule *rule_of(u8 type)
{
	return type < RAMSTER_MSG_NR_TYPES ? &rules[type] : NULL;
}

static void seal(struct frame *f, u32 plen)
{
	f->hdr.plen = cpu_to_le32(plen);
	f->hdr.pcrc = cpu_to_le32(crc32c(0, f->bytes, plen));
}

/* A valid frame of @type with payload length @plen (payload left zero). */
static struct frame *new_frame(struct kunit *test, u8 type)
{
	struct frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	f->hdr.magic = cpu_to_le32(RAMSTER_WIRE_MAGIC);
	f->hdr.version = RAMSTER_WIRE_VERSION;
	f->hdr.type = type;
	f->hdr.src_node = cpu_to_le16(PEER);
	f->hdr.req_id = cpu_to_le64(42);
	return f;
}

static struct frame *hello(struct kunit *test)
{
	struct frame *f = new_frame(test, RAMSTER_MSG_HELLO);

	f->hello.min_version = RAMSTER_WIRE_MIN_VERSION;
	f->hello.max_version = RAMSTER_WIRE_VERSION;
	f->hello.node = cpu_to_le16(PEER);
	strscpy(f->hello.cluster, "ramster", sizeof(f->hello.cluster));
	seal(f, sizeof(f->hello));
	return f;
}

static struct frame *put(struct kunit *test, u32 clen)
{
	struct frame *f = new_frame(test, RAMSTER_MSG_PUT);

	f->page.key.offset = cpu_to_le64(1234);
	f->page.key.gen = cpu_to_le64(5);
	f->page.key.swap_type = cpu_to_le16(1);
	f->page.clen = cpu_to_le32(clen);
	f->page.compressor = RAMSTER_COMP_LZ4;
	memset(f->bytes + sizeof(f->page), 0x5a, clen);
	seal(f, sizeof(f->page) + clen);
	return f;
}

/* A PUT (or GET_REPLY) of a raw page claiming @clen bytes. */
static struct frame *put_raw(struct kunit *test, u8 type, u32 clen)
{
	struct frame *f = put(test, clen);

	f->hdr.type = type;
	f->page.compressor = RAMSTER_COMP_RAW;
	seal(f, sizeof(f->page) + clen);
	return f;
}

static struct frame *invalidate(struct kunit *test, u32 count)
{
	struct frame *f = new_frame(test, RAMSTER_MSG_INVALIDATE);
	struct ramster_wire_key *keys = (void *)(f->bytes + sizeof(f->inv));
	u32 i;

	f->inv.count = cpu_to_le32(count);
	for (i = 0; i < count; i++)
		keys[i].offset = cpu_to_le64(i);
	seal(f, sizeof(f->inv) + count * sizeof(*keys));
	return f;
}

static enum ramster_wire_error check(struct frame *f,
				     const struct ramster_wire_expect *e)
{
	const struct ramster_wire_rule *rule = rule_of(f->hdr.type);
	enum ramster_wire_error err = ramster_wire_check_hdr(&f->hdr, e, rule);

	return err ? err : ramster_wire_check_payload(&f->hdr, f->bytes, rule);
}

/* A RECONCILE_REPLY of @count keys at offsets 10, 20, ... of type 1. */
static void *reconcile_reply(struct kunit *test, u32 count, u32 *plen)
{
	struct ramster_wire_reconcile_reply *rr;
	struct ramster_wire_key *keys;
	u32 i;

	*plen = sizeof(*rr) + count * sizeof(*keys);
	rr = kunit_kzalloc(test, *plen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	rr->count = cpu_to_le32(count);
	keys = (void *)(rr + 1);
	for (i = 0; i < count; i++) {
		keys[i].swap_type = cpu_to_le16(1);
		keys[i].offset = cpu_to_le64(10 * (i + 1));
		keys[i].gen = cpu_to_le64(7);
	}
	return rr;
}

static void reconcile_rules(struct kunit *test)
{
	struct ramster_wire_reconcile rc = {
		.flags = cpu_to_le16(RAMSTER_RECONCILE_F_START),
		.max_keys = cpu_to_le32(RAMSTER_WIRE_MAX_RECONCILE),
	};
	const struct ramster_wire_rule *rule = rule_of(RAMSTER_MSG_RECONCILE_REPLY);
	struct ramster_wire_reconcile_reply *rr;
	struct ramster_wire_key *keys;
	u32 plen;

	/* A request: a cursor, zero from the start, 1..MAX keys. */
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_valid(&rc, sizeof(rc)));
	rc.offset = cpu_to_le64(5);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_valid(&rc, sizeof(rc)));
	rc.flags = 0;
	rc.swap_type = cpu_to_le16(3);
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_valid(&rc, sizeof(rc)));
	rc.swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_valid(&rc, sizeof(rc)));
	rc.swap_type = 0;
	rc.max_keys = 0;
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_valid(&rc, sizeof(rc)));
	rc.max_keys = cpu_to_le32(RAMSTER_WIRE_MAX_RECONCILE + 1);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_valid(&rc, sizeof(rc)));
	rc.max_keys = cpu_to_le32(4);
	rc.flags = cpu_to_le16(0x8000);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_valid(&rc, sizeof(rc)));

	/* A reply: its length is its count's; the largest fits a frame. */
	KUNIT_EXPECT_LE(test, rule->max_len,
			(u32)(RAMSTER_WIRE_PAGE_LEN + RAMSTER_WIRE_MAX_DATA));
	rr = reconcile_reply(test, 0, &plen);
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	rr = reconcile_reply(test, RAMSTER_WIRE_MAX_RECONCILE, &plen);
	KUNIT_EXPECT_EQ(test, plen, rule->max_len);
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	rr = reconcile_reply(test, 3, &plen);
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen - 1));
	rr->count = cpu_to_le32(4);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	rr->count = cpu_to_le32(U32_MAX);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	rr->count = cpu_to_le32(3);
	/* Busy carries no keys; unknown flags and statuses fail. */
	rr->status = cpu_to_le16(RAMSTER_ST_NO_MEMORY);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	rr->status = cpu_to_le16(RAMSTER_ST_FULL);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	rr->status = 0;
	rr->flags = cpu_to_le16(2);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	rr->flags = cpu_to_le16(RAMSTER_RECONCILE_F_END);
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	/* Only swap keys: never an ephemeral page, never a reserved bit. */
	keys = (void *)(rr + 1);
	keys[1].swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	keys[1].swap_type = cpu_to_le16(1);
	keys[2].rsvd1 = cpu_to_le32(1);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_reply_valid(rr, plen));
	keys[2].rsvd1 = 0;

	/* The keys follow the cursor, strictly increasing, no more than asked. */
	memset(&rc, 0, sizeof(rc));
	rc.flags = cpu_to_le16(RAMSTER_RECONCILE_F_START);
	rc.max_keys = cpu_to_le32(3);
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	rc.max_keys = cpu_to_le32(2);
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	rc.max_keys = cpu_to_le32(3);
	rc.flags = 0;
	rc.swap_type = cpu_to_le16(1);
	rc.offset = cpu_to_le64(9);
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	rc.offset = cpu_to_le64(10);	/* the cursor itself is not listed */
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	rc.swap_type = 0;
	rc.offset = cpu_to_le64(U64_MAX);	/* a lower type: any offset */
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	keys[2].offset = keys[1].offset;	/* a repeat */
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	keys[2].offset = cpu_to_le64(5);	/* out of order */
	KUNIT_EXPECT_FALSE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	keys[2].swap_type = cpu_to_le16(2);	/* the next type: any offset */
	KUNIT_EXPECT_TRUE(test, ramster_wire_reconcile_keys_follow(&rc, keys, 3));
	/* An older peer never sees the message: it is a capability. */
	KUNIT_EXPECT_TRUE(test, RAMSTER_CAP_KNOWN & RAMSTER_CAP_RECONCILE);
}

static void valid_frames_pass(struct kunit *test)
{
	struct frame *f;

	KUNIT_EXPECT_EQ(test, check(hello(test), &before), RAMSTER_WIRE_OK);
	f = hello(test);
	f->hdr.type = RAMSTER_MSG_HELLO_REPLY;
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_OK);
	KUNIT_EXPECT_EQ(test, check(put(test, 1), &after), RAMSTER_WIRE_OK);
	KUNIT_EXPECT_EQ(test, check(put(test, RAMSTER_WIRE_MAX_DATA), &after),
			RAMSTER_WIRE_OK);
	KUNIT_EXPECT_EQ(test, check(invalidate(test, 1), &after), RAMSTER_WIRE_OK);
	KUNIT_EXPECT_EQ(test, check(invalidate(test, RAMSTER_WIRE_MAX_INVALIDATE),
				    &after), RAMSTER_WIRE_OK);

	f = new_frame(test, RAMSTER_MSG_KEEPALIVE);
	seal(f, sizeof(struct ramster_wire_keepalive));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = new_frame(test, RAMSTER_MSG_PUT_REPLY);
	f->status.status = cpu_to_le32(RAMSTER_ST_FULL);
	seal(f, sizeof(f->status));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = new_frame(test, RAMSTER_MSG_GET);
	seal(f, sizeof(f->key));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = put(test, 100);
	f->hdr.type = RAMSTER_MSG_GET_REPLY;
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = new_frame(test, RAMSTER_MSG_GET_REPLY);
	f->page.status = cpu_to_le32(RAMSTER_ST_NOT_FOUND);
	seal(f, sizeof(f->page));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = new_frame(test, RAMSTER_MSG_INVALIDATE_AREA);
	seal(f, sizeof(f->area));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = new_frame(test, RAMSTER_MSG_RECALL);
	f->area.pages = cpu_to_le64(1000);
	seal(f, sizeof(f->area));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = new_frame(test, RAMSTER_MSG_GOODBYE);
	seal(f, 0);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
}

static void header_rules(struct kunit *test)
{
	u8 types[] = { 0, RAMSTER_MSG_NR_TYPES, 255 };
	u16 flags[] = { RAMSTER_F_AUTH, RAMSTER_F_ENCRYPTED, 0x8000 };
	struct frame *f;
	int i;

	f = put(test, 10);
	f->hdr.magic = cpu_to_le32(RAMSTER_WIRE_MAGIC ^ 1);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_MAGIC);

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		f = put(test, 10);
		f->hdr.type = types[i];
		KUNIT_EXPECT_EQ_MSG(test, check(f, &after),
				    RAMSTER_WIRE_UNKNOWN_TYPE, "type %u", types[i]);
	}
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		f = put(test, 10);
		f->hdr.flags = cpu_to_le16(flags[i]);
		KUNIT_EXPECT_EQ_MSG(test, check(f, &after), RAMSTER_WIRE_BAD_FLAGS,
				    "flags %#x", flags[i]);
	}

	f = put(test, 10);
	f->hdr.version = RAMSTER_WIRE_VERSION + 1;
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_VERSION);
	f = hello(test);
	f->hdr.version = 0;
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_VERSION);

	f = put(test, 10);
	f->hdr.rsvd0 = cpu_to_le16(1);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_RESERVED);
	f = put(test, 10);
	f->hdr.seq = cpu_to_le32(1 << 31);	/* reserved without auth */
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_RESERVED);

	/* A forged sender, and data before the handshake. */
	f = put(test, 10);
	f->hdr.src_node = cpu_to_le16(PEER + 1);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_NODE);
	KUNIT_EXPECT_EQ(test, check(put(test, 10), &before),
			RAMSTER_WIRE_BEFORE_HANDSHAKE);
	/* A type out of range is unknown whatever the state. */
	f = put(test, 10);
	f->hdr.type = 0;
	KUNIT_EXPECT_EQ(test, ramster_wire_check_hdr(&f->hdr, &before, NULL),
			RAMSTER_WIRE_UNKNOWN_TYPE);
	f->hdr.type = RAMSTER_MSG_NR_TYPES;
	KUNIT_EXPECT_EQ(test, ramster_wire_check_hdr(&f->hdr, &before, NULL),
			RAMSTER_WIRE_UNKNOWN_TYPE);
	f->hdr.type = 255;
	KUNIT_EXPECT_EQ(test, ramster_wire_check_hdr(&f->hdr, &before, NULL),
			RAMSTER_WIRE_UNKNOWN_TYPE);
	/* A handshake type nobody has a rule for is unknown, not early. */
	f = hello(test);
	KUNIT_EXPECT_EQ(test, ramster_wire_check_hdr(&f->hdr, &before, NULL),
			RAMSTER_WIRE_UNKNOWN_TYPE);
	/* As the handshake reader sees it: no rule for any data type. */
	f = put(test, 10);
	KUNIT_EXPECT_EQ(test, ramster_wire_check_hdr(&f->hdr, &before, NULL),
			RAMSTER_WIRE_BEFORE_HANDSHAKE);

	/* A known type that no service registered a handler for. */
	f = put(test, 10);
	KUNIT_EXPECT_EQ(test, ramster_wire_check_hdr(&f->hdr, &after, NULL),
			RAMSTER_WIRE_UNKNOWN_TYPE);
}

/* Each type's length bounds: one byte too short, one too long, huge. */
static void length_bounds(struct kunit *test)
{
	static const struct { u8 type; u32 min, max; } b[] = {
		{ RAMSTER_MSG_HELLO, 32, 64 },
		{ RAMSTER_MSG_AUTH, 32, 32 },
		{ RAMSTER_MSG_KEEPALIVE, 16, 16 },
		{ RAMSTER_MSG_PUT, 41, 40 + RAMSTER_WIRE_MAX_DATA },
		{ RAMSTER_MSG_PUT_REPLY, 32, 32 },
		{ RAMSTER_MSG_GET, 24, 24 },
		{ RAMSTER_MSG_GET_REPLY, 40, 40 + RAMSTER_WIRE_MAX_DATA },
		{ RAMSTER_MSG_INVALIDATE, 32, 8 + 24 * RAMSTER_WIRE_MAX_INVALIDATE },
		{ RAMSTER_MSG_INVALIDATE_AREA, 16, 16 },
		{ RAMSTER_MSG_RECALL, 16, 16 },
		{ RAMSTER_MSG_GOODBYE, 0, 0 },
	};
	const struct ramster_wire_expect *e;
	const struct ramster_wire_rule *r;
	struct frame *f;
	int i;

	for (i = 0; i < ARRAY_SIZE(b); i++) {
		r = rule_of(b[i].type);
		e = b[i].type == RAMSTER_MSG_HELLO ||
		    b[i].type == RAMSTER_MSG_AUTH ? &before : &after;
		f = new_frame(test, b[i].type);
		if (b[i].min) {
			f->hdr.plen = cpu_to_le32(b[i].min - 1);
			KUNIT_EXPECT_EQ_MSG(test, ramster_wire_check_hdr(&f->hdr, e, r),
					    RAMSTER_WIRE_BAD_LENGTH, "type %u short",
					    b[i].type);
		}
		f->hdr.plen = cpu_to_le32(b[i].max + 1);
		KUNIT_EXPECT_EQ_MSG(test, ramster_wire_check_hdr(&f->hdr, e, r),
				    RAMSTER_WIRE_BAD_LENGTH, "type %u long", b[i].type);
		f->hdr.plen = cpu_to_le32(U32_MAX);
		KUNIT_EXPECT_EQ_MSG(test, ramster_wire_check_hdr(&f->hdr, e, r),
				    RAMSTER_WIRE_BAD_LENGTH, "type %u huge", b[i].type);
		f->hdr.plen = cpu_to_le32(b[i].max);
		KUNIT_EXPECT_EQ_MSG(test, ramster_wire_check_hdr(&f->hdr, e, r),
				    RAMSTER_WIRE_OK, "type %u max", b[i].type);
	}
}

/* A raw page is exactly one 4 KiB page, in a PUT as in a GET_REPLY. */
static void raw_page_rules(struct kunit *test)
{
	static const u32 bad_len[] = { 1, 100, RAMSTER_WIRE_RAW_LEN - 1 };
	static const u8 types[] = { RAMSTER_MSG_PUT, RAMSTER_MSG_GET_REPLY };
	struct frame *f;
	int t, i;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		f = put_raw(test, types[t], RAMSTER_WIRE_RAW_LEN);
		KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
		for (i = 0; i < ARRAY_SIZE(bad_len); i++) {
			f = put_raw(test, types[t], bad_len[i]);
			KUNIT_EXPECT_EQ_MSG(test, check(f, &after),
					    RAMSTER_WIRE_BAD_PAYLOAD,
					    "type %u clen %u", types[t],
					    bad_len[i]);
		}
		/* Longer than a page is the length rule's, before ours. */
		f = put_raw(test, types[t], RAMSTER_WIRE_RAW_LEN + 1);
		KUNIT_EXPECT_NE(test, check(f, &after), RAMSTER_WIRE_OK);
		/* The id after the last one is unknown. */
		f = put_raw(test, types[t], RAMSTER_WIRE_RAW_LEN);
		f->page.compressor = RAMSTER_COMP_RAW + 1;
		seal(f, sizeof(f->page) + RAMSTER_WIRE_RAW_LEN);
		KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	}
	/* A compressed page may be a whole page long too. */
	KUNIT_EXPECT_EQ(test, check(put(test, RAMSTER_WIRE_RAW_LEN), &after),
			RAMSTER_WIRE_OK);
	/* The capability is one this version knows. */
	KUNIT_EXPECT_TRUE(test, RAMSTER_CAP_KNOWN & RAMSTER_CAP_RAW);
}

static void payload_rules(struct kunit *test)
{
	struct ramster_wire_key *keys;
	struct frame *f;

	f = put(test, 100);
	f->bytes[sizeof(f->page) + 3] ^= 1;	/* data changed after sealing */
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_CRC);

	f = put(test, 100);
	f->page.clen = cpu_to_le32(99);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = put(test, 100);
	f->page.compressor = 0;
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = put(test, 100);
	f->page.key.swap_type = cpu_to_le16(RAMSTER_WIRE_MAX_SWAP_TYPES);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = put(test, 100);
	f->page.key.rsvd1 = cpu_to_le32(1);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	/* An ephemeral page's type, and only it, above the swap types. */
	f = put(test, 100);
	f->page.key.swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_OK);
	f = put(test, 100);
	f->page.key.swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE - 1);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = put(test, 100);
	f->page.key.swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE + 1);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = put(test, 100);
	f->page.status = cpu_to_le32(RAMSTER_ST_FULL);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);

	/* A failed GET_REPLY must not carry data; an unknown status fails. */
	f = put(test, 100);
	f->hdr.type = RAMSTER_MSG_GET_REPLY;
	f->page.status = cpu_to_le32(RAMSTER_ST_NOT_FOUND);
	seal(f, sizeof(f->page) + 100);
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = new_frame(test, RAMSTER_MSG_GET_REPLY);
	f->page.status = cpu_to_le32(99);
	seal(f, sizeof(f->page));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);

	f = invalidate(test, 3);
	f->inv.count = cpu_to_le32(4);
	seal(f, sizeof(f->inv) + 3 * sizeof(*keys));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = invalidate(test, 1);
	f->inv.count = 0;
	seal(f, sizeof(f->inv) + sizeof(*keys));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = invalidate(test, 3);
	keys = (void *)(f->bytes + sizeof(f->inv));
	keys[2].rsvd0 = cpu_to_le16(1);
	seal(f, sizeof(f->inv) + 3 * sizeof(*keys));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);

	f = hello(test);
	memset(f->hello.cluster, 'x', sizeof(f->hello.cluster));
	seal(f, sizeof(f->hello));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_PAYLOAD);
	f = hello(test);
	memset(f->hello.cluster, 0, sizeof(f->hello.cluster));
	seal(f, sizeof(f->hello));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_PAYLOAD);
	f = hello(test);
	f->hello.min_version = RAMSTER_WIRE_VERSION + 1;	/* min > max */
	seal(f, sizeof(f->hello));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_PAYLOAD);
	f = hello(test);
	f->hello.rsvd0 = cpu_to_le16(1);
	seal(f, sizeof(f->hello));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_PAYLOAD);

	f = new_frame(test, RAMSTER_MSG_INVALIDATE_AREA);
	f->area.swap_type = cpu_to_le16(RAMSTER_WIRE_MAX_SWAP_TYPES);
	seal(f, sizeof(f->area));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	/* Ephemeral pages have no area: dropped one by one, or at will. */
	f = new_frame(test, RAMSTER_MSG_INVALIDATE_AREA);
	f->area.swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE);
	seal(f, sizeof(f->area));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	f = new_frame(test, RAMSTER_MSG_RECALL);
	f->area.swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE);
	seal(f, sizeof(f->area));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
	/* RECALL's swap type is reserved: a recall of one area, later. */
	f = new_frame(test, RAMSTER_MSG_RECALL);
	f->area.swap_type = cpu_to_le16(1);
	seal(f, sizeof(f->area));
	KUNIT_EXPECT_EQ(test, check(f, &after), RAMSTER_WIRE_BAD_PAYLOAD);
}

/* The instance is the sender's to choose: any value is accepted. */
static void hello_instance_is_free(struct kunit *test)
{
	struct ramster_wire_expect before = { };
	struct frame *f = hello(test);

	f->hello.instance = cpu_to_le32(0xffffffff);
	seal(f, sizeof(f->hello));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_OK);
}

static const struct ramster_wire_hello_id me = {
	.cluster = "ramster", .node = 3, .instance = 77,
};

/* A hello from PEER to us, as PEER's transport fills it. */
static struct frame *hello_to_me(struct kunit *test)
{
	const struct ramster_wire_hello_id peer = {
		.cluster = "ramster", .node = PEER, .instance = 99,
	};
	struct frame *f = new_frame(test, RAMSTER_MSG_HELLO);
	u8 nonce[RAMSTER_WIRE_NONCE_LEN];

	memset(nonce, 0xa5, sizeof(nonce));
	ramster_wire_hello_fill(&f->hello, &peer, me.node, nonce);
	seal(f, sizeof(f->hello));
	return f;
}

static void hello_fill_then_check(struct kunit *test)
{
	struct frame *f = hello_to_me(test);
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_OK);
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why),
			RAMSTER_WIRE_VERSION);
	KUNIT_EXPECT_NULL(test, why);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(f->hello.instance), 99);
	KUNIT_EXPECT_STREQ(test, f->hello.cluster, "ramster");
	KUNIT_EXPECT_EQ(test, f->hello.nonce[0], 0xa5);
	KUNIT_EXPECT_EQ(test, f->hello.nonce[RAMSTER_WIRE_NONCE_LEN - 1], 0xa5);
	/* A later sender that also speaks our version: ours is chosen. */
	f->hello.max_version = RAMSTER_WIRE_VERSION + 3;
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why),
			RAMSTER_WIRE_VERSION);
}

/* Why a hello was refused, never NULL (a refusal without one fails). */
static const char *reason(const char *why)
{
	return why ? why : "(none given)";
}

static void hello_refusals(struct kunit *test)
{
	const char *why;
	struct frame *f;

	f = hello_to_me(test);
	f->hello.min_version = RAMSTER_WIRE_VERSION + 1;
	f->hello.max_version = RAMSTER_WIRE_VERSION + 2;
	why = NULL;
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why), 0);
	KUNIT_EXPECT_STREQ(test, reason(why), "no common protocol version");

	f = hello_to_me(test);
	strscpy(f->hello.cluster, "other", sizeof(f->hello.cluster));
	why = NULL;
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why), 0);
	KUNIT_EXPECT_STREQ(test, reason(why), "another cluster");

	f = hello_to_me(test);
	f->hdr.src_node = cpu_to_le16(PEER + 1);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why), 0);
	KUNIT_EXPECT_STREQ(test, reason(why), "header and hello name different nodes");

	f = hello_to_me(test);
	f->hdr.src_node = cpu_to_le16(me.node);
	f->hello.node = cpu_to_le16(me.node);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why), 0);
	KUNIT_EXPECT_STREQ(test, reason(why), "it claims our own node number");

	f = hello_to_me(test);
	f->hello.peer_node = cpu_to_le16(me.node + 1);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why), 0);
	KUNIT_EXPECT_STREQ(test, reason(why), "it believes it talks to another node");
}

/* A version 1 node's 32-byte hello is read, and refused by version. */
static void hello_v1_refused(struct kunit *test)
{
	struct frame *f = hello_to_me(test);
	const char *why = NULL;

	f->hello.min_version = 1;
	f->hello.max_version = 1;
	f->hello.capabilities = 0;
	seal(f, RAMSTER_WIRE_HELLO_V1_LEN);
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_OK);
	KUNIT_EXPECT_EQ(test, ramster_wire_hello_check(&f->hdr, &f->hello, &me, &why), 0);
	KUNIT_EXPECT_STREQ(test, reason(why), "no common protocol version");
	/* Full length claiming version 1 only, or short claiming 2: malformed. */
	seal(f, sizeof(f->hello));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_PAYLOAD);
	f = hello_to_me(test);
	seal(f, RAMSTER_WIRE_HELLO_V1_LEN);
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_PAYLOAD);
	/* Capability bits this version does not know: ignored. */
	f = hello_to_me(test);
	f->hello.capabilities = cpu_to_le32(RAMSTER_CAP_KNOWN + 1);
	seal(f, sizeof(f->hello));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_OK);
}

/* As frame_io.c leaves an authenticated frame before its tag is checked. */
static struct frame *tagged(struct kunit *test, u16 flags, u32 seq)
{
	struct frame *f = put(test, 10);

	f->hdr.flags = cpu_to_le16(flags);
	f->hdr.pcrc = 0;
	f->hdr.seq = cpu_to_le32(seq);
	return f;
}

static void authenticated_link_rules(struct kunit *test)
{
	const u16 enc = RAMSTER_F_AUTH | RAMSTER_F_ENCRYPTED;
	struct ramster_wire_expect auth = after, encrypted = after;
	struct frame *f;

	auth.auth = true;
	auth.seq = 5;
	encrypted.auth = true;
	encrypted.encrypt = true;
	encrypted.seq = 5;

	KUNIT_EXPECT_EQ(test, check(tagged(test, RAMSTER_F_AUTH, 5), &auth),
			RAMSTER_WIRE_OK);
	KUNIT_EXPECT_EQ(test, check(tagged(test, enc, 5), &encrypted),
			RAMSTER_WIRE_OK);
	/* The link's mode, exactly: no tag-less frame, no mode switch. */
	KUNIT_EXPECT_EQ(test, check(put(test, 10), &auth), RAMSTER_WIRE_BAD_FLAGS);
	KUNIT_EXPECT_EQ(test, check(tagged(test, enc, 5), &auth),
			RAMSTER_WIRE_BAD_FLAGS);
	KUNIT_EXPECT_EQ(test, check(tagged(test, RAMSTER_F_AUTH, 5), &encrypted),
			RAMSTER_WIRE_BAD_FLAGS);
	KUNIT_EXPECT_EQ(test, check(tagged(test, RAMSTER_F_ENCRYPTED, 5),
				    &encrypted), RAMSTER_WIRE_BAD_FLAGS);
	/* Replayed, reordered or lost frames: the seq is not the next one. */
	KUNIT_EXPECT_EQ(test, check(tagged(test, RAMSTER_F_AUTH, 4), &auth),
			RAMSTER_WIRE_BAD_SEQ);
	KUNIT_EXPECT_EQ(test, check(tagged(test, RAMSTER_F_AUTH, 6), &auth),
			RAMSTER_WIRE_BAD_SEQ);
	/* No crc of an authenticated payload on the wire. */
	f = tagged(test, RAMSTER_F_AUTH, 5);
	f->hdr.pcrc = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, check(f, &auth), RAMSTER_WIRE_BAD_RESERVED);
	/* Handshake frames are never tagged, even before an auth link. */
	f = hello(test);
	f->hdr.flags = cpu_to_le16(RAMSTER_F_AUTH);
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_BAD_FLAGS);
	/* AUTH belongs to the handshake. */
	f = new_frame(test, RAMSTER_MSG_AUTH);
	seal(f, sizeof(struct ramster_wire_auth));
	KUNIT_EXPECT_EQ(test, check(f, &before), RAMSTER_WIRE_OK);
}

static void every_error_has_a_name(struct kunit *test)
{
	int err;

	for (err = 0; err < RAMSTER_WIRE_NR_ERRORS; err++) {
		KUNIT_EXPECT_NOT_NULL(test, ramster_wire_error_name(err));
		KUNIT_EXPECT_STRNEQ(test, ramster_wire_error_name(err),
				    "unknown error");
	}
	KUNIT_EXPECT_STREQ(test, ramster_wire_error_name(RAMSTER_WIRE_NR_ERRORS),
			   "unknown error");
}

/*
 * Every pair of offers among {none, encrypt, auth, both}, plus bits this
 * version does not know: a keyed node never talks to a keyless one, even
 * one that asks for encryption.  The expectation is written out, not
 * derived from the rule under test.
 */
static void link_mode_matrix(struct kunit *test)
{
	static const u32 offer[] = { 0, RAMSTER_CAP_ENCRYPT, RAMSTER_CAP_AUTH,
				     RAMSTER_CAP_KNOWN };
	/* [mine][theirs]: 'r' refused, '-' plain, 'a' auth, 'e' auth+enc */
	static const char expect[4][5] = {
		"--rr", "--rr", "rrae", "rree",
	};
	static const u32 unknown = 0x80000000;
	unsigned int i, j, k;

	for (i = 0; i < ARRAY_SIZE(offer); i++) {
		for (j = 0; j < ARRAY_SIZE(offer); j++) {
			for (k = 0; k < 2; k++) {
				u32 theirs = offer[j] | (k ? unknown : 0);
				bool auth = true, encrypt = true;
				const char *why;
				char got;

				why = ramster_wire_link_mode(offer[i], theirs,
							     &auth, &encrypt);
				got = why ? 'r' : encrypt ? 'e' : auth ? 'a' : '-';
				KUNIT_EXPECT_EQ_MSG(test, got, expect[i][j],
						    "mine %#x theirs %#x",
						    offer[i], theirs);
				if (why)
					KUNIT_EXPECT_FALSE(test, auth || encrypt);
			}
		}
	}
}

static struct kunit_case ramster_wire_cases[] = {
	KUNIT_CASE(valid_frames_pass),
	KUNIT_CASE(header_rules),
	KUNIT_CASE(length_bounds),
	KUNIT_CASE(payload_rules),
	KUNIT_CASE(raw_page_rules),
	KUNIT_CASE(reconcile_rules),
	KUNIT_CASE(hello_instance_is_free),
	KUNIT_CASE(every_error_has_a_name),
	KUNIT_CASE(hello_fill_then_check),
	KUNIT_CASE(hello_refusals),
	KUNIT_CASE(hello_v1_refused),
	KUNIT_CASE(authenticated_link_rules),
	KUNIT_CASE(link_mode_matrix),
	{}
};

static struct kunit_suite ramster_wire_suite = {
	.name = "ramster_wire",
	.test_cases = ramster_wire_cases,
};

kunit_test_suites(&ramster_wire_suite);

MODULE_LICENSE("GPL");
