// SPDX-License-Identifier: GPL-2.0
/*
 * frame_io.c - frames on a kernel TCP socket
 *
 * Sending: a frame is sealed (a crc32c of its payload, or on an
 * authenticated link the AEAD tag of auth.c) and written whole, with
 * MSG_NOSIGNAL and the socket's sk_sndtimeo bounding every wait.
 *
 * Receiving: the fixed-size header is read and checked (wire.c) before a
 * byte of payload is read, so a length is never trusted; then the payload
 * (and tag) are read, the tag is verified and the payload decrypted, and
 * the payload is checked.  A frame that breaks a rule is counted (rx_*),
 * logged, and the caller closes the connection.
 *
 * Every wait is bounded.  A live link's reader gets a call to its idle
 * function on each receive timeout (the link's checks and keepalives); a
 * handshake's reader has one deadline for the whole frame, so a peer
 * sending a byte at a time cannot hold a handshake open longer than the
 * deadline.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/jiffies.h>
#include <linux/net.h>
#include <net/sock.h>

#include "frame_io.h"
#include "stats.h"

/**
 * ramster_frame_send - seal and send one frame
 * @sock: the connection
 * @hdr: the frame: header (all but flags, pcrc and seq filled in), then
 *	hdr->plen payload bytes, then RAMSTER_WIRE_TAG_LEN bytes of room
 * @aead: the sending direction of an authenticated link, or NULL
 *
 * Return: 0, or a negative errno (-ETIMEDOUT when sk_sndtimeo passed).
 */
int ramster_frame_send(struct socket *sock, struct ramster_wire_hdr *hdr,
		       struct ramster_aead *aead)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	u32 plen = le32_to_cpu(hdr->plen);
	size_t len = sizeof(*hdr) + plen;
	const u8 *buf = (const u8 *)hdr;
	size_t left;
	struct kvec iov;
	int ret;

	if (aead) {
		ret = ramster_aead_seal(aead, hdr);
		if (ret)
			return ret;
		len += RAMSTER_WIRE_TAG_LEN;
	} else {
		hdr->flags = 0;
		hdr->seq = 0;
		hdr->pcrc = cpu_to_le32(plen ? crc32c(0, hdr + 1, plen) : 0);
	}

	for (left = len; left; ) {
		iov.iov_base = (void *)buf;
		iov.iov_len = left;
		ret = kernel_sendmsg(sock, &msg, &iov, 1, left);
		if (ret == -EAGAIN)
			return -ETIMEDOUT;
		if (ret <= 0)
			return ret ? ret : -EPIPE;
		buf += ret;
		left -= ret;
	}
	ramster_stat_add(RAMSTER_STAT_BYTES_SENT, len);
	ramster_stat_inc(RAMSTER_STAT_FRAMES_SENT);
	return 0;
}

/* Read exactly @len bytes, within the reader's bounds (see the top). */
static int ramster_frame_read(struct ramster_frame_reader *r, void *buf,
			      size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec iov;
	size_t done = 0;
	long left;
	int ret;

	while (done < len) {
		if (!r->idle) {
			left = (long)(r->deadline - jiffies);
			if (left <= 0)
				return -ETIMEDOUT;
			r->sock->sk->sk_rcvtimeo = left;
		}
		iov.iov_base = buf + done;
		iov.iov_len = len - done;
		ret = kernel_recvmsg(r->sock, &msg, &iov, 1, iov.iov_len,
				     MSG_WAITALL | MSG_NOSIGNAL);
		if (ret > 0) {
			done += ret;
			if (r->last_rx)
				*r->last_rx = jiffies;
			continue;
		}
		if (ret == 0)
			return -ECONNRESET;
		if (ret != -EAGAIN)
			return ret;
		if (!r->idle)
			return -ETIMEDOUT;
		ret = r->idle(r->ctx);
		if (ret)
			return ret;
	}
	ramster_stat_add(RAMSTER_STAT_BYTES_RECEIVED, len);
	return 0;
}

/* The rx_* counters follow enum ramster_wire_error, one per error. */
static_assert(RAMSTER_STAT_RX_BAD_PAYLOAD - RAMSTER_STAT_RX_BAD_MAGIC ==
	      RAMSTER_WIRE_BAD_PAYLOAD - RAMSTER_WIRE_BAD_MAGIC);
static_assert(RAMSTER_WIRE_BAD_SEQ + 1 == RAMSTER_WIRE_NR_ERRORS);

static void ramster_count_wire_error(enum ramster_wire_error err)
{
	if (err == RAMSTER_WIRE_BAD_SEQ)
		ramster_stat_inc(RAMSTER_STAT_RX_BAD_SEQ);
	else
		ramster_stat_inc(RAMSTER_STAT_RX_BAD_MAGIC + err -
				 RAMSTER_WIRE_BAD_MAGIC);
}

/**
 * ramster_frame_recv - read, check and open one frame into reader->buf
 * @reader: the connection
 *
 * Return: 0 with a valid frame (payload in clear) in reader->buf;
 * -EPROTO for a frame that broke a rule or whose tag did not verify
 * (counted and logged); another negative errno when the connection
 * failed, timed out, or the idle function said so.
 */
int ramster_frame_recv(struct ramster_frame_reader *reader)
{
	struct ramster_wire_hdr *hdr = (void *)reader->buf;
	struct ramster_wire_expect *expect = &reader->expect;
	struct ramster_wire_rule rule;
	enum ramster_wire_error err;
	u32 tail;
	int ret;

	if (reader->aead)
		expect->seq = lower_32_bits(reader->aead->seq);
	ret = ramster_frame_read(reader, hdr, sizeof(*hdr));
	if (ret)
		return ret;
	err = ramster_wire_check_hdr(hdr, expect,
				     reader->rule_of(hdr->type, &rule) ?
				     &rule : NULL);
	if (err)
		goto bad;
	tail = reader->aead ? RAMSTER_WIRE_TAG_LEN : 0;
	ret = ramster_frame_read(reader, hdr + 1,
				 le32_to_cpu(hdr->plen) + tail);
	if (ret)
		return ret;
	if (reader->aead && ramster_aead_open(reader->aead, hdr)) {
		ramster_stat_inc(RAMSTER_STAT_RX_BAD_TAG);
		pr_warn_ratelimited("%s: frame (type %u) failed authentication: closing the connection\n",
				    reader->who, hdr->type);
		return -EPROTO;
	}
	err = ramster_wire_check_payload(hdr, hdr + 1, &rule);
	if (err)
		goto bad;
	ramster_stat_inc(RAMSTER_STAT_FRAMES_RECEIVED);
	return 0;

bad:
	ramster_count_wire_error(err);
	pr_warn_ratelimited("%s: rejected frame (type %u): %s: closing the connection\n",
			    reader->who, hdr->type, ramster_wire_error_name(err));
	return -EPROTO;
}
