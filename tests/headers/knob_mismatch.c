/* knob_mismatch.c — an algorithm whose definition agrees with its
 * USMP_ALGORITHM_DECLARE knob list, or with -DMISMATCH_<KIND> does not. */
#include <usmp/plugin.h>

#if defined(MISMATCH_DUPLICATE)
#define GAP_KNOBS(X)                                                           \
	X(u64, gap, 0, "bytes between buffers")                                    \
	X(u64, gap, 1, "declared twice")
#else
#define GAP_KNOBS(X)                                                           \
	X(u64, gap, 0, "bytes between buffers")                                    \
	X(bool, fast, false, "take shortcuts")
#endif
USMP_ALGORITHM_DECLARE(gap_fit, GAP_KNOBS);

#if defined(MISMATCH_TYPE) /* uint32_t where the list says u64 */
static int gap_fit(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   uint32_t gap, bool fast)
#elif defined(MISMATCH_BOOL_AS_INT) /* int where the list says bool */
static int gap_fit(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   uint64_t gap, int fast)
#elif defined(MISMATCH_ORDER) /* both knobs, in the wrong order */
static int gap_fit(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   bool fast, uint64_t gap)
#elif defined(MISMATCH_MISSING) /* a knob left out */
static int gap_fit(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   uint64_t gap)
#elif defined(MISMATCH_DUPLICATE) /* the list names one knob twice */
static int gap_fit(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   uint64_t gap, uint64_t gap2)
#else /* as declared */
static int gap_fit(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   uint64_t gap, bool fast)
#endif
{
	(void)v, (void)h, (void)out, (void)gap;
	return USMP_OK;
}

static const usmp_algorithm gap_fit_algo = USMP_ALGORITHM_INIT(
	gap_fit, "gap_fit", USMP_CAP_DETERMINISTIC, "a fixture for the compiler");
static const usmp_algorithm *const algos[] = {&gap_fit_algo};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	USMP_PLUGIN_HEADER, "gap", "0", "Apache-2.0", 1, 0, algos,
};
