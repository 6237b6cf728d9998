/* The one hash and the one mixer (sim/base/hash.h) against their published
 * test vectors: FNV-1a 64 of "", "a" and "foobar" (the FNV authors' test
 * suite, http://www.isthe.com/chongo/src/fnv/test_fnv.c) and the first
 * outputs of splitmix64 seeded 0 (Vigna's splitmix64.c,
 * https://prng.di.unimi.it/splitmix64.c); and the seeds built from them
 * (sweep points, Monte-Carlo replicas) as their documents define them.
 * SPDX-License-Identifier: MIT */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "run/mc.h"
#include "sweep/sweep.h"
#include "testutil.h"

START_TEST(fnv1a_vectors)
{
	ck_assert_uint_eq(hash_fnv1a(HASH_FNV1A_BASIS, NULL, 0), UINT64_C(0xcbf29ce484222325));
	ck_assert_uint_eq(hash_fnv1a(HASH_FNV1A_BASIS, "a", 1), UINT64_C(0xaf63dc4c8601ec8c));
	ck_assert_uint_eq(hash_fnv1a(HASH_FNV1A_BASIS, "foobar", 6), UINT64_C(0x85944171f73967e8));
	/* continued in pieces as in one go; the string form alike */
	ck_assert_uint_eq(hash_fnv1a(hash_fnv1a(HASH_FNV1A_BASIS, "foo", 3), "bar", 3),
			  UINT64_C(0x85944171f73967e8));
	ck_assert_uint_eq(hash_fnv1a_str("foobar"), UINT64_C(0x85944171f73967e8));
	ck_assert_uint_eq(hash_fnv1a_str(""), HASH_FNV1A_BASIS);
}
END_TEST

START_TEST(splitmix64_vectors)
{
	/* a generator of state 0 steps its state by the gamma before mixing */
	ck_assert_uint_eq(hash_splitmix64(0), UINT64_C(0xe220a8397b1dcdaf));
	ck_assert_uint_eq(hash_splitmix64(HASH_GOLDEN_GAMMA), UINT64_C(0x6e789e6aa1b965f4));
	ck_assert_uint_eq(hash_splitmix64(2 * HASH_GOLDEN_GAMMA), UINT64_C(0x06c45d188009454f));
	ck_assert_uint_eq(hash_mix64(HASH_GOLDEN_GAMMA), UINT64_C(0xe220a8397b1dcdaf));
	ck_assert_uint_eq(hash_mix64(0), 0);
}
END_TEST

/* sweep.h: a point's seed is splitmix64 of seed ^ (i x golden ratio);
 * mc.h: a replica's is splitmix64(splitmix64(seed) ^ replica x gamma). */
START_TEST(seeds_from_the_mixer)
{
	ck_assert_uint_eq(sweep_point_seed(0, 0), UINT64_C(0xe220a8397b1dcdaf));
	ck_assert_uint_eq(sweep_point_seed(0, 1), UINT64_C(0x6e789e6aa1b965f4));
	ck_assert_uint_eq(mc_seed(0, 0), hash_splitmix64(UINT64_C(0xe220a8397b1dcdaf)));
	ck_assert_uint_eq(mc_seed(0, 1),
			  hash_splitmix64(UINT64_C(0xe220a8397b1dcdaf) ^ HASH_GOLDEN_GAMMA));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tu_tcase("hash");
	tcase_add_test(tc, fnv1a_vectors);
	tcase_add_test(tc, splitmix64_vectors);
	tcase_add_test(tc, seeds_from_the_mixer);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
