// SPDX-License-Identifier: GPL-2.0
/*
 * auth_test.c - KUnit suite for the link cryptography (auth.c)
 *
 * The vectors were computed independently (Python's hmac, hashlib and
 * cryptography packages) from wire.h's constructions; the guest's frame
 * fuzzer checks the same vectors, so the module, the spec and the tool
 * that attacks it agree byte for byte.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "auth.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* 6.1's KUnit has no KUNIT_EXPECT_MEMEQ(). */
static void expect_bytes(struct kunit *test, const void *got, const void *want,
			 size_t len)
{
	KUNIT_EXPECT_EQ_MSG(test, memcmp(got, want, len), 0, "got %*phN",
			    (int)len, got);
}

static const u8 want_mac_c[] = {
	0x9e, 0x2d, 0xf1, 0x48, 0xb4, 0xe1, 0xc3, 0x48, 0x2d, 0x29, 0x89,
	0x98, 0x33, 0x71, 0x74, 0x92, 0x2f, 0xa0, 0x4b, 0x49, 0x88, 0xa5,
	0xed, 0x76, 0xc1, 0x71, 0xd1, 0xcb, 0x85, 0xca, 0x7f, 0x48,
};

static const u8 want_mac_a[] = {
	0xf1, 0x96, 0x1a, 0xf5, 0xec, 0xa5, 0x9e, 0x89, 0x95, 0xbe, 0xd1,
	0x83, 0x90, 0xd3, 0xf6, 0xb2, 0xd8, 0xf2, 0xe3, 0x47, 0x33, 0xbf,
	0x37, 0xc7, 0x96, 0x80, 0x31, 0x6b, 0xa9, 0xf2, 0x2b, 0x32,
};

static const u8 want_k_ca[] = {
	0x5d, 0xdb, 0x87, 0xcf, 0x18, 0xe2, 0x7a, 0x90, 0x50, 0xfb, 0xcb,
	0xc7, 0x7d, 0xda, 0xa9, 0x37, 0x45, 0xb1, 0x95, 0xe8, 0x4e, 0x24,
	0xae, 0x5e, 0x17, 0x02, 0xf3, 0x3e, 0x08, 0x1c, 0x0f, 0xd7,
};

static const u8 want_k_ac[] = {
	0x3c, 0x65, 0x9b, 0xb3, 0x6d, 0x71, 0xc8, 0x46, 0xeb, 0xfd, 0xeb,
	0xad, 0xe0, 0xfc, 0x28, 0xb8, 0x7d, 0x03, 0x1c, 0xfe, 0xa6, 0x51,
	0x8b, 0x2e, 0xff, 0xab, 0x30, 0x24, 0x88, 0xc8, 0x96, 0x00,
};

/*
 * "page data 0123456789abcdef" in a PUT from node 7, req_id 42, sealed
 * with k_ca at seq 5: encrypted (data, then tag), and authenticated only
 * (the tag).
 */
static const u8 want_sealed[] = {
	0x4d, 0xfd, 0xd4, 0x5e, 0x39, 0xb1, 0xce, 0xd3, 0xae, 0x10, 0xcc,
	0x53, 0x84, 0xa0, 0x89, 0x02, 0xc1, 0x3c, 0x37, 0xc5, 0xdc, 0x71,
	0x88, 0x4d, 0xa3, 0x59, 0x2f, 0x13, 0x73, 0xb5, 0xdf, 0xb6, 0x72,
	0x70, 0xe2, 0x0c, 0xfb, 0xfc, 0x1c, 0x79, 0xfa, 0xba,
};

static const u8 want_tag[] = {
	0x0e, 0x5c, 0x8c, 0xd5, 0x51, 0x10, 0xc8, 0x36, 0xf1, 0xe6, 0x08,
	0xf4, 0x0d, 0x54, 0x77, 0xa5,
};

static const char payload[] = "page data 0123456789abcdef";
#define PLEN	(sizeof(payload) - 1)

static void vector_inputs(u8 *key, u8 *nonce_c, u8 *nonce_a, u8 *hello,
			  u8 *reply)
{
	int i;

	for (i = 0; i < RAMSTER_WIRE_CLUSTER_KEY_LEN; i++)
		key[i] = i;
	for (i = 0; i < RAMSTER_WIRE_NONCE_LEN; i++) {
		nonce_c[i] = 0xa0 + i % 16;
		nonce_a[i] = 0x50 + i % 16;
	}
	for (i = 0; i < 64; i++) {
		hello[i] = i;
		reply[i] = 64 + i;
	}
}

