/* The one hash and the one mixer of trainsim: FNV-1a 64 over bytes, to
 * tell inputs apart (digests of a sweep or a search, hash tables), and
 * splitmix64, to derive unrelated seeds and hash small keys evenly.
 * SPDX-License-Identifier: MIT */
#ifndef TS_BASE_HASH_H
#define TS_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64's offset basis and prime (Fowler, Noll, Vo;
 * http://www.isthe.com/chongo/tech/comp/fnv/). */
#define HASH_FNV1A_BASIS UINT64_C(0xcbf29ce484222325)
#define HASH_FNV1A_PRIME UINT64_C(0x100000001b3)

/* splitmix64's increment, 2^64 / golden ratio, odd (Steele, Lea and
 * Flood 2014, "Fast splittable pseudorandom number generators",
 * OOPSLA). */
#define HASH_GOLDEN_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* FNV-1a 64 of the n bytes at p, continued from h (HASH_FNV1A_BASIS to
 * start): a well-known hash whose job is to tell inputs apart, not to
 * resist an adversary. p may be NULL when n is 0. */
uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n);

/* FNV-1a 64 of the NUL-terminated string s (its bytes without the NUL). */
uint64_t hash_fnv1a_str(const char *s);

/* splitmix64's finaliser: a bijection of 64-bit words whose every output
 * bit depends on every input bit (variant 13 of Stafford's mixers, as
 * splitmix64 uses it). */
uint64_t hash_mix64(uint64_t x);

/* splitmix64 as a function of its state: hash_mix64(x + HASH_GOLDEN_GAMMA),
 * the output of a generator whose state was x (seeded 0: 0xe220a8397b1dcdaf,
 * Vigna's reference splitmix64.c). */
uint64_t hash_splitmix64(uint64_t x);

#endif
