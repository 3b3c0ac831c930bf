/* plan_claims.c — what a plan file claims about how its plan was made (sizes,
 * bounds, "optimal"): checked against the placements, kept only when true. */
#include "io.h"
#include "plan.h"
#include "problem.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The first false claim of the file, for usmp_plan_verify; later ones are
 * not recorded (as the verifier reports its first violation). */
static void disproved(usmp_plan *plan, const char *name, const char *fmt,
                      ...) USMP__PRINTF(3, 4);

static void disproved(usmp_plan *plan, const char *name, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	if (plan->claim_error)
		return;
	va_start(ap, fmt);
	usmp__vset_msg(&msg, fmt, ap);
	va_end(ap);
	usmp__set_msg(&plan->claim_error, "false claim in %s: %s", name,
	              msg ? msg : "?");
	usmp__free_msg(&msg);
}

/* The claims a reading drops (true or not, the library cannot tell): the
 * first one named, and how many in all, for the note usmp_plan_error
 * holds after the read. */
typedef struct dropped_claims {
	char *first;
	uint64_t count;
} dropped_claims;

static void dropped(dropped_claims *d, const char *fmt, ...) USMP__PRINTF(2, 3);

static void dropped(dropped_claims *d, const char *fmt, ...)
{
	va_list ap;
	if (d->count++)
		return;
	va_start(ap, fmt);
	usmp__vset_msg(&d->first, fmt, ap);
	va_end(ap);
}

/* A bound part i claims (field: "lower_bound" or "proven_bound") cannot
 * be above the part's size in a valid plan: disproved when it is. */
static void bound_within_size(usmp_plan *plan, const char *name, uint32_t i,
                              const char *field, uint64_t claimed,
                              uint64_t size)
{
	if (claimed > size)
		disproved(plan, name, "parts[%u].%s: %" PRIu64 " byte%s, above "
		          "the part's size in this valid plan (%" PRIu64
		          " byte%s)", i, field, claimed, usmp__s(claimed), size,
		          usmp__s(size));
}

/* Part i's claims (group g, size/buffers/bound of the group in this plan)
 * checked; then the part keeps only what the library established. */
static void check_part(usmp_plan *plan, const char *name, uint32_t i,
                       const usmp__claim *c, uint64_t size, int saturated,
                       uint64_t buffers, uint64_t bound, dropped_claims *d)
{
	usmp__part *pt = &plan->parts[i];
	if ((c->has & USMP__CLAIM_SIZE) && c->size != size)
		disproved(plan, name, "parts[%u].size: %" PRIu64 " byte%s, but the "
		          "placements of group %u make %s%" PRIu64 " byte%s", i,
		          c->size, usmp__s(c->size), pt->group,
		          saturated ? "more than " : "", size, usmp__s(size));
	if ((c->has & USMP__CLAIM_BUFFERS) && c->buffers != buffers)
		disproved(plan, name, "parts[%u].buffers: %" PRIu64 ", but group "
		          "%u has %" PRIu64 " buffer%s", i, c->buffers, pt->group,
		          buffers, usmp__s(buffers));
	if ((c->has & USMP__CLAIM_LOWER_BOUND) && !saturated)
		bound_within_size(plan, name, i, "lower_bound", c->lower_bound,
		                  size);
	if ((c->has & USMP__CLAIM_PROVEN_BOUND) && !saturated)
		bound_within_size(plan, name, i, "proven_bound", c->proven_bound,
		                  size);
	/* "optimal" above the lower bound needs a proof of the size itself:
	 * without one in the file the claim has nothing behind it. */
	if (c->optimal && (saturated || size != bound) &&
	    !((c->has & USMP__CLAIM_PROVEN_BOUND) && c->proven_bound >= size &&
	      !saturated))
		disproved(plan, name, "parts[%u].optimal: true, but the part's "
		          "size (%s%" PRIu64 " byte%s) is above its lower bound "
		          "(%" PRIu64 " byte%s) and its proven_bound does not reach "
		          "it", i, saturated ? "more than " : "", size,
		          usmp__s(size), bound, usmp__s(bound));
	/* What the library established; a claim it cannot check (a bound
	 * above its own, "optimal" above it) is dropped, and said. */
	if ((c->has & USMP__CLAIM_LOWER_BOUND) && c->lower_bound > bound &&
	    (saturated || c->lower_bound <= size))
		dropped(d, "parts[%u].lower_bound: %" PRIu64 " byte%s, above the "
		        "lower bound the library computes (%" PRIu64 " byte%s): "
		        "cannot be checked, not kept",
		        i, c->lower_bound, usmp__s(c->lower_bound), bound,
		        usmp__s(bound));
	if ((c->has & USMP__CLAIM_PROVEN_BOUND) && c->proven_bound > bound &&
	    (saturated || c->proven_bound <= size))
		dropped(d, "parts[%u].proven_bound: %" PRIu64 " byte%s, above the "
		        "lower bound (%" PRIu64 " byte%s): only an exact search "
		        "can check it, not kept", i, c->proven_bound,
		        usmp__s(c->proven_bound), bound, usmp__s(bound));
	if (c->optimal && (saturated || size != bound) &&
	    (c->has & USMP__CLAIM_PROVEN_BOUND) && c->proven_bound >= size &&
	    !saturated)
		dropped(d, "parts[%u].optimal: true, above the lower bound "
		        "(%" PRIu64 " byte%s; the part has %" PRIu64 " byte%s): "
		        "only an exact search can check it, not kept (reads "
		        "false)", i, bound, usmp__s(bound), size,
		        usmp__s(size));
	pt->size = size;
	pt->buffer_count = buffers > UINT32_MAX ? UINT32_MAX : (uint32_t)buffers;
	pt->lower_bound = bound;
	pt->proven_bound = bound;
	pt->optimal = c->optimal && !saturated && size == bound;
}

