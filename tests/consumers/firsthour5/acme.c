/* acme.c — an out-of-tree algorithm plugin built from the installed headers
 * alone: acme_spill (a volunteer), or, with -DACME_LIAR, the broken acme_liar. */
#include <usmp/plugin.h>

#define MAX_POOLS 64

/* Each buffer stacked above the previous ones in the first of its
 * candidate pools where it still fits; with `lie`, every offset 0. */
static int stack_plan(const usmp_view *v, const usmp_host *h,
                      usmp_placement *out, uint64_t gap, bool lie)
{
	uint64_t top[MAX_POOLS] = {0};

	if (v->pool_count > MAX_POOLS) {
		h->log(h, USMP_LOG_ERROR, "more than 64 pools");
		return USMP_ERR_UNSUPPORTED;
	}
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		uint32_t k = 0;
		for (; k < r->candidate_count; k++) {
			uint32_t p = v->candidates[r->candidate_start + k];
			uint64_t limit = v->pools[p].size_limit, at;
			bool ok = true;
			at = usmp_align_up(top[p], usmp_buffer_alignment(v, b, p), &ok);
			if (!ok || at > limit || r->size > limit - at)
				continue;
			out[b].pool = p;
			out[b].offset = lie ? 0 : at;
			top[p] = at + r->size;
			top[p] = gap > UINT64_MAX - top[p] ? UINT64_MAX : top[p] + gap;
			break;
		}
		if (k == r->candidate_count) {
			h->log(h, USMP_LOG_ERROR, "a buffer fits none of its pools");
			return USMP_ERR_INFEASIBLE;
		}
	}
	return USMP_OK;
}

#ifndef ACME_LIAR
#define ACME_PLUGIN "acme"
#define SPILL_KNOBS(X) X(u64, gap, 0, "bytes kept free between buffers")
USMP_ALGORITHM_DECLARE(acme_spill, SPILL_KNOBS);
static int acme_spill(const usmp_view *v, const usmp_host *h,
                      usmp_placement *out, uint64_t gap)
{
	return stack_plan(v, h, out, gap, false);
}
static const usmp_algorithm algo = USMP_ALGORITHM_INIT_COST(
	acme_spill, "acme_spill",
	USMP_CAP_MULTI_POOL | USMP_CAP_EXPLICIT_CONFLICTS |
		USMP_CAP_DETERMINISTIC | USMP_CAP_PORTFOLIO,
	"each buffer stacked in the first candidate pool it fits in", 1.0);
#else
#define ACME_PLUGIN "acme_liar"
USMP_ALGORITHM_DECLARE(acme_liar, USMP_NO_KNOBS);
static int acme_liar(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out)
{
	return stack_plan(v, h, out, 0, true);
}
static const usmp_algorithm algo = USMP_ALGORITHM_INIT_COST(
	acme_liar, "acme_liar",
	USMP_CAP_MULTI_POOL | USMP_CAP_EXPLICIT_CONFLICTS | USMP_CAP_PORTFOLIO,
	"every buffer at offset 0 (broken on purpose)", 1.0);
#endif

static const usmp_algorithm *const algos[] = {&algo};
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT(ACME_PLUGIN, "0.1", "MIT", algos);
