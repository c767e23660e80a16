/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire.h - the ramster protocol: frame layout only, no kernel state
 *
 * Every frame is a 32-byte header followed by hdr.plen payload bytes.  All
 * multi-byte fields are little endian.  Reserved fields and bits are sent
 * as zero and a receiver rejects a frame where they are not, so that a
 * later version can give them a meaning without being misread by this one.
 *
 * A connection starts with HELLO from the connecting node and HELLO_REPLY
 * from the accepting one; they agree on a version in [min, max] of both and
 * on the cluster name, and each learns the other's node number and
 * instance (a random number per module load: pages held for an earlier
 * instance of a node are dropped, as that node has forgotten them).  From then
 * on hdr.src_node must be that number.  Requests carry a req_id that the
 * reply echoes; one-way frames (KEEPALIVE, INVALIDATE, INVALIDATE_AREA)
 * carry 0.
 *
 * A stored page is named by (swap type, offset, generation): a generation
 * is given to every version a node stores in a slot, so a late
 * INVALIDATE for version g never removes version g + 1, and a PUT_REPLY
 * for an old version is recognised as such.
 *
 * Protocol version 2: authentication and encryption.  Every node of a
 * cluster holds the same 32-byte cluster key.  HELLO and HELLO_REPLY carry
 * a fresh random nonce each (32 bytes) and capability bits; when both
 * sides have RAMSTER_CAP_AUTH, two AUTH frames follow, the connecting node
 * first, each proving possession of the key over the whole exchange:
 *
 *   T      = SHA-256(HELLO payload || HELLO_REPLY payload)   (as sent)
 *   mac_c  = HMAC-SHA256(K, "ramster v2 proof c" || T)   AUTH, connector
 *   mac_a  = HMAC-SHA256(K, "ramster v2 proof a" || T)   AUTH, acceptor
 *
 * The acceptor checks mac_c before it answers with mac_a, so it proves
 * nothing to a node that has not proved first.  Both payloads hold both
 * node numbers, both instances, both nonces, the version ranges and the
 * capabilities, so a proof is bound to one exchange and cannot be
 * replayed into another.  Per-direction session keys follow (HKDF,
 * RFC 5869, with SHA-256; one output block each):
 *
 *   PRK    = HMAC-SHA256(nonce_c || nonce_a, K)           HKDF-Extract
 *   k_ca   = HMAC-SHA256(PRK, "ramster v2 key c>a" || T || 0x01)
 *   k_ac   = HMAC-SHA256(PRK, "ramster v2 key a>c" || T || 0x01)
 *
 * (c: the connecting node, a: the accepting one; labels are ASCII without
 * their NUL.)  Every later frame has RAMSTER_F_AUTH, hdr.pcrc 0, hdr.seq
 * the low 32 bits of its sequence number (per direction, from 0 for the
 * first frame after the AUTH exchange), and a RAMSTER_WIRE_TAG_LEN-byte
 * tag after its payload: AEAD rfc7539(chacha20,poly1305) under the
 * direction's key, with the 12-byte nonce le64(seq) || 4 zero bytes.
 * With RAMSTER_F_ENCRYPTED (set on every frame of a link where either
 * HELLO asked for RAMSTER_CAP_ENCRYPT) the payload is encrypted and the
 * associated data is the header; without, the associated data is header
 * and payload and nothing is encrypted.  A frame whose seq is not the
 * next one, or whose tag does not verify, closes the link: replayed,
 * reordered, dropped and altered frames are all refused.  A node with a
 * key never talks to one without (no downgrade); nodes loaded with
 * insecure=1 and no key speak version 2 without AUTH frames and tags.
 *
 * What the key does not do: every member holds the same key, so a node
 * is known by the key together with its source address (and a reserved
 * source port, which only root on its host can bind).  A member whose
 * key is stolen can pose as any node whose address it can use, replace
 * that node's links and announce a new instance (holders then drop the
 * node's pages).  Without a key (insecure=1), anybody on a node's host
 * or network can.
 *
 * A page may be sent to several nodes (replication) since nothing in a
 * PUT names a single holder.
 */