/* A pool's claims: a size other than its high-water mark, a group other
 * than its bound group, or a lower bound above its group's size,
 * disproved; one above the library's bound only dropped. */
static void check_pools(usmp_plan *plan, const usmp_problem *p,
                        const char *name, const usmp__claim *pools,
                        const uint64_t *size, const unsigned char *sat,
                        dropped_claims *d)
{
	uint32_t ng = p->group_count;
	for (uint32_t q = 0; q < plan->pool_count; q++) {
		const usmp__claim *c = &pools[q];
		uint32_t g = p->pool_group[q];
		if ((c->has & USMP__CLAIM_SIZE) && c->size != plan->pool_size[q])
			disproved(plan, name, "pools[%" PRIu64 "].size: %" PRIu64
			          " byte%s, but the placements make %" PRIu64
			          " byte%s", c->at, c->size, usmp__s(c->size),
			          plan->pool_size[q], usmp__s(plan->pool_size[q]));
		if ((c->has & USMP__CLAIM_GROUP) && c->group != g)
			disproved(plan, name, "pools[%" PRIu64 "].group: %" PRIu64
			          ", but pool \"%s\" is in bound group %u of the "
			          "problem", c->at, c->group,
			          usmp__problem_pool(p, q)->name, g);
		if ((c->has & USMP__CLAIM_LOWER_BOUND) && g < ng && !sat[g] &&
		    c->lower_bound > size[g])
			disproved(plan, name, "pools[%" PRIu64 "].lower_bound: %"
			          PRIu64 " byte%s, above its group's size in this "
			          "valid plan (%" PRIu64 " byte%s)", c->at,
			          c->lower_bound, usmp__s(c->lower_bound), size[g],
			          usmp__s(size[g]));
		else if ((c->has & USMP__CLAIM_LOWER_BOUND) && g < ng &&
		         c->lower_bound > p->group_bound[g])
			dropped(d, "pools[%" PRIu64 "].lower_bound: %" PRIu64
			        " byte%s, above the lower bound the library computes "
			        "for its group (%" PRIu64 " byte%s): cannot be checked, "
			        "not kept", c->at,
			        c->lower_bound, usmp__s(c->lower_bound),
			        p->group_bound[g], usmp__s(p->group_bound[g]));
	}
}

/* The parts of the bound groups with buffers that no part of the file
 * names (all of them for a file with no parts, or a CSV plan), appended in
 * group order: their figures from the placements as for a file's part,
 * with no claims of their own but the top-level "optimal". */
static int own_parts(usmp_plan *plan, const char *name, uint32_t ng,
                     const uint32_t *owner, const uint64_t *size,
                     const unsigned char *sat, const uint64_t *count,
                     const uint64_t *bound, int optimal, dropped_claims *d)
{
	uint32_t n = 0;
	usmp__part *parts;
	usmp__claim none;
	for (uint32_t g = 0; g < ng; g++)
		n += count[g] != 0 && owner[g] == UINT32_MAX;
	if (n == 0)
		return USMP_OK;
	parts = realloc(plan->parts,
	                ((size_t)plan->part_count + n) * sizeof *parts);
	if (!parts)
		return usmp__plan_fail(plan, USMP_ERR_NOMEM, "%s: out of memory",
		                       name);
	plan->parts = parts;
	memset(parts + plan->part_count, 0, n * sizeof *parts);
	memset(&none, 0, sizeof none);
	none.optimal = optimal;
	for (uint32_t g = 0; g < ng; g++) {
		if (!count[g] || owner[g] != UINT32_MAX)
			continue;
		uint32_t i = plan->part_count++;
		plan->parts[i].group = g;
		plan->parts[i].spill_largest = UINT32_MAX;
		check_part(plan, name, i, &none, size[g], sat[g], count[g],
		           bound[g], d);
	}
	return USMP_OK;
}

