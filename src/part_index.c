/* part_index.c — a problem's edges and overlap rules indexed by buffer: built
 * once for the views of its parts, dropped when the problem changes. */
#include "problem.h"

#include <stdlib.h>
#include <string.h>

/* An end of problem edge i (side 0: a, 1: b); the source of rule i. */
typedef uint32_t (*item_buffer_fn)(const usmp_problem *p, size_t i, int side);

static uint32_t edge_end(const usmp_problem *p, size_t i, int side)
{
	return side ? p->edges[i].b : p->edges[i].a;
}

static uint32_t rule_source(const usmp_problem *p, size_t i, int side)
{
	(void)side;
	return p->overlaps[i].src;
}

/* CSR rows by buffer of `count` items, each in the row of the buffer
 * at(p, i, s) names for s < sides (once when both sides name the same):
 * (*start)[buffer_count + 1] and *of. */
static int index_rows(const usmp_problem *p, size_t count, int sides,
                      item_buffer_fn at, uint64_t **start, uint32_t **of)
{
	size_t N = p->buffer_count;
	*start = calloc(N + 1, sizeof **start);
	*of = malloc((count ? count * (size_t)sides : 1) * sizeof **of);
	uint64_t *cur = malloc((N ? N : 1) * sizeof *cur);
	int rc = USMP_ERR_NOMEM;
	if (!*start || !*of || !cur)
		goto fail;
	for (size_t i = 0; i < count; i++)
		for (int s = 0; s < sides; s++)
			if (!s || at(p, i, s) != at(p, i, 0))
				(*start)[at(p, i, s) + 1]++;
	for (size_t u = 0; u < N; u++)
		(*start)[u + 1] += (*start)[u];
	memcpy(cur, *start, N * sizeof *cur);
	for (size_t i = 0; i < count; i++)
		for (int s = 0; s < sides; s++)
			if (!s || at(p, i, s) != at(p, i, 0))
				(*of)[cur[at(p, i, s)]++] = (uint32_t)i;
	rc = USMP_OK;
fail:
	free(cur);
	return rc;
}

int usmp__problem_part_index(usmp_problem *p)
{
	if (p->edge_start && p->rule_start)
		return USMP_OK;
	usmp__problem_drop_part_index(p);
	if (p->edge_count > UINT32_MAX || p->overlap_count > UINT32_MAX)
		return USMP_ERR_NOMEM;
	int rc = index_rows(p, p->edge_count, 2, edge_end, &p->edge_start,
	                    &p->edge_of);
	if (rc == USMP_OK)
		rc = index_rows(p, p->overlap_count, 1, rule_source,
		                &p->rule_start, &p->rule_of);
	if (rc != USMP_OK)
		usmp__problem_drop_part_index(p);
	return rc;
}

void usmp__problem_drop_part_index(usmp_problem *p)
{
	free(p->edge_start);
	free(p->edge_of);
	free(p->rule_start);
	free(p->rule_of);
	p->edge_start = p->rule_start = NULL;
	p->edge_of = p->rule_of = NULL;
}