#ifndef _RAMSTER_WIRE_H
#define _RAMSTER_WIRE_H

#include <linux/build_bug.h>
#include <linux/types.h>

#define RAMSTER_WIRE_MAGIC		0x54534d52	/* "RMST" */
#define RAMSTER_WIRE_VERSION		2	/* the newest we speak */
#define RAMSTER_WIRE_MIN_VERSION	2	/* the oldest we speak */
#define RAMSTER_WIRE_HDR_SIZE		32
#define RAMSTER_WIRE_CLUSTER_NAME_LEN	16
/* Largest compressed page a PUT or GET_REPLY may carry. */
#define RAMSTER_WIRE_MAX_DATA		4096
/* A raw page (RAMSTER_COMP_RAW): exactly one 4 KiB page, as it is. */
#define RAMSTER_WIRE_RAW_LEN		4096
static_assert(RAMSTER_WIRE_RAW_LEN <= RAMSTER_WIRE_MAX_DATA);
/* Most keys one INVALIDATE frame may carry. */
#define RAMSTER_WIRE_MAX_INVALIDATE	128
/* Swap types are below MAX_SWAPFILES, which is at most 32. */
#define RAMSTER_WIRE_MAX_SWAP_TYPES	32
/*
 * The swap_type of an ephemeral page: a clean page cache page the holder
 * may drop at any time without asking (PUT, GET and INVALIDATE only; its
 * offset and gen are the owner's generation of that version).  Sent only
 * to a node that offered RAMSTER_CAP_EPHEMERAL.
 */
#define RAMSTER_WIRE_EPHEMERAL_TYPE	0x8000
/* Version 2: the cluster key, nonces, proofs and frame tags. */
#define RAMSTER_WIRE_CLUSTER_KEY_LEN	32
#define RAMSTER_WIRE_NONCE_LEN		32
#define RAMSTER_WIRE_MAC_LEN		32
#define RAMSTER_WIRE_TAG_LEN		16
#define RAMSTER_WIRE_AEAD		"rfc7539(chacha20,poly1305)"
#define RAMSTER_WIRE_AEAD_IV_LEN	12

enum ramster_wire_type {
	RAMSTER_MSG_HELLO		= 1,
	RAMSTER_MSG_HELLO_REPLY		= 2,
	RAMSTER_MSG_KEEPALIVE		= 3,
	RAMSTER_MSG_PUT			= 4,
	RAMSTER_MSG_PUT_REPLY		= 5,
	RAMSTER_MSG_GET			= 6,
	RAMSTER_MSG_GET_REPLY		= 7,
	RAMSTER_MSG_INVALIDATE		= 8,
	RAMSTER_MSG_INVALIDATE_AREA	= 9,
	RAMSTER_MSG_RECALL		= 10,
	RAMSTER_MSG_GOODBYE		= 11,
	RAMSTER_MSG_AUTH		= 12,	/* version 2, handshake only */
	RAMSTER_MSG_RECONCILE		= 13,	/* RAMSTER_CAP_RECONCILE */
	RAMSTER_MSG_RECONCILE_REPLY	= 14,
	RAMSTER_MSG_NR_TYPES
};

/* hdr.flags */
#define RAMSTER_F_AUTH		0x0001	/* a tag follows the payload */
#define RAMSTER_F_ENCRYPTED	0x0002	/* the payload is encrypted */
#define RAMSTER_F_KNOWN		(RAMSTER_F_AUTH | RAMSTER_F_ENCRYPTED)

/* hello.capabilities */
#define RAMSTER_CAP_AUTH	0x0001	/* has the cluster key: AUTH follows */
#define RAMSTER_CAP_ENCRYPT	0x0002	/* wants payloads encrypted */
#define RAMSTER_CAP_EPHEMERAL	0x0004	/* holds ephemeral pages */
#define RAMSTER_CAP_RAW		0x0008	/* takes RAMSTER_COMP_RAW pages */
#define RAMSTER_CAP_RECONCILE	0x0010	/* answers RAMSTER_MSG_RECONCILE */
#define RAMSTER_CAP_KNOWN	(RAMSTER_CAP_AUTH | RAMSTER_CAP_ENCRYPT | \
				 RAMSTER_CAP_EPHEMERAL | RAMSTER_CAP_RAW | \
				 RAMSTER_CAP_RECONCILE)

