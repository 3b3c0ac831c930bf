/* problem_read.c — the public calls that read a problem back (ABI 1.3): pool
 * and buffer info, targets, candidates, conflict edges and overlap rules. */
#include "problem.h"

#include <string.h>

#include <usmp/plugin.h>
#include <usmp/usmp.h>

/* Copy the first min(size, struct_size) bytes of `full` into `out`. */
static void copy_info(void *out, const void *full, size_t size)
{
	uint32_t want;
	memcpy(&want, out, sizeof want);
	memcpy(out, full, want < size ? want : size);
}

int usmp_problem_pool_info(const usmp_problem *p, uint32_t pool,
                           usmp_pool_info *info)
{
	if (!p || !info || info->struct_size < sizeof(uint32_t))
		return USMP_ERR_INVALID;
	if (pool >= p->pool_count)
		return USMP_ERR_NOT_FOUND;
	const usmp__pool *r = &p->pools[pool];
	usmp_pool_info full = {
		.struct_size = info->struct_size,
		.target_count = r->target_count,
		.name = r->name,
		.size_limit = r->size_limit,
		.alignment = r->alignment,
	};
	copy_info(info, &full, sizeof full);
	return USMP_OK;
}

int usmp_problem_buffer_info(const usmp_problem *p, uint32_t b,
                             usmp_buffer_info *info)
{
	if (!p || !info || info->struct_size < sizeof(uint32_t))
		return USMP_ERR_INVALID;
	if (b >= p->buffer_count)
		return USMP_ERR_NOT_FOUND;
	const usmp__buffer *r = &p->buffers[b];
	bool live = r->flags & USMP_BUFFER_LIVE;
	bool fixed = r->flags & USMP_BUFFER_FIXED;
	usmp_buffer_info full = {
		.struct_size = info->struct_size,
		.live = live,
		.name = r->name,
		.size = r->size,
		.alignment = r->alignment,
		.begin = live ? r->begin : 0,
		.end = live ? r->end : 0,
		.candidate_count = r->candidate_count,
		.fixed_pool = fixed ? r->fixed_pool : USMP_NO_POOL,
		.fixed_offset = fixed ? r->fixed_offset : 0,
	};
	copy_info(info, &full, sizeof full);
	return USMP_OK;
}

int usmp_problem_pool_target(const usmp_problem *p, uint32_t pool, uint32_t i,
                             const char **target)
{
	if (!p || !target)
		return USMP_ERR_INVALID;
	if (pool >= p->pool_count || i >= p->pools[pool].target_count)
		return USMP_ERR_NOT_FOUND;
	*target = p->pools[pool].targets[i];
	return USMP_OK;
}

int usmp_problem_buffer_candidate(const usmp_problem *p, uint32_t b,
                                  uint32_t i, uint32_t *pool)
{
	if (!p || !pool)
		return USMP_ERR_INVALID;
	if (b >= p->buffer_count || i >= p->buffers[b].candidate_count)
		return USMP_ERR_NOT_FOUND;
	*pool = p->buffers[b].candidates[i];
	return USMP_OK;
}

uint32_t usmp_problem_conflict_count(const usmp_problem *p)
{
	return p ? (uint32_t)p->edge_count : 0;
}

int usmp_problem_conflict(const usmp_problem *p, uint32_t i, uint32_t *a,
                          uint32_t *b)
{
	if (!p)
		return USMP_ERR_INVALID;
	if (i >= p->edge_count)
		return USMP_ERR_NOT_FOUND;
	if (a)
		*a = p->edges[i].a;
	if (b)
		*b = p->edges[i].b;
	return USMP_OK;
}

uint32_t usmp_problem_overlap_count(const usmp_problem *p)
{
	return p ? (uint32_t)p->overlap_count : 0;
}

int usmp_problem_overlap(const usmp_problem *p, uint32_t i, uint32_t *src,
                         uint32_t *dst, int64_t *max_lead)
{
	if (!p)
		return USMP_ERR_INVALID;
	if (i >= p->overlap_count)
		return USMP_ERR_NOT_FOUND;
	if (src)
		*src = p->overlaps[i].src;
	if (dst)
		*dst = p->overlaps[i].dst;
	if (max_lead)
		*max_lead = p->overlaps[i].max_lead;
	return USMP_OK;
}
