/* strmap.c — a string -> uint32 map: open addressing with linear probing over
 * borrowed keys, keyed FNV-1a hashing, capacity a power of two under 50% load. */
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Slots are indexed by the 32-bit stored hash, so the table stops at 2^32
 * slots (2^31 keys, far beyond what fits in memory with their owners). */
#if SIZE_MAX > 0xffffffffu
#define MAX_CAP ((size_t)0x100000000u)
#else
#define MAX_CAP ((SIZE_MAX >> 1) + 1)
#endif

static uint32_t hash_bytes(const char *s, size_t n)
{
	/* FNV-1a from a basis keyed by the process's secret, then mixed under
	 * it (hash_key.c): a file cannot choose names that share the low bits
	 * the table index takes. */
	uint64_t h = 0xcbf29ce484222325ull ^ usmp__hash_seed();
	uint32_t r;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	h = usmp__hash_u64(h ^ n);
	/* Fold the high bits down. 0 marks an empty slot, so no key hashes
	 * to it. */
	r = (uint32_t)(h ^ (h >> 32));
	return r ? r : 1;
}

static uint32_t hash(const char *s)
{
	return hash_bytes(s, strlen(s));
}

void usmp__strmap_prefetch(const usmp__strmap *m, const char *key, size_t n)
{
	if (m->cap)
		__builtin_prefetch(&m->slots[(size_t)hash_bytes(key, n) &
		                             (m->cap - 1)]);
}

void usmp__strmap_init(usmp__strmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
}

void usmp__strmap_finish(usmp__strmap *m)
{
	free(m->slots);
	usmp__strmap_init(m);
}

/* The slot holding key (hash h), or the empty slot where it would go. cap > 0. */
static size_t find_slot(const usmp__strmap *m, const char *key, uint32_t h)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask;
	const usmp__strmap_slot *s;

	while ((s = &m->slots[i])->hv != 0) {
		if ((uint32_t)(s->hv >> 32) == h && strcmp(s->key, key) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

int usmp__strmap_get(const usmp__strmap *m, const char *key, uint32_t *value)
{
	size_t i;

	if (!key || m->count == 0)
		return USMP_ERR_NOT_FOUND;
	i = find_slot(m, key, hash(key));
	if (!m->slots[i].hv)
		return USMP_ERR_NOT_FOUND;
	if (value)
		*value = (uint32_t)m->slots[i].hv;
	return USMP_OK;
}

static int rehash(usmp__strmap *m, size_t ncap)
{
	usmp__strmap_slot *n;
	size_t i, mask = ncap - 1;

	n = calloc(ncap, sizeof(*n));
	if (!n)
		return USMP_ERR_NOMEM;
	/* Keys are distinct: each goes to the first free slot, no compares. */
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slots[i].hv)
			continue;
		j = (size_t)(m->slots[i].hv >> 32) & mask;
		while (n[j].hv)
			j = (j + 1) & mask;
		n[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = n;
	m->cap = ncap;
	return USMP_OK;
}

int usmp__strmap_reserve(usmp__strmap *m, size_t count)
{
	size_t ncap = m->cap ? m->cap : 8;
	while (count > ncap / 2) {
		if (ncap >= MAX_CAP)
			return USMP_ERR_NOMEM;
		ncap *= 2;
	}
	return ncap == m->cap ? USMP_OK : rehash(m, ncap);
}

int usmp__strmap_put(usmp__strmap *m, const char *key, uint32_t value)
{
	uint32_t h;
	size_t i;

	if (!key)
		return USMP_ERR_INVALID;
	/* Keep the load at most one half after this insertion. */
	if (m->count + 1 > m->cap / 2) {
		size_t ncap = m->cap ? m->cap : 8;

		while (m->count + 1 > ncap / 2) {
			if (ncap >= MAX_CAP)
				return USMP_ERR_NOMEM;
			ncap *= 2;
		}
		if (rehash(m, ncap) != USMP_OK)
			return USMP_ERR_NOMEM;
	}
	h = hash(key);
	i = find_slot(m, key, h);
	if (m->slots[i].hv)
		return USMP_ERR_INVALID;
	m->slots[i].hv = (uint64_t)h << 32 | value;
	m->slots[i].key = key;
	m->count++;
	return USMP_OK;
}