/**
 * struct ramster_wire_hdr - the header of every frame
 * @magic: RAMSTER_WIRE_MAGIC
 * @version: protocol version of this frame (HELLO: the sender's maximum)
 * @type: enum ramster_wire_type
 * @flags: RAMSTER_F_*
 * @plen: payload length in bytes
 * @pcrc: crc32c of the payload (0 when plen is 0, or with RAMSTER_F_AUTH:
 *	the tag covers it, and a crc of an encrypted page would leak)
 * @req_id: matches a reply to its request; 0 in one-way frames
 * @src_node: the sender's node number
 * @rsvd0: zero
 * @seq: with RAMSTER_F_AUTH, the low 32 bits of the frame's sequence
 *	number on its link and direction; zero otherwise
 */
struct ramster_wire_hdr {
	__le32	magic;
	__u8	version;
	__u8	type;
	__le16	flags;
	__le32	plen;
	__le32	pcrc;
	__le64	req_id;
	__le16	src_node;
	__le16	rsvd0;
	__le32	seq;
};

static_assert(sizeof(struct ramster_wire_hdr) == RAMSTER_WIRE_HDR_SIZE);

/*
 * HELLO and HELLO_REPLY.  Version 1 had the first 32 bytes only: such a
 * HELLO is still read, to refuse it by its version range.
 */
struct ramster_wire_hello {
	__u8	min_version;
	__u8	max_version;
	__le16	node;		/* the sender's node number */
	__le16	peer_node;	/* whom the sender believes it talks to */
	__le16	rsvd0;
	char	cluster[RAMSTER_WIRE_CLUSTER_NAME_LEN];	/* NUL padded */
	__le32	capabilities;	/* RAMSTER_CAP_* */
	__le32	instance;	/* random per module load of the sender */
	__u8	nonce[RAMSTER_WIRE_NONCE_LEN];	/* fresh per handshake */
};

#define RAMSTER_WIRE_HELLO_V1_LEN	32
static_assert(sizeof(struct ramster_wire_hello) == 64);

/* AUTH: the sender's proof (see the file comment) */
struct ramster_wire_auth {
	__u8	mac[RAMSTER_WIRE_MAC_LEN];
};

static_assert(sizeof(struct ramster_wire_auth) == 32);

/* KEEPALIVE: what the sender can do for the receiver */
struct ramster_wire_keepalive {
	__le64	free_pages;	/* foreign pages it would still accept */
	__le64	held_pages;	/* pages it holds for the receiver */
};

static_assert(sizeof(struct ramster_wire_keepalive) == 16);

/* Names one stored version of one swap slot of the owner. */
struct ramster_wire_key {
	__le64	offset;
	__le64	gen;
	__le16	swap_type;
	__le16	rsvd0;
	__le32	rsvd1;
};

static_assert(sizeof(struct ramster_wire_key) == 24);

/* PUT and GET_REPLY: a key and compressed data (GET_REPLY: if status 0) */
struct ramster_wire_page {
	struct ramster_wire_key key;
	__le32	status;		/* GET_REPLY: 0 or RAMSTER_ST_*; PUT: 0 */
	__le32	clen;		/* compressed bytes that follow */
	__le32	dcrc;		/* crc32c of the data, by its owner */
	__u8	compressor;	/* RAMSTER_COMP_* */
	__u8	rsvd[3];
	/* __u8 data[clen]; */
};

static_assert(sizeof(struct ramster_wire_page) == 40);

/* PUT_REPLY */
struct ramster_wire_status {
	struct ramster_wire_key key;
	__le32	status;		/* 0 or RAMSTER_ST_* */
	__le32	rsvd;
};

static_assert(sizeof(struct ramster_wire_status) == 32);

