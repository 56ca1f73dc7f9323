// SPDX-License-Identifier: GPL-2.0
/* life_phases(): the one definition of Q2G, G2I, I2D, D2C and Q2C. */
#include "check.h"
#include "life.h"

#define ALL (SEEN_Q | SEEN_G | SEEN_I | SEEN_D)

static __u64 ph[PH_NR];

static int sums(void)
{
	return ph[PH_Q2G] + ph[PH_G2I] + ph[PH_I2D] + ph[PH_D2C] == ph[PH_Q2C];
}

int main(void)
{
	/* the plain case: every stamp, in order */
	CHECK(life_phases(100, 130, 150, 190, 300, ALL, ph), "complete");
	CHECK(ph[PH_Q2G] == 30 && ph[PH_G2I] == 20 && ph[PH_I2D] == 40 && ph[PH_D2C] == 110 &&
	      ph[PH_Q2C] == 200, "%llu %llu %llu %llu %llu", ph[0], ph[1], ph[2], ph[3], ph[4]);
	/* issued directly, no insert: G2I runs to the issue, I2D is 0 */
	CHECK(life_phases(100, 130, 0, 190, 300, SEEN_Q | SEEN_G | SEEN_D, ph), "no insert");
	CHECK(ph[PH_G2I] == 60 && ph[PH_I2D] == 0 && sums(), "G2I %llu I2D %llu", ph[PH_G2I], ph[PH_I2D]);
	/* a plug-cached kernel G stamp a little behind Q: never negative, still adds up */
	CHECK(life_phases(100, 95, 150, 190, 300, ALL, ph), "G behind Q");
	CHECK(ph[PH_Q2G] == 0 && ph[PH_G2I] == 50 && sums(), "Q2G %llu G2I %llu", ph[PH_Q2G], ph[PH_G2I]);
	/* D behind I (clock skew): I2D is 0, D2C from I */
	CHECK(life_phases(100, 130, 150, 140, 300, ALL, ph), "D behind I");
	CHECK(ph[PH_I2D] == 0 && ph[PH_D2C] == 150 && sums(), "I2D %llu D2C %llu", ph[PH_I2D], ph[PH_D2C]);
	/* a frozen queue: the wait is all Q2G */
	CHECK(life_phases(1000, 21000000, 21000010, 21000020, 21000100, ALL, ph), "frozen");
	CHECK(ph[PH_Q2G] == 20999000 && sums(), "Q2G %llu", ph[PH_Q2G]);
	/* partial: started before tracing (no Q): Q2C from G, no Q2G, not complete */
	CHECK(!life_phases(0, 130, 150, 190, 300, SEEN_G | SEEN_I | SEEN_D, ph), "no Q is partial");
	CHECK(ph[PH_Q2G] == 0 && ph[PH_Q2C] == 170 && ph[PH_D2C] == 110, "Q2C %llu", ph[PH_Q2C]);
	/* partial: never issued (no D): no D2C, and not complete */
	CHECK(!life_phases(100, 130, 150, 0, 300, SEEN_Q | SEEN_G | SEEN_I, ph), "no D is partial");
	CHECK(ph[PH_D2C] == 0 && ph[PH_I2D] == 0 && ph[PH_Q2G] == 30, "D2C %llu", ph[PH_D2C]);
	/* a completion stamp behind the start cannot wrap */
	life_phases(100, 130, 150, 190, 50, ALL, ph);
	CHECK(ph[PH_Q2C] == 0 && ph[PH_D2C] == 0, "Q2C %llu D2C %llu", ph[PH_Q2C], ph[PH_D2C]);
	CHECK_DONE();
}
