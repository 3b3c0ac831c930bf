/* pair_set.c — a set of index pairs (a << 32 | b): the (src, dst) of the overlap
 * rules and the (buffer, pool) of long candidate lists, each pair once. */
#include "problem.h"

#include <stdlib.h>

/* Open addressing over 64-bit keys src << 32 | dst; UINT64_MAX marks an
 * empty slot (no index is UINT32_MAX). Load stays under one half. */

#define SET_EMPTY UINT64_MAX

/* Keyed (hash_key.c): a file naming many candidate pools or overlap rules
 * cannot choose pairs that crowd one run of slots. */
static size_t set_hash(uint64_t k)
{
	return (size_t)usmp__hash_u64(k);
}

static size_t set_slot(const uint64_t *set, size_t cap, uint64_t k)
{
	size_t i = set_hash(k) & (cap - 1);

	while (set[i] != SET_EMPTY && set[i] != k)
		i = (i + 1) & (cap - 1);
	return i;
}

bool usmp__pair_set_has(const uint64_t *set, size_t cap, uint64_t k)
{
	if (cap == 0)
		return false;
	return set[set_slot(set, cap, k)] == k;
}

int usmp__pair_set_reserve(uint64_t **set, size_t *set_cap, size_t count)
{
	size_t cap = *set_cap ? *set_cap : 16, i;
	uint64_t *n;

	while (count > cap / 2) {
		if (cap > SIZE_MAX / 2 / sizeof(*n))
			return USMP_ERR_NOMEM;
		cap *= 2;
	}
	if (cap == *set_cap)
		return USMP_OK;
	n = malloc(cap * sizeof(*n));
	if (!n)
		return USMP_ERR_NOMEM;
	for (i = 0; i < cap; i++)
		n[i] = SET_EMPTY;
	for (i = 0; i < *set_cap; i++)
		if ((*set)[i] != SET_EMPTY)
			n[set_slot(n, cap, (*set)[i])] = (*set)[i];
	free(*set);
	*set = n;
	*set_cap = cap;
	return USMP_OK;
}

void usmp__pair_set_put(uint64_t *set, size_t cap, uint64_t k)
{
	set[set_slot(set, cap, k)] = k;
}
