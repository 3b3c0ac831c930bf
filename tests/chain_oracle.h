/* chain_oracle.h — the exhaustive oracle of the NPU-chain suites
 * (exact_rules_peak, exact_peak_oracle): a chain, its search, its problem. */
#ifndef USMP_TEST_CHAIN_ORACLE_H
#define USMP_TEST_CHAIN_ORACLE_H
#include <stdbool.h>
#include <stdint.h>

#define CHAIN_N 9

/* A small chain: one or two pools (pool alignments; buffers alignment 1),
 * each buffer listing pool 0 then pool 1 unless sram_only (pool 0 only);
 * buffer 0 fixed in pool 1 at fixed_off when `fixed`. */
typedef struct chain_desc {
	uint32_t n, P;
	uint64_t limit[2], align[2];
	uint64_t size[CHAIN_N];
	int64_t begin[CHAIN_N], end[CHAIN_N];
	bool sram_only[CHAIN_N];
	bool fixed;
	uint64_t fixed_off;
	int rule_count;
	uint32_t src[4], dst[4];
	int64_t lead[4];
} chain_desc;

/* The best (spill, size) over every pool and aligned offset of each buffer,
 * the rules obeyed when `rules` (else ignored); spill is the bytes outside
 * pool 0, a fixed buffer 0 not counted. */
typedef struct chain_best {
	bool found;
	uint64_t spill, total;
} chain_best;
chain_best chain_search(const chain_desc *d, bool rules);

/* A number in [lo, hi] from the suites' own LCG. */
uint64_t chain_rnd(uint64_t *s, uint64_t lo, uint64_t hi);

/* The problem d describes, rules included (failing the test on a refusal).
 * Caller destroys it. */
struct usmp_problem;
struct usmp_problem *chain_build(const chain_desc *d);

#endif
