// SPDX-License-Identifier: GPL-2.0
/*
 * auth.c - the cluster key and the cryptography of authenticated links
 *
 * Standard primitives only, through the crypto API: HMAC-SHA256 for the
 * handshake's proofs, HKDF (RFC 5869) over it for the session keys, and
 * the AEAD rfc7539(chacha20,poly1305) for every frame of a live link
 * (wire.h has the constructions).  ChaCha20-Poly1305 rather than
 * gcm(aes): these guests, and many hosts pooling memory, have no AES
 * instructions to make GCM fast, and it needs none; it is also what
 * WireGuard chose for kernel links.
 *
 * The key is set once through configfs (cluster.c), before the links
 * start, and is never readable back nor logged.  Derivations copy it
 * under ramster_auth_key_lock and wipe their copies.
 *
 * Everything here may sleep except ramster_aead_seal() and
 * ramster_aead_open(), which neither sleep nor allocate: their tfm and
 * request come from ramster_aead_init(), at handshake time, and the AEAD
 * is a synchronous one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aead.h>
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <kunit/visibility.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "auth.h"

static DEFINE_MUTEX(ramster_auth_key_lock);	/* the two below */
static u8 ramster_auth_key[RAMSTER_WIRE_CLUSTER_KEY_LEN];
static bool ramster_auth_key_set;

static const char ramster_label_proof_c[] = "ramster v2 proof c";
static const char ramster_label_proof_a[] = "ramster v2 proof a";
static const char ramster_label_key_ca[] = "ramster v2 key c>a";
static const char ramster_label_key_ac[] = "ramster v2 key a>c";

/**
 * ramster_auth_parse_key - read a cluster key as configfs gets it
 * @text: 64 hex digits, maybe followed by a newline
 * @len: bytes in @text
 * @key: RAMSTER_WIRE_CLUSTER_KEY_LEN bytes out
 *
 * Return: 0, or -EINVAL for anything else (an all-zero key included: it
 * is what an unset key looks like).
 */
int ramster_auth_parse_key(const char *text, size_t len, u8 *key)
{
	if (len && text[len - 1] == '\n')
		len--;
	if (len != 2 * RAMSTER_WIRE_CLUSTER_KEY_LEN ||
	    hex2bin(key, text, RAMSTER_WIRE_CLUSTER_KEY_LEN))
		return -EINVAL;
	if (!memchr_inv(key, 0, RAMSTER_WIRE_CLUSTER_KEY_LEN))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_auth_parse_key);

/**
 * ramster_auth_set_key - install the cluster key
 * @key: RAMSTER_WIRE_CLUSTER_KEY_LEN bytes
 *
 * The caller (configfs) refuses a new key once the links started.
 *
 * Return: 0.
 */
int ramster_auth_set_key(const u8 *key)
{
	mutex_lock(&ramster_auth_key_lock);
	memcpy(ramster_auth_key, key, sizeof(ramster_auth_key));
	ramster_auth_key_set = true;
	mutex_unlock(&ramster_auth_key_lock);
	return 0;
}

bool ramster_auth_has_key(void)
{
	bool set;

	mutex_lock(&ramster_auth_key_lock);
	set = ramster_auth_key_set;
	mutex_unlock(&ramster_auth_key_lock);
	return set;
}

/* HMAC-SHA256(key, a || b || c); @b and @c may be empty. */
static int ramster_hmac(struct crypto_shash *hmac, const u8 *key,
			unsigned int klen, const void *a, unsigned int alen,
			const void *b, unsigned int blen, const void *c,
			unsigned int clen, u8 *out)
{
	SHASH_DESC_ON_STACK(desc, hmac);
	int ret;

	ret = crypto_shash_setkey(hmac, key, klen);
	if (ret)
		return ret;
	desc->tfm = hmac;
	ret = crypto_shash_init(desc);
	if (!ret)
		ret = crypto_shash_update(desc, a, alen);
	if (!ret && blen)
		ret = crypto_shash_update(desc, b, blen);
	if (!ret && clen)
		ret = crypto_shash_update(desc, c, clen);
	if (!ret)
		ret = crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return ret;
}

/**
 * ramster_auth_derive_with - the proofs and session keys of a handshake
 * @key: the cluster key
 * @nonce_c: the connecting node's nonce
 * @nonce_a: the accepting node's nonce
 * @hello: the HELLO payload as sent
 * @hello_len: its length
 * @reply: the HELLO_REPLY payload as sent
 * @reply_len: its length
 * @out: the results
 *
 * Return: 0 or a negative errno from the crypto API.
 */
