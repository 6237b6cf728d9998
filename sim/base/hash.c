/* FNV-1a 64 and splitmix64 (sim/base/hash.h).
 * SPDX-License-Identifier: MIT */
#include "base/hash.h"

uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= HASH_FNV1A_PRIME;
	}
	return h;
}

uint64_t hash_fnv1a_str(const char *s)
{
	uint64_t h = HASH_FNV1A_BASIS;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= HASH_FNV1A_PRIME;
	}
	return h;
}

uint64_t hash_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

uint64_t hash_splitmix64(uint64_t x)
{
	return hash_mix64(x + HASH_GOLDEN_GAMMA);
}
