/* host_mem.h — arrays from the host's allocator for the algorithm plugins;
 * header-only, so each plugin's shared module stays self-contained. */
#ifndef USMP_PLUGINS_HOST_MEM_H
#define USMP_PLUGINS_HOST_MEM_H
#include <stddef.h>
#include <stdint.h>

#include <usmp/plugin.h>

/* Room for `count` elements of `elem` bytes (at least one element): NULL
 * when the size overflows size_t or the host has no room. */
static inline void *host_array(const usmp_host *h, size_t count, size_t elem)
{
	if (count == 0)
		count = 1;
	if (count > SIZE_MAX / elem)
		return NULL;
	return h->alloc(h, count * elem);
}

/* Give p back to the host (NULL is nothing). */
static inline void host_release(const usmp_host *h, void *p)
{
	if (p)
		h->free(h, p);
}

#endif