int usmp__plan_claims(usmp_plan *plan, usmp_problem *p, const char *name,
                      const usmp__claim *parts, const usmp__claim *pools,
                      int optimal)
{
	uint32_t ng = p->group_count;
	uint64_t *size = calloc(ng ? ng : 1, sizeof *size);
	uint64_t *count = calloc(ng ? ng : 1, sizeof *count);
	uint32_t *owner = malloc((ng ? ng : 1) * sizeof *owner);
	unsigned char *sat = calloc(ng ? ng : 1, 1);
	dropped_claims d = {NULL, 0};
	int rc = USMP_OK;

	if (!size || !count || !owner || !sat) {
		rc = usmp__plan_fail(plan, USMP_ERR_NOMEM, "%s: out of memory",
		                     name);
		goto fail;
	}
	if (!p->prepared || !p->group_bound) {
		rc = usmp__plan_fail(plan, USMP_ERR_INTERNAL, "%s: problem not "
		                     "prepared", name);
		goto fail;
	}
	for (uint32_t g = 0; g < ng; g++)
		owner[g] = UINT32_MAX;
	for (uint32_t q = 0; q < plan->pool_count; q++) {
		uint32_t g = p->pool_group[q];
		if (g >= ng)
			continue;
		sat[g] = sat[g] || size[g] + plan->pool_size[q] < size[g];
		size[g] = sat[g] ? UINT64_MAX : size[g] + plan->pool_size[q];
	}
	for (size_t b = 0; b < p->buffer_count; b++)
		if (p->buffer_group[b] < ng)
			count[p->buffer_group[b]]++;
	/* One part per bound group, as planning makes them: spill and bounds
	 * are the group's, so a part naming no group or a taken one has none. */
	for (uint32_t i = 0; i < plan->part_count; i++) {
		uint32_t g = plan->parts[i].group;
		if (g >= ng) {
			rc = usmp__plan_fail(plan, USMP_ERR_INVALID, "%s: parts[%u]."
			                     "group: %u is not a bound group of the "
			                     "problem (it has %u)", name, i, g, ng);
			goto fail;
		}
		if (owner[g] != UINT32_MAX) {
			rc = usmp__plan_fail(plan, USMP_ERR_INVALID, "%s: parts[%u]."
			                     "group: group %u is parts[%u]'s already "
			                     "(one part per bound group)", name, i, g,
			                     owner[g]);
			goto fail;
		}
		owner[g] = i;
	}
	if (pools)
		check_pools(plan, p, name, pools, size, sat, &d);
	for (uint32_t i = 0; i < plan->part_count; i++) {
		uint32_t g = plan->parts[i].group;
		check_part(plan, name, i, &parts[i], size[g], sat[g], count[g],
		           p->group_bound[g], &d);
	}
	/* The top-level "optimal" is every part's: false when a part of the
	 * file says otherwise, or no part proves a group above its bound. */
	for (uint32_t g = 0; optimal && g < ng; g++) {
		if (owner[g] != UINT32_MAX && !parts[owner[g]].optimal)
			disproved(plan, name, "optimal: true, but parts[%u].optimal "
			          "is false", owner[g]);
		else if (owner[g] == UINT32_MAX && count[g] &&
		         (sat[g] || size[g] != p->group_bound[g]))
			disproved(plan, name, "optimal: true, but bound group %u is "
			          "above its lower bound (%" PRIu64 " byte%s) and no "
			          "part proves it optimal", g, p->group_bound[g],
			          usmp__s(p->group_bound[g]));
	}
	/* A group no part of the file names (every group of a file with no
	 * parts, or "parts": []) gets the library's own part. */
	if ((rc = own_parts(plan, name, ng, owner, size, sat, count,
	                    p->group_bound, optimal, &d)))
		goto fail;
	/* Claims dropped, none disproved: the read's note (a false claim is
	 * usmp_plan_verify's to report). */
	if (d.count && !plan->claim_error) {
		if (d.count > 1)
			usmp__set_msg(&plan->error, "%s: %s (and %" PRIu64 " more "
			              "claim%s not kept)",
			              name, d.first ? d.first : "?", d.count - 1,
			              usmp__s(d.count - 1));
		else
			usmp__set_msg(&plan->error, "%s: %s", name,
			              d.first ? d.first : "?");
	}
fail:
	usmp__free_msg(&d.first);
	free(size);
	free(count);
	free(owner);
	free(sat);
	return rc;
}