static void derive_matches_vector(struct kunit *test)
{
	u8 key[32], nc[32], na[32], hello[64], reply[64];
	struct ramster_auth_secrets s;

	vector_inputs(key, nc, na, hello, reply);
	KUNIT_ASSERT_EQ(test, ramster_auth_derive_with(key, nc, na, hello, 64,
						       reply, 64, &s), 0);
	expect_bytes(test, s.mac_c, want_mac_c, 32);
	expect_bytes(test, s.mac_a, want_mac_a, 32);
	expect_bytes(test, s.k_ca, want_k_ca, 32);
	expect_bytes(test, s.k_ac, want_k_ac, 32);
	KUNIT_EXPECT_TRUE(test, ramster_auth_mac_equal(s.mac_c, want_mac_c));
	KUNIT_EXPECT_FALSE(test, ramster_auth_mac_equal(s.mac_c, s.mac_a));

	/* Any byte of the exchange changes everything. */
	reply[63] ^= 1;
	KUNIT_ASSERT_EQ(test, ramster_auth_derive_with(key, nc, na, hello, 64,
						       reply, 64, &s), 0);
	KUNIT_EXPECT_FALSE(test, ramster_auth_mac_equal(s.mac_c, want_mac_c));
	KUNIT_EXPECT_FALSE(test, ramster_auth_mac_equal(s.mac_a, want_mac_a));
	reply[63] ^= 1;
	nc[0] ^= 1;
	KUNIT_ASSERT_EQ(test, ramster_auth_derive_with(key, nc, na, hello, 64,
						       reply, 64, &s), 0);
	KUNIT_EXPECT_TRUE(test, ramster_auth_mac_equal(s.mac_c, want_mac_c));
	KUNIT_EXPECT_NE(test, memcmp(s.k_ca, want_k_ca, 32), 0);
	ramster_auth_secrets_wipe(&s);
}

/* A frame buffer: header, payload, room for the tag. */
struct sealed_frame {
	struct ramster_wire_hdr hdr;
	u8 data[PLEN + RAMSTER_WIRE_TAG_LEN];
};

/* The vectors' PUT, as the transport hands it to ramster_aead_seal(). */
static struct sealed_frame *vector_frame(struct kunit *test)
{
	struct sealed_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	f->hdr.magic = cpu_to_le32(RAMSTER_WIRE_MAGIC);
	f->hdr.version = 2;
	f->hdr.type = RAMSTER_MSG_PUT;
	f->hdr.plen = cpu_to_le32(PLEN);
	f->hdr.req_id = cpu_to_le64(42);
	f->hdr.src_node = cpu_to_le16(7);
	memcpy(f->data, payload, PLEN);
	return f;
}

static void seal_matches_vector(struct kunit *test)
{
	struct sealed_frame *f = vector_frame(test);
	struct ramster_aead tx;

	KUNIT_ASSERT_EQ(test, ramster_aead_init(&tx, want_k_ca, true), 0);
	tx.seq = 5;
	KUNIT_ASSERT_EQ(test, ramster_aead_seal(&tx, &f->hdr), 0);
	KUNIT_EXPECT_EQ(test, tx.seq, 6);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(f->hdr.seq), 5);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(f->hdr.flags),
			RAMSTER_F_AUTH | RAMSTER_F_ENCRYPTED);
	expect_bytes(test, f->data, want_sealed, sizeof(want_sealed));
	ramster_aead_destroy(&tx);

	f = vector_frame(test);
	KUNIT_ASSERT_EQ(test, ramster_aead_init(&tx, want_k_ca, false), 0);
	tx.seq = 5;
	KUNIT_ASSERT_EQ(test, ramster_aead_seal(&tx, &f->hdr), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(f->hdr.flags), RAMSTER_F_AUTH);
	expect_bytes(test, f->data, payload, PLEN);
	expect_bytes(test, f->data + PLEN, want_tag, sizeof(want_tag));
	ramster_aead_destroy(&tx);
}

/* Open @f with a fresh receiver at @seq, keyed and moded as given. */
static int open_at(struct kunit *test, struct sealed_frame *f, const u8 *key,
		   bool encrypt, u64 seq)
{
	struct ramster_aead rx;
	int ret;

	KUNIT_ASSERT_EQ(test, ramster_aead_init(&rx, key, encrypt), 0);
	rx.seq = seq;
	ret = ramster_aead_open(&rx, &f->hdr);
	KUNIT_EXPECT_EQ(test, rx.seq, ret ? seq : seq + 1);
	ramster_aead_destroy(&rx);
	return ret;
}