/* INVALIDATE: count keys follow */
struct ramster_wire_invalidate {
	__le32	count;
	__le32	rsvd;
	/* struct ramster_wire_key keys[count]; */
};

static_assert(sizeof(struct ramster_wire_invalidate) == 8);

/*
 * GET: a key alone.  INVALIDATE_AREA and RECALL (a holder asks the owner
 * to take pages back until it holds at most @pages of them; swap_type
 * must be 0: reserved for a recall of one area):
 */
struct ramster_wire_area {
	__le16	swap_type;
	__le16	rsvd0;
	__le32	rsvd1;
	__le64	pages;		/* RECALL: keep at most this many here */
};

static_assert(sizeof(struct ramster_wire_area) == 16);

/*
 * RECONCILE (owner -> holder, only to a node that offered
 * RAMSTER_CAP_RECONCILE): "list the swap pages you hold for me, in key
 * order, after the cursor (or from the first with
 * RAMSTER_RECONCILE_F_START, the cursor then zero), at most @max_keys of
 * them".  Ephemeral pages are never listed.  The owner compares the list
 * with what it believes the holder keeps: pages it does not know are
 * orphans (a PUT_REPLY or an INVALIDATE that was lost) and are
 * invalidated by their exact generation.
 */
#define RAMSTER_WIRE_MAX_RECONCILE	128
#define RAMSTER_RECONCILE_F_START	0x0001	/* RECONCILE: from the first key */
#define RAMSTER_RECONCILE_F_END		0x0001	/* REPLY: nothing after these */

/**
 * struct ramster_wire_reconcile - RECONCILE: where a listing goes on
 * @swap_type: the cursor's swap type (the last key of the previous reply)
 * @flags: RAMSTER_RECONCILE_F_START or 0
 * @max_keys: most keys the reply may carry, 1..RAMSTER_WIRE_MAX_RECONCILE
 * @offset: the cursor's offset: keys after (@swap_type, @offset) only
 */
struct ramster_wire_reconcile {
	__le16	swap_type;
	__le16	flags;
	__le32	max_keys;
	__le64	offset;
};

static_assert(sizeof(struct ramster_wire_reconcile) == 16);

/**
 * struct ramster_wire_reconcile_reply - RECONCILE_REPLY: one page of keys
 * @count: keys that follow (0 with a status other than RAMSTER_ST_OK)
 * @flags: RAMSTER_RECONCILE_F_END when the listing is complete
 * @status: RAMSTER_ST_OK, or RAMSTER_ST_NO_MEMORY ("busy": ask later)
 *
 * @count struct ramster_wire_key follow, in strictly increasing
 * (swap_type, offset) order, every one after the request's cursor.
 */
struct ramster_wire_reconcile_reply {
	__le32	count;
	__le16	flags;
	__le16	status;
	/* struct ramster_wire_key keys[count]; */
};

static_assert(sizeof(struct ramster_wire_reconcile_reply) == 8);
/* A page of listed orphans goes back in one INVALIDATE (reconcile.c). */
static_assert(RAMSTER_WIRE_MAX_RECONCILE <= RAMSTER_WIRE_MAX_INVALIDATE);
static_assert(sizeof(struct ramster_wire_reconcile_reply) +
	      RAMSTER_WIRE_MAX_RECONCILE * sizeof(struct ramster_wire_key) <=
	      sizeof(struct ramster_wire_page) + RAMSTER_WIRE_MAX_DATA);

/* Status codes in replies */
enum ramster_wire_status_code {
	RAMSTER_ST_OK		= 0,
	RAMSTER_ST_FULL		= 1,	/* capacity reached */
	RAMSTER_ST_NOT_FOUND	= 2,	/* no such key (or another gen) */
	RAMSTER_ST_REFUSED	= 3,	/* role does not accept pages */
	RAMSTER_ST_NO_MEMORY	= 4,
};

/*
 * Compressor ids carried in pages (the receiver does not decompress).
 * RAMSTER_COMP_RAW: the page as it is, clen exactly RAMSTER_WIRE_RAW_LEN;
 * a node that did not offer RAMSTER_CAP_RAW refuses such a frame (and
 * drops the link), so it is sent only to one that did.
 */
