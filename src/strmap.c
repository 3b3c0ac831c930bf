/* strmap.c — a string -> uint32 map: open addressing with linear probing over
 * borrowed keys, FNV-1a hashing, capacity a power of two kept under 50% load. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	/* Mix the high bits down: the table index takes the low bits. */
	h ^= h >> 32;
	return h;
}

void usmp__strmap_init(usmp__strmap *m)
{
	m->keys = NULL;
	m->values = NULL;
	m->cap = 0;
	m->count = 0;
}

void usmp__strmap_finish(usmp__strmap *m)
{
	free(m->keys);
	free(m->values);
	usmp__strmap_init(m);
}

/* The slot holding key, or the empty slot where it would go. cap > 0. */
static size_t find_slot(const usmp__strmap *m, const char *key)
{
	size_t mask = m->cap - 1, i = (size_t)hash(key) & mask;

	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & mask;
	return i;
}

int usmp__strmap_get(const usmp__strmap *m, const char *key, uint32_t *value)
{
	size_t i;

	if (!key || m->count == 0)
		return USMP_ERR_NOT_FOUND;
	i = find_slot(m, key);
	if (!m->keys[i])
		return USMP_ERR_NOT_FOUND;
	if (value)
		*value = m->values[i];
	return USMP_OK;
}

static int rehash(usmp__strmap *m, size_t ncap)
{
	usmp__strmap n;
	size_t i;

	if (ncap > SIZE_MAX / sizeof(*n.keys))
		return USMP_ERR_NOMEM;
	n.keys = calloc(ncap, sizeof(*n.keys));
	n.values = malloc(ncap * sizeof(*n.values));
	if (!n.keys || !n.values)
		goto fail;
	n.cap = ncap;
	n.count = m->count;
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		j = find_slot(&n, m->keys[i]);
		n.keys[j] = m->keys[i];
		n.values[j] = m->values[i];
	}
	free(m->keys);
	free(m->values);
	*m = n;
	return USMP_OK;
fail:
	free(n.keys);
	free(n.values);
	return USMP_ERR_NOMEM;
}

int usmp__strmap_put(usmp__strmap *m, const char *key, uint32_t value)
{
	size_t i;

	if (!key)
		return USMP_ERR_INVALID;
	if (m->count > 0 && usmp__strmap_get(m, key, NULL) == USMP_OK)
		return USMP_ERR_INVALID;
	/* Keep the load at most one half after this insertion. */
	if (m->count + 1 > m->cap / 2) {
		size_t ncap = m->cap ? m->cap : 8;

		while (m->count + 1 > ncap / 2) {
			if (ncap > SIZE_MAX / 2)
				return USMP_ERR_NOMEM;
			ncap *= 2;
		}
		if (rehash(m, ncap) != USMP_OK)
			return USMP_ERR_NOMEM;
	}
	i = find_slot(m, key);
	m->keys[i] = key;
	m->values[i] = value;
	m->count++;
	return USMP_OK;
}