int ramster_auth_derive_with(const u8 *key, const u8 *nonce_c,
			     const u8 *nonce_a, const void *hello, u32 hello_len,
			     const void *reply, u32 reply_len,
			     struct ramster_auth_secrets *out)
{
	u8 salt[2 * RAMSTER_WIRE_NONCE_LEN];
	u8 prk[SHA256_DIGEST_SIZE];
	u8 t[SHA256_DIGEST_SIZE];
	struct crypto_shash *hmac;
	struct sha256_state sha;
	static const u8 one = 1;
	int ret;

	sha256_init(&sha);
	sha256_update(&sha, hello, hello_len);
	sha256_update(&sha, reply, reply_len);
	sha256_final(&sha, t);

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac))
		return PTR_ERR(hmac);
	memcpy(salt, nonce_c, RAMSTER_WIRE_NONCE_LEN);
	memcpy(salt + RAMSTER_WIRE_NONCE_LEN, nonce_a, RAMSTER_WIRE_NONCE_LEN);

	ret = ramster_hmac(hmac, key, RAMSTER_WIRE_CLUSTER_KEY_LEN,
			   ramster_label_proof_c, strlen(ramster_label_proof_c),
			   t, sizeof(t), NULL, 0, out->mac_c);
	if (!ret)
		ret = ramster_hmac(hmac, key, RAMSTER_WIRE_CLUSTER_KEY_LEN,
				   ramster_label_proof_a,
				   strlen(ramster_label_proof_a),
				   t, sizeof(t), NULL, 0, out->mac_a);
	/* HKDF-Extract, then one block of HKDF-Expand per direction. */
	if (!ret)
		ret = ramster_hmac(hmac, salt, sizeof(salt), key,
				   RAMSTER_WIRE_CLUSTER_KEY_LEN, NULL, 0, NULL, 0,
				   prk);
	if (!ret)
		ret = ramster_hmac(hmac, prk, sizeof(prk), ramster_label_key_ca,
				   strlen(ramster_label_key_ca), t, sizeof(t),
				   &one, 1, out->k_ca);
	if (!ret)
		ret = ramster_hmac(hmac, prk, sizeof(prk), ramster_label_key_ac,
				   strlen(ramster_label_key_ac), t, sizeof(t),
				   &one, 1, out->k_ac);
	crypto_free_shash(hmac);
	memzero_explicit(prk, sizeof(prk));
	if (ret)
		ramster_auth_secrets_wipe(out);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_auth_derive_with);

/**
 * ramster_auth_derive - ramster_auth_derive_with() the cluster key
 * @nonce_c: see ramster_auth_derive_with()
 * @nonce_a: ...
 * @hello: ...
 * @hello_len: ...
 * @reply: ...
 * @reply_len: ...
 * @out: ...
 *
 * Return: 0, -ENOKEY without a key, or a negative errno.
 */
int ramster_auth_derive(const u8 *nonce_c, const u8 *nonce_a,
			const void *hello, u32 hello_len,
			const void *reply, u32 reply_len,
			struct ramster_auth_secrets *out)
{
	u8 key[RAMSTER_WIRE_CLUSTER_KEY_LEN];
	bool set;
	int ret;

	mutex_lock(&ramster_auth_key_lock);
	set = ramster_auth_key_set;
	memcpy(key, ramster_auth_key, sizeof(key));
	mutex_unlock(&ramster_auth_key_lock);
	ret = set ? ramster_auth_derive_with(key, nonce_c, nonce_a, hello,
					     hello_len, reply, reply_len, out) :
		    -ENOKEY;
	memzero_explicit(key, sizeof(key));
	return ret;
}

/* Constant time: a proof is never compared byte by byte. */
bool ramster_auth_mac_equal(const u8 *a, const u8 *b)
{
	return !crypto_memneq(a, b, RAMSTER_WIRE_MAC_LEN);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_auth_mac_equal);

void ramster_auth_secrets_wipe(struct ramster_auth_secrets *secrets)
{
	memzero_explicit(secrets, sizeof(*secrets));
}
EXPORT_SYMBOL_IF_KUNIT(ramster_auth_secrets_wipe);

/**
 * ramster_aead_init - key one direction of a link
 * @aead: the direction, zeroed or destroyed before
 * @key: its session key
 * @encrypt: encrypt payloads, or authenticate only
 *
 * Return: 0 or a negative errno (then @aead holds nothing).
 */
int ramster_aead_init(struct ramster_aead *aead, const u8 *key, bool encrypt)
{
	int ret;

	memset(aead, 0, sizeof(*aead));
	/* Synchronous implementations only: the send path cannot wait. */
	aead->tfm = crypto_alloc_aead(RAMSTER_WIRE_AEAD, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(aead->tfm)) {
		ret = PTR_ERR(aead->tfm);
		aead->tfm = NULL;
		return ret;
	}
	ret = crypto_aead_setkey(aead->tfm, key, RAMSTER_WIRE_CLUSTER_KEY_LEN);
	if (!ret)
		ret = crypto_aead_setauthsize(aead->tfm, RAMSTER_WIRE_TAG_LEN);
	if (ret)
		goto err_free_tfm;
	aead->req = aead_request_alloc(aead->tfm, GFP_KERNEL);
	if (!aead->req) {
		ret = -ENOMEM;
		goto err_free_tfm;
	}
	aead_request_set_callback(aead->req, 0, NULL, NULL);
	aead->encrypt = encrypt;
	return 0;

err_free_tfm:
	crypto_free_aead(aead->tfm);
	aead->tfm = NULL;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_aead_init);

