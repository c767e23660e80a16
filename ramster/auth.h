/* SPDX-License-Identifier: GPL-2.0 */
/*
 * auth.h - the cluster key and the cryptography of authenticated links
 *
 * The constructions are the protocol's and are written down in wire.h;
 * this is their implementation through the kernel crypto API.
 */
#ifndef _RAMSTER_AUTH_H
#define _RAMSTER_AUTH_H

#include <linux/types.h>

#include "wire.h"

struct crypto_aead;
struct aead_request;

/**
 * struct ramster_auth_secrets - what one authenticated handshake yields
 * @mac_c: the connecting node's proof
 * @mac_a: the accepting node's proof
 * @k_ca: session key of the frames from the connecting node
 * @k_ac: session key of the frames from the accepting node
 */
struct ramster_auth_secrets {
	u8 mac_c[RAMSTER_WIRE_MAC_LEN];
	u8 mac_a[RAMSTER_WIRE_MAC_LEN];
	u8 k_ca[RAMSTER_WIRE_CLUSTER_KEY_LEN];
	u8 k_ac[RAMSTER_WIRE_CLUSTER_KEY_LEN];
};

/**
 * struct ramster_aead - one direction of an authenticated link
 * @tfm: the AEAD, keyed with the direction's session key
 * @req: its request, allocated with it: sealing and opening a frame
 *	never allocate (the send path runs when memory is short)
 * @seq: sequence number of the next frame in this direction
 * @encrypt: payloads are encrypted (RAMSTER_F_ENCRYPTED)
 *
 * Used by one context at a time: the sender holds the peer's tx_mutex,
 * the receiver is the link's thread.
 */
struct ramster_aead {
	struct crypto_aead *tfm;
	struct aead_request *req;
	u64 seq;
	bool encrypt;
};

int ramster_auth_parse_key(const char *text, size_t len, u8 *key);
int ramster_auth_set_key(const u8 *key);
bool ramster_auth_has_key(void);

int ramster_auth_derive_with(const u8 *key, const u8 *nonce_c,
			     const u8 *nonce_a, const void *hello, u32 hello_len,
			     const void *reply, u32 reply_len,
			     struct ramster_auth_secrets *out);
int ramster_auth_derive(const u8 *nonce_c, const u8 *nonce_a,
			const void *hello, u32 hello_len,
			const void *reply, u32 reply_len,
			struct ramster_auth_secrets *out);
bool ramster_auth_mac_equal(const u8 *a, const u8 *b);
void ramster_auth_secrets_wipe(struct ramster_auth_secrets *secrets);

int ramster_aead_init(struct ramster_aead *aead, const u8 *key, bool encrypt);
void ramster_aead_destroy(struct ramster_aead *aead);
int ramster_aead_seal(struct ramster_aead *aead, struct ramster_wire_hdr *hdr);
int ramster_aead_open(struct ramster_aead *aead, struct ramster_wire_hdr *hdr);

int ramster_auth_init(void);
void ramster_auth_exit(void);

#endif /* _RAMSTER_AUTH_H */
