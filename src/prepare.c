/* prepare.c — a built problem made ready to plan: the default pool, the checks
 * across records (fixed pools, overlap rules), and the groups with their bounds. */
#include "problem.h"
#include "view.h"

#include <string.h>

/* Buffer i is fixed in a pool its candidate list leaves out: name the
 * record, the list, and the two ways out. */
static int fixed_not_a_candidate(usmp_problem *p, size_t i)
{
	const usmp__buffer *b = &p->buffers[i];
	char list[200] = "";
	size_t len = 0;
	for (uint32_t k = 0; k < b->candidate_count && len < sizeof list; k++) {
		const char *name = p->pools[b->candidates[k]].name;
		size_t whole = strlen(name);
		size_t cut = whole > USMP__NAME_SHOWN_MAX ? usmp__name_cut(name, whole)
		                                          : whole;
		int n = cut < whole
			? snprintf(list + len, sizeof list - len, "%s\"%.*s\xe2\x80"
			           "\xa6(%zu bytes)\"", k ? ", " : "", (int)cut, name,
			           whole)
			: snprintf(list + len, sizeof list - len, "%s\"%s\"",
			           k ? ", " : "", name);
		if (n < 0 || (size_t)n >= sizeof list - len) {
			snprintf(list + (len < sizeof list - 6 ? len : sizeof list - 6),
			         6, ", ...");
			break;
		}
		len += (size_t)n;
	}
	const char *fixed = p->pools[b->fixed_pool].name;
	return usmp__problem_fail(
		p, USMP_ERR_INVALID,
		"buffers[%zu].fixed: buffer \"%s\": fixed pool \"%s\" is not among "
		"its candidate pools (%s): add \"%s\" to them, or give the buffer "
		"none (a fixed buffer without candidates stays in its fixed pool)",
		i, b->name, fixed, list, fixed);
}

int usmp__problem_prepare(usmp_problem *p)
{
	const char *before;
	size_t i;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	if (p->prepared)
		return USMP_OK;
	if (p->pool_count == 0) {
		rc = usmp_problem_add_pool(p, "default", USMP_UNBOUNDED, 1, NULL);
		if (rc)
			return rc;
	}
	for (i = 0; i < p->buffer_count; i++) {
		const usmp__buffer *b = &p->buffers[i];
		uint32_t k;

		if (!(b->flags & USMP_BUFFER_FIXED) || b->candidate_count == 0)
			continue;
		for (k = 0; k < b->candidate_count; k++)
			if (b->candidates[k] == b->fixed_pool)
				break;
		if (k == b->candidate_count)
			return fixed_not_a_candidate(p, i);
	}
	/* An overlap rule describes one op streaming src into dst
	 * (docs/formats.md): dst comes after src, so the rules form no cycle,
	 * and when both have live ranges dst must be born at src's last read:
	 * otherwise the verifier would accept an overlap no schedule allows. */
	rc = usmp__rule_cycles(p);
	if (rc)
		return rc;
	for (i = 0; i < p->overlap_count; i++) {
		const usmp__buffer *s = &p->buffers[p->overlaps[i].src];
		const usmp__buffer *d = &p->buffers[p->overlaps[i].dst];
		if (!(s->flags & d->flags & USMP_BUFFER_LIVE) || d->begin == s->end - 1)
			continue;
		/* Named like a cycle (rule_cycles.c): the record, in file order
		 * (through the API, the usmp_problem_add_overlap call). */
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"overlaps[%zu]: rule \"%s\" -> \"%s\": \"%s\" must be produced "
			"by the last reader of \"%s\" (it begins at step %lld; \"%s\" "
			"is last read at step %lld)",
			i, s->name, d->name, d->name, s->name, (long long)d->begin, s->name,
			(long long)(s->end - 1));
	}
	before = p->error;
	rc = usmp__groups(p);
	if (rc) {
		usmp__problem_changed(p);
		/* usmp__groups names the problem on p->error; make sure some
		 * message is there, not a stale one. */
		if (p->error == before)
			usmp__problem_fail(p, rc, "computing buffer groups failed: %s",
			                   usmp_status_name(rc));
		return rc;
	}
	p->prepared = 1;
	return USMP_OK;
}

uint32_t usmp_problem_prepare_group_count(usmp_problem *p)
{
	if (!p || usmp__problem_prepare(p))
		return 0;
	return p->group_count;
}

uint64_t usmp_problem_prepare_group_bound(usmp_problem *p, uint32_t group)
{
	if (!p || usmp__problem_prepare(p))
		return 0;
	if (group >= p->group_count) {
		usmp__problem_fail(p, USMP_ERR_INVALID,
		                   "group bound: group %u out of range (%u groups)",
		                   group, p->group_count);
		return 0;
	}
	return p->group_bound[group];
}

uint32_t usmp_problem_prepare_pool_group(usmp_problem *p, uint32_t pool)
{
	if (!p || usmp__problem_prepare(p))
		return UINT32_MAX;
	if (pool >= p->pool_count) {
		usmp__problem_fail(p, USMP_ERR_INVALID,
		                   "pool group: pool index %u out of range (%zu pools)",
		                   pool, p->pool_count);
		return UINT32_MAX;
	}
	return p->pool_group[pool];
}

/* The deprecated names (usmp.h): the same calls. */
uint32_t usmp_problem_group_count(usmp_problem *p)
{
	return usmp_problem_prepare_group_count(p);
}

uint64_t usmp_problem_group_bound(usmp_problem *p, uint32_t group)
{
	return usmp_problem_prepare_group_bound(p, group);
}

uint32_t usmp_problem_pool_group(usmp_problem *p, uint32_t pool)
{
	return usmp_problem_prepare_pool_group(p, pool);
}