void ramster_aead_destroy(struct ramster_aead *aead)
{
	aead_request_free(aead->req);
	crypto_free_aead(aead->tfm);
	memset(aead, 0, sizeof(*aead));
}
EXPORT_SYMBOL_IF_KUNIT(ramster_aead_destroy);

/*
 * Point the request at a frame in place: [header | payload | tag].
 * @crypt is what is encrypted or decrypted after the associated data.
 */
static void ramster_aead_setup(struct ramster_aead *aead,
			       struct ramster_wire_hdr *hdr, u32 plen,
			       bool decrypt, struct scatterlist *sg, u8 *iv)
{
	u32 ad = sizeof(*hdr) + (aead->encrypt ? 0 : plen);
	u32 crypt = (aead->encrypt ? plen : 0) +
		    (decrypt ? RAMSTER_WIRE_TAG_LEN : 0);
	__le64 seq = cpu_to_le64(aead->seq);

	memset(iv, 0, RAMSTER_WIRE_AEAD_IV_LEN);
	memcpy(iv, &seq, sizeof(seq));
	sg_init_one(sg, hdr, sizeof(*hdr) + plen + RAMSTER_WIRE_TAG_LEN);
	aead_request_set_ad(aead->req, ad);
	aead_request_set_crypt(aead->req, sg, sg, crypt, iv);
}

/**
 * ramster_aead_seal - authenticate (and encrypt) a frame for sending
 * @aead: the sending direction
 * @hdr: a frame with its header filled in, hdr->plen payload bytes, and
 *	RAMSTER_WIRE_TAG_LEN bytes of room after them for the tag
 *
 * Sets the header's flags, pcrc and seq, then the tag.  Neither sleeps
 * nor allocates.
 *
 * Return: 0 or a negative errno from the AEAD.
 */
int ramster_aead_seal(struct ramster_aead *aead, struct ramster_wire_hdr *hdr)
{
	u8 iv[RAMSTER_WIRE_AEAD_IV_LEN];
	struct scatterlist sg;
	int ret;

	hdr->flags = cpu_to_le16(RAMSTER_F_AUTH |
				 (aead->encrypt ? RAMSTER_F_ENCRYPTED : 0));
	hdr->pcrc = 0;
	hdr->seq = cpu_to_le32(lower_32_bits(aead->seq));
	ramster_aead_setup(aead, hdr, le32_to_cpu(hdr->plen), false, &sg, iv);
	ret = crypto_aead_encrypt(aead->req);
	if (!ret)
		aead->seq++;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_aead_seal);

/**
 * ramster_aead_open - check (and decrypt) a received frame in place
 * @aead: the receiving direction
 * @hdr: the frame: header (already checked by ramster_wire_check_hdr()
 *	with this direction's seq), payload and tag
 *
 * Return: 0, or -EBADMSG when the tag does not verify: the frame was
 * altered, replayed, reordered, or sealed with another key.
 */
int ramster_aead_open(struct ramster_aead *aead, struct ramster_wire_hdr *hdr)
{
	u8 iv[RAMSTER_WIRE_AEAD_IV_LEN];
	struct scatterlist sg;
	int ret;

	ramster_aead_setup(aead, hdr, le32_to_cpu(hdr->plen), true, &sg, iv);
	ret = crypto_aead_decrypt(aead->req);
	if (!ret)
		aead->seq++;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_aead_open);

/* Fail at load, not at the first handshake, if the kernel lacks one. */
int ramster_auth_init(void)
{
	struct crypto_shash *hmac;
	struct crypto_aead *aead;

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac)) {
		pr_err("no hmac(sha256) in this kernel (%ld)\n", PTR_ERR(hmac));
		return PTR_ERR(hmac);
	}
	crypto_free_shash(hmac);
	aead = crypto_alloc_aead(RAMSTER_WIRE_AEAD, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(aead)) {
		pr_err("no %s in this kernel (%ld)\n", RAMSTER_WIRE_AEAD,
		       PTR_ERR(aead));
		return PTR_ERR(aead);
	}
	crypto_free_aead(aead);
	return 0;
}

void ramster_auth_exit(void)
{
	mutex_lock(&ramster_auth_key_lock);
	memzero_explicit(ramster_auth_key, sizeof(ramster_auth_key));
	ramster_auth_key_set = false;
	mutex_unlock(&ramster_auth_key_lock);
}