static struct sealed_frame *sealed(struct kunit *test, bool encrypt)
{
	struct sealed_frame *f = vector_frame(test);

	memcpy(f->data, encrypt ? want_sealed : (const u8 *)payload,
	       encrypt ? sizeof(want_sealed) : PLEN);
	if (!encrypt)
		memcpy(f->data + PLEN, want_tag, sizeof(want_tag));
	f->hdr.flags = cpu_to_le16(RAMSTER_F_AUTH |
				   (encrypt ? RAMSTER_F_ENCRYPTED : 0));
	f->hdr.seq = cpu_to_le32(5);
	return f;
}

/* Every way a frame can be wrong fails its tag; the right one opens. */
static void open_refuses_forgeries(struct kunit *test)
{
	struct sealed_frame *f;
	bool enc;

	for (enc = false; ; enc = true) {
		f = sealed(test, enc);
		KUNIT_EXPECT_EQ(test, open_at(test, f, want_k_ca, enc, 5), 0);
		expect_bytes(test, f->data, payload, PLEN);

		/* Replayed or reordered: another sequence number. */
		KUNIT_EXPECT_EQ(test, open_at(test, sealed(test, enc), want_k_ca,
					      enc, 6), -EBADMSG);
		KUNIT_EXPECT_EQ(test, open_at(test, sealed(test, enc), want_k_ca,
					      enc, 5 + (1ULL << 32)), -EBADMSG);
		/* The other direction's key, or the other mode. */
		KUNIT_EXPECT_EQ(test, open_at(test, sealed(test, enc), want_k_ac,
					      enc, 5), -EBADMSG);
		KUNIT_EXPECT_EQ(test, open_at(test, sealed(test, enc), want_k_ca,
					      !enc, 5), -EBADMSG);
		/* One bit flipped in the header, the payload, the tag. */
		f = sealed(test, enc);
		f->hdr.req_id ^= cpu_to_le64(1);
		KUNIT_EXPECT_EQ(test, open_at(test, f, want_k_ca, enc, 5),
				-EBADMSG);
		f = sealed(test, enc);
		f->data[3] ^= 0x10;
		KUNIT_EXPECT_EQ(test, open_at(test, f, want_k_ca, enc, 5),
				-EBADMSG);
		f = sealed(test, enc);
		f->data[PLEN + RAMSTER_WIRE_TAG_LEN - 1] ^= 0x80;
		KUNIT_EXPECT_EQ(test, open_at(test, f, want_k_ca, enc, 5),
				-EBADMSG);
		if (enc)
			break;
	}
}

static void parse_key_rules(struct kunit *test)
{
	static const char good[] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	static const char zero[] =
		"0000000000000000000000000000000000000000000000000000000000000000";
	static const char bad_digit[] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1g";
	u8 key[RAMSTER_WIRE_CLUSTER_KEY_LEN];
	char line[80];

	KUNIT_EXPECT_EQ(test, ramster_auth_parse_key(good, 64, key), 0);
	KUNIT_EXPECT_EQ(test, key[0x1f], 0x1f);
	snprintf(line, sizeof(line), "%s\n", good);
	KUNIT_EXPECT_EQ(test, ramster_auth_parse_key(line, 65, key), 0);
	KUNIT_EXPECT_EQ(test, ramster_auth_parse_key(good, 63, key), -EINVAL);
	snprintf(line, sizeof(line), "%s00", good);
	KUNIT_EXPECT_EQ(test, ramster_auth_parse_key(line, 66, key), -EINVAL);
	KUNIT_EXPECT_EQ(test, ramster_auth_parse_key(bad_digit, 64, key),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ramster_auth_parse_key(zero, 64, key), -EINVAL);
	KUNIT_EXPECT_EQ(test, ramster_auth_parse_key("", 0, key), -EINVAL);
}

static struct kunit_case ramster_auth_cases[] = {
	KUNIT_CASE(derive_matches_vector),
	KUNIT_CASE(seal_matches_vector),
	KUNIT_CASE(open_refuses_forgeries),
	KUNIT_CASE(parse_key_rules),
	{}
};

static struct kunit_suite ramster_auth_suite = {
	.name = "ramster_auth",
	.test_cases = ramster_auth_cases,
};

kunit_test_suite(ramster_auth_suite);