enum ramster_wire_compressor {
	RAMSTER_COMP_LZ4	= 1,
	RAMSTER_COMP_LZO	= 2,
	RAMSTER_COMP_ZSTD	= 3,
	RAMSTER_COMP_RAW	= 4,
};

/* Why a frame was rejected: each has a counter and a log message. */
enum ramster_wire_error {
	RAMSTER_WIRE_OK = 0,
	RAMSTER_WIRE_BAD_MAGIC,
	RAMSTER_WIRE_BAD_VERSION,
	RAMSTER_WIRE_UNKNOWN_TYPE,
	RAMSTER_WIRE_BAD_FLAGS,
	RAMSTER_WIRE_BAD_RESERVED,
	RAMSTER_WIRE_BAD_LENGTH,
	RAMSTER_WIRE_BAD_NODE,
	RAMSTER_WIRE_BEFORE_HANDSHAKE,
	RAMSTER_WIRE_BAD_CRC,
	RAMSTER_WIRE_BAD_PAYLOAD,
	RAMSTER_WIRE_BAD_SEQ,
	RAMSTER_WIRE_NR_ERRORS
};

/* What a receiver knows when it checks a header. */
struct ramster_wire_expect {
	u8 version;		/* negotiated; 0 before the handshake */
	bool handshake_done;
	u16 peer_node;		/* valid once handshake_done */
	bool auth;		/* once handshake_done: frames carry tags */
	bool encrypt;		/* ... and encrypted payloads */
	u32 seq;		/* with auth: the next frame's hdr.seq */
};

/**
 * struct ramster_wire_rule - what a payload of one message type must be
 * @min_len: shortest payload
 * @max_len: longest payload: a length outside [min, max] is never read
 * @valid: the type's structural rules (reserved fields, counts, lengths
 *	that must agree); NULL when any content of a valid length will do
 *
 * A service names the rule of each type it handles in the same row as
 * its handler (transport.h), so a type's size and its handler are one
 * entry; the rules themselves are the protocol and live here.
 */
struct ramster_wire_rule {
	u32 min_len;
	u32 max_len;
	bool (*valid)(const void *payload, u32 plen);
};

bool ramster_wire_hello_valid(const void *payload, u32 plen);
bool ramster_wire_put_valid(const void *payload, u32 plen);
bool ramster_wire_get_reply_valid(const void *payload, u32 plen);
bool ramster_wire_status_valid(const void *payload, u32 plen);
bool ramster_wire_key_valid(const void *payload, u32 plen);
bool ramster_wire_invalidate_valid(const void *payload, u32 plen);
bool ramster_wire_area_valid(const void *payload, u32 plen);
bool ramster_wire_recall_valid(const void *payload, u32 plen);
bool ramster_wire_reconcile_valid(const void *payload, u32 plen);
bool ramster_wire_reconcile_reply_valid(const void *payload, u32 plen);
int ramster_wire_key_cmp(const struct ramster_wire_key *a, unsigned int type,
			 u64 offset);
bool ramster_wire_reconcile_keys_follow(const struct ramster_wire_reconcile *req,
					const struct ramster_wire_key *keys,
					u32 count);

#define RAMSTER_WIRE_PAGE_LEN	sizeof(struct ramster_wire_page)
#define RAMSTER_WIRE_KEY_LEN	sizeof(struct ramster_wire_key)
#define RAMSTER_WIRE_INVAL_LEN	sizeof(struct ramster_wire_invalidate)

/* The rule of each message type, for handler rows. */
#define RAMSTER_WIRE_RULE_HELLO	{ RAMSTER_WIRE_HELLO_V1_LEN, \
	sizeof(struct ramster_wire_hello), ramster_wire_hello_valid }
#define RAMSTER_WIRE_RULE_AUTH	{ sizeof(struct ramster_wire_auth), \
	sizeof(struct ramster_wire_auth), NULL }
#define RAMSTER_WIRE_RULE_KEEPALIVE { sizeof(struct ramster_wire_keepalive), \
	sizeof(struct ramster_wire_keepalive), NULL }
