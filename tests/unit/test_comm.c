// SPDX-License-Identifier: GPL-2.0
/* life_comm_words(): a task's name read by words keeps nothing past its NUL. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "life.h"

int main(void)
{
	srandom(7);
	/* every length, the bytes after the NUL random (an older, longer
	 * name's, NULs among them), the name's own bytes any non-NUL */
	for (int len = 0; len <= LIFE_COMM_LEN; len++) {
		for (int t = 0; t < 5000; t++) {
			unsigned char c[LIFE_COMM_LEN], want[LIFE_COMM_LEN] = { 0 };
			__u64 w[2], got[2];

			for (int i = 0; i < LIFE_COMM_LEN; i++)
				c[i] = i < len ? 1 + random() % 255 : random() % 256;
			if (len < LIFE_COMM_LEN)
				c[len] = 0;
			memcpy(want, c, len);
			memcpy(w, c, sizeof(w));
			life_comm_words(w, got);
			CHECK(!memcmp(got, want, sizeof(want)), "name of %d bytes: bytes past its NUL kept", len);
		}
	}
	CHECK_DONE();
}
