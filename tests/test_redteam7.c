/* test_redteam7.c — a seventh adversarial pass: names and indices a file
 * chooses to crowd the hash tables, and what else it found (docs/errors.md). */
#include "internal.h"
#include "support.h"

#include <criterion/criterion.h>
#include <usmp/usmp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names crafted against an unkeyed hash ------------------------------- */

/* The string hash the name tables used, unkeyed: FNV-1a over the bytes,
 * the high half folded onto the low. Anyone can compute it, so a file can
 * choose names whose slots all fall in one short stretch of the table. */
static uint32_t unkeyed_name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	uint32_t r = (uint32_t)(h ^ (h >> 32));
	return r ? r : 1;
}

/* `n` names "b<k>" whose unkeyed hash has its low `bits` bits below `w`,
 * as one block of NUL-separated strings (*names[i] into it). */
static char *crowded_names(uint32_t n, unsigned bits, uint32_t w,
                           const char ***names)
{
	char *block = malloc((size_t)n * 24);
	const char **at = malloc((size_t)n * sizeof *at);
	cr_assert(block && at);
	size_t used = 0;
	uint32_t mask = (1u << bits) - 1;
	for (uint64_t k = 0, got = 0; got < n; k++) {
		char name[24];
		snprintf(name, sizeof name, "b%llu", (unsigned long long)k);
		if ((unkeyed_name_hash(name) & mask) >= w)
			continue;
		at[got++] = block + used;
		memcpy(block + used, name, strlen(name) + 1);
		used += strlen(name) + 1;
	}
	*names = at;
	return block;
}

/* The longest run of occupied slots in the map (a look-up or insertion
 * walks at most that far). */
static size_t longest_run(const usmp__strmap *m)
{
	size_t best = 0, run = 0;
	/* twice round, for a run that wraps past the last slot */
	for (size_t i = 0; i < 2 * m->cap; i++) {
		run = m->slots[i % m->cap].hv ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best > m->cap ? m->cap : best;
}

/* The name tables (buffer and pool names, targets, the names a plan file
 * is read by) hashed every name with the unkeyed function above, so
 * names chosen to share the low bits of their hash all landed in one run
 * of slots and every insertion and look-up walked it: 100,000 such buffer
 * names (a 3 MB JSON file) took 25 s of CPU to read, where 100,000 plain
 * names take 0.2 s. The hash is now keyed by a secret of the process. */
Test(redteam7, names_crafted_against_the_hash_do_not_crowd_one_run)
{
	const uint32_t n = 60000; /* a table of 2^17 slots */
	const char **names;
	char *block = crowded_names(n, 17, 1024, &names);
	usmp__strmap m;
	usmp__strmap_init(&m);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(usmp__strmap_put(&m, names[i], i), USMP_OK);
	cr_assert_eq(m.cap, (size_t)1 << 17);
	/* Keyed, the 60,000 keys at half load spread like random ones (the
	 * longest run is a few dozen); unkeyed, they formed one run of all. */
	size_t run = longest_run(&m);
	cr_assert_lt(run, 1000, "a run of %zu occupied slots", run);
	for (uint32_t i = 0; i < n; i += 997) {
		uint32_t v = UINT32_MAX;
		cr_assert_eq(usmp__strmap_get(&m, names[i], &v), USMP_OK);
		cr_assert_eq(v, i);
	}
	cr_assert_eq(usmp__strmap_get(&m, "not-there", NULL), USMP_ERR_NOT_FOUND);
	usmp__strmap_finish(&m);
	free(names);
	free(block);
}

/* The sets of (buffer, pool) candidate pairs and of (src, dst) overlap
 * rules hashed their 64-bit keys with an unkeyed mixer: a file choosing
 * which pairs to name could crowd them the same way. Pairs whose unkeyed
 * hashes share their low 16 bits spread under the keyed one. */
static uint64_t unkeyed_pair_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

Test(redteam7, index_pairs_crafted_against_the_hash_spread)
{
	enum { N = 2000, BITS = 16 };
	static uint64_t keys[N];
	static unsigned char seen[1u << BITS];
	uint32_t got = 0;
	for (uint64_t src = 0; got < N; src++)
		for (uint64_t dst = 0; dst < 4096 && got < N; dst++) {
			uint64_t k = src << 32 | dst;
			if ((unkeyed_pair_hash(k) & ((1u << BITS) - 1)) == 7)
				keys[got++] = k;
		}
	uint32_t distinct = 0;
	for (uint32_t i = 0; i < N; i++) {
		size_t slot = usmp__hash_u64(keys[i]) & ((1u << BITS) - 1);
		distinct += !seen[slot];
		seen[slot] = 1;
	}
	/* 2,000 random keys over 65,536 slots: about 1,970 distinct */
	cr_assert_gt(distinct, N * 9 / 10, "%u distinct slots of %u keys",
	             distinct, N);
	/* the same key, the same hash (within the process) */
	cr_assert_eq(usmp__hash_u64(keys[0]), usmp__hash_u64(keys[0]));
}

/* What a reader sees: a JSON problem of crowded buffer names, with
 * conflict edges naming them, reads back whole and plans. */
Test(redteam7, a_problem_of_crowded_names_reads_whole, .timeout = 60)
{
	const uint32_t n = 100000;
	const char **names;
	char *block = crowded_names(n, 18, 4096, &names);
	size_t cap = (size_t)n * 64 + 4096, used = 0;
	char *json = malloc(cap);
	cr_assert_not_null(json);
	used += (size_t)snprintf(json + used, cap - used,
	                         "{\"usmp\": 1, \"buffers\": [");
	for (uint32_t i = 0; i < n; i++)
		used += (size_t)snprintf(json + used, cap - used,
		                         "%s{\"name\": \"%s\", \"size\": 1}",
		                         i ? ", " : "", names[i]);
	used += (size_t)snprintf(json + used, cap - used,
	                         "], \"conflicts\": [[\"%s\", \"%s\"]]}",
	                         names[0], names[n - 1]);
	usmp_problem *p = test_parse_json(json, "crowded.json");
	cr_assert_eq(usmp_problem_buffer_count(p), n);
	uint32_t id = 0;
	cr_assert_eq(usmp_problem_find_buffer(p, names[n / 2], &id), USMP_OK);
	cr_assert_eq(id, n / 2);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 2,
	             "the edge's two bytes");
	usmp_problem_destroy(p);
	free(json);
	free(names);
	free(block);
}