#define RAMSTER_WIRE_RULE_PUT	{ RAMSTER_WIRE_PAGE_LEN + 1, \
	RAMSTER_WIRE_PAGE_LEN + RAMSTER_WIRE_MAX_DATA, ramster_wire_put_valid }
#define RAMSTER_WIRE_RULE_PUT_REPLY { sizeof(struct ramster_wire_status), \
	sizeof(struct ramster_wire_status), ramster_wire_status_valid }
#define RAMSTER_WIRE_RULE_GET	{ RAMSTER_WIRE_KEY_LEN, RAMSTER_WIRE_KEY_LEN, \
	ramster_wire_key_valid }
#define RAMSTER_WIRE_RULE_GET_REPLY { RAMSTER_WIRE_PAGE_LEN, \
	RAMSTER_WIRE_PAGE_LEN + RAMSTER_WIRE_MAX_DATA, \
	ramster_wire_get_reply_valid }
#define RAMSTER_WIRE_RULE_INVALIDATE { \
	RAMSTER_WIRE_INVAL_LEN + RAMSTER_WIRE_KEY_LEN, \
	RAMSTER_WIRE_INVAL_LEN + RAMSTER_WIRE_KEY_LEN * RAMSTER_WIRE_MAX_INVALIDATE, \
	ramster_wire_invalidate_valid }
#define RAMSTER_WIRE_RULE_INVALIDATE_AREA { sizeof(struct ramster_wire_area), \
	sizeof(struct ramster_wire_area), ramster_wire_area_valid }
#define RAMSTER_WIRE_RULE_RECALL { sizeof(struct ramster_wire_area), \
	sizeof(struct ramster_wire_area), ramster_wire_recall_valid }
#define RAMSTER_WIRE_RULE_GOODBYE { 0, 0, NULL }
#define RAMSTER_WIRE_RULE_RECONCILE { sizeof(struct ramster_wire_reconcile), \
	sizeof(struct ramster_wire_reconcile), ramster_wire_reconcile_valid }
#define RAMSTER_WIRE_RECONCILE_REPLY_LEN \
	sizeof(struct ramster_wire_reconcile_reply)
#define RAMSTER_WIRE_RULE_RECONCILE_REPLY { RAMSTER_WIRE_RECONCILE_REPLY_LEN, \
	RAMSTER_WIRE_RECONCILE_REPLY_LEN + \
	RAMSTER_WIRE_KEY_LEN * RAMSTER_WIRE_MAX_RECONCILE, \
	ramster_wire_reconcile_reply_valid }

enum ramster_wire_error ramster_wire_check_hdr(const struct ramster_wire_hdr *hdr,
					       const struct ramster_wire_expect *expect,
					       const struct ramster_wire_rule *rule);
enum ramster_wire_error ramster_wire_check_payload(const struct ramster_wire_hdr *hdr,
						   const void *payload,
						   const struct ramster_wire_rule *rule);
const char *ramster_wire_error_name(enum ramster_wire_error err);

/**
 * struct ramster_wire_hello_id - who says hello
 * @cluster: cluster name, at most RAMSTER_WIRE_CLUSTER_NAME_LEN - 1 chars
 * @node: the sender's node number
 * @instance: the sender's instance (random per module load, not 0)
 * @capabilities: RAMSTER_CAP_* it offers
 */
struct ramster_wire_hello_id {
	const char *cluster;
	u16 node;
	u32 instance;
	u32 capabilities;
};

void ramster_wire_hello_fill(struct ramster_wire_hello *hello,
			     const struct ramster_wire_hello_id *me, u16 peer,
			     const u8 *nonce);
u8 ramster_wire_hello_check(const struct ramster_wire_hdr *hdr,
			    const struct ramster_wire_hello *hello,
			    const struct ramster_wire_hello_id *me,
			    const char **why);
const char *ramster_wire_link_mode(u32 mine, u32 theirs, bool *auth,
				   bool *encrypt);

#endif /* _RAMSTER_WIRE_H */
