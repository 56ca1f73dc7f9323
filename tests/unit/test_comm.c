// SPDX-License-Identifier: GPL-2.0
/* life_comm_mask(): a task's name read by words keeps nothing past its NUL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "life.h"

/* The two words as the BPF side makes them (life_block.bpf.c, current_comm) */
static void words(const unsigned char *c, uint64_t *out)
{
	uint64_t w[2], m0;

	memcpy(w, c, sizeof(w));
	m0 = life_comm_mask(w[0]);
	out[0] = w[0] & m0;
	out[1] = w[1] & life_comm_mask(w[1]) & (uint64_t)((int64_t)m0 >> 63);
}

int main(void)
{
	srandom(7);
	/* every length, the bytes after the NUL random (an older, longer
	 * name's, NULs among them), the name's own bytes any non-NUL */
	for (int len = 0; len <= LIFE_COMM_LEN; len++) {
		for (int t = 0; t < 5000; t++) {
			unsigned char c[LIFE_COMM_LEN], want[LIFE_COMM_LEN] = { 0 };
			uint64_t got[2];

			for (int i = 0; i < LIFE_COMM_LEN; i++)
				c[i] = i < len ? 1 + random() % 255 : random() % 256;
			if (len < LIFE_COMM_LEN)
				c[len] = 0;
			memcpy(want, c, len);
			words(c, got);
			CHECK(!memcmp(got, want, sizeof(want)), "name of %d bytes: bytes past its NUL kept", len);
		}
	}
	CHECK_DONE();
}
