/* fixture.c — the test fixture plugins, one source built many times: each
 * -DFX_<KIND> flag makes one .so (a good plugin per ABI revision, or one
 * broken in exactly one documented way). See tests/plugins/meson.build. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, for slow_first_fit */
#include <usmp/plugin.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- algorithms shared by the fixtures ----------------------------------- */

/* Not every fixture uses every helper. */
#define FX_UNUSED __attribute__((unused))

/* Lay buffers end to end in their first candidate pool, above every fixed
 * buffer of that pool. Always valid when the pools are large enough. */
FX_UNUSED static int stack_plan(const usmp_view *v, const usmp_host *h,
                      usmp_placement *out)
{
	uint64_t *top = h->alloc(h, (size_t)v->pool_count * sizeof *top);
	bool ok = true;

	if (!top)
		return 5; /* USMP_ERR_NOMEM */
	for (uint32_t p = 0; p < v->pool_count; p++)
		top[p] = 0;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (r->flags & USMP_BUFFER_FIXED) {
			uint64_t end = r->fixed_offset + r->size;
			if (end > top[r->fixed_pool])
				top[r->fixed_pool] = end;
		}
	}
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *r = &v->buffers[b];
		if (r->flags & USMP_BUFFER_FIXED) {
			out[b].pool = r->fixed_pool;
			out[b].offset = r->fixed_offset;
			continue;
		}
		uint32_t p = v->candidates[r->candidate_start];
		uint64_t off = usmp_align_up(top[p], usmp_buffer_alignment(v, b, p), &ok);
		if (!ok || off + r->size < off || off + r->size > v->pools[p].size_limit) {
			h->free(h, top);
			return 2; /* USMP_ERR_INFEASIBLE */
		}
		out[b].pool = p;
		out[b].offset = off;
		top[p] = off + r->size;
	}
	h->free(h, top);
	return 0;
}

/* Every buffer at offset 0 of its first candidate pool, said to be USMP_OK:
 * overlapping buffers, an invalid plan. */
FX_UNUSED static int fx_invalid(const usmp_view *v, const usmp_host *h,
                                usmp_placement *out)
{
	(void)h;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		out[b].pool = v->candidates[v->buffers[b].candidate_start];
		out[b].offset = 0;
	}
	return 0;
}

/* Dereferences NULL (SIGSEGV): what isolation must survive. */
FX_UNUSED static int fx_crash(const usmp_view *v, const usmp_host *h,
                              usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	volatile int *volatile nowhere = NULL;
	return *nowhere; /* SIGSEGV */
}

/* The knob lists of the fixtures' algorithms (plugin.h's declaration
 * macros): a definition that disagrees with its list does not compile. The
 * ABI 1.0 and the bad-signature fixtures write their strings by hand, as
 * such plugins do. */
#define FX_SEEDED_KNOBS(X) X(u64, seed, 0, "ignored, for show")
#define FX_GOOD_KNOBS(X)                                                       \
	X(u64, seed, 0, "ignored, for show")                                       \
	X(str, order, size, "size or none")
USMP_ALGORITHM_DECLARE(fx_plain, USMP_NO_KNOBS);
USMP_ALGORITHM_DECLARE(fx_seeded, FX_SEEDED_KNOBS);
USMP_ALGORITHM_DECLARE(fx_seeded_order, FX_GOOD_KNOBS);

FX_UNUSED static int fx_plain(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	return stack_plan(v, h, out);
}

FX_UNUSED static int fx_seeded(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, uint64_t seed)
{
	(void)seed;
	return stack_plan(v, h, out);
}

FX_UNUSED static int fx_seeded_order(const usmp_view *v, const usmp_host *h,
                           usmp_placement *out, uint64_t seed,
                           const char *order)
{
	(void)seed;
	if (strcmp(order, "size") != 0 && strcmp(order, "none") != 0) {
		h->log(h, USMP_LOG_ERROR, "order must be size or none");
		return 1; /* USMP_ERR_INVALID */
	}
	return stack_plan(v, h, out);
}

#define FX_CAPS (USMP_CAP_MULTI_POOL | USMP_CAP_FIXED_OFFSETS | \
                 USMP_CAP_DETERMINISTIC | USMP_CAP_EXPLICIT_CONFLICTS)
#define FN(f) ((usmp_algorithm_fn)(f))

/* ---- good_v1_2, good_v1_3: ABI 1.2 and 1.3, with param_help and cost ----- */
/* 1.3 changed nothing on the plugin side: both have today's layout and
 * differ in the minor they claim. */
#if defined(FX_GOOD_V1_2) || defined(FX_GOOD_V1_3) || defined(FX_DUPLICATE)
static const usmp_algorithm fx_good = USMP_ALGORITHM_INIT(
	fx_seeded_order, "fx_good", FX_CAPS,
	"stack buffers in their first pool (fixture)");
#endif

#if defined(FX_GOOD_V1_2) || defined(FX_GOOD_V1_3)
static const usmp_algorithm fx_plain_algo = USMP_ALGORITHM_INIT(
	fx_plain, "fx_plain", FX_CAPS, "no knobs at all");
static const usmp_algorithm *const algos[] = {&fx_good, &fx_plain_algo};
#endif
#if defined(FX_GOOD_V1_2)
#define FX_MINOR 2
#define FX_NAME "good_v1_2"
#elif defined(FX_GOOD_V1_3)
#define FX_MINOR 3
#define FX_NAME "good_v1_3"
#endif

/* ---- good_v1_1: built as ABI 1.1, whose usmp_algorithm ends at param_help - */
#if defined(FX_GOOD_V1_1)
/* The 1.1 layout: a host reading cost would read past the object. */
typedef struct usmp_algorithm_1_1 {
	uint32_t struct_size, caps;
	const char *name, *summary, *params;
	usmp_algorithm_fn fn;
	const char *param_help;
} usmp_algorithm_1_1;
static const usmp_algorithm_1_1 fx_good_1_1 = {
	sizeof(usmp_algorithm_1_1), FX_CAPS, "fx_good",
	"stack buffers in their first pool (fixture)",
	USMP_ALGORITHM_PARAMS(fx_seeded_order), FN(fx_seeded_order),
	USMP_ALGORITHM_PARAM_HELP(fx_seeded_order),
};
static const usmp_algorithm_1_1 fx_plain_1_1 = {
	sizeof(usmp_algorithm_1_1), FX_CAPS, "fx_plain", "no knobs at all", "",
	FN(fx_plain), NULL,
};
static const usmp_algorithm *const algos[] = {
	(const usmp_algorithm *)(const void *)&fx_good_1_1,
	(const usmp_algorithm *)(const void *)&fx_plain_1_1};
#define FX_MINOR 1
#define FX_NAME "good_v1_1"
#endif

/* ---- good_v1_0: built as ABI 1.0, whose usmp_algorithm has no param_help --- */
#if defined(FX_GOOD_V1_0)
/* The 1.0 layout: a host reading param_help would read past the object. */
typedef struct usmp_algorithm_1_0 {
	uint32_t struct_size, caps;
	const char *name, *summary, *params;
	usmp_algorithm_fn fn;
} usmp_algorithm_1_0;
static const usmp_algorithm_1_0 fx_old = {
	sizeof(usmp_algorithm_1_0), FX_CAPS, "fx_old", "an ABI 1.0 algorithm",
	"seed:u64=7", FN(fx_seeded),
};
static const usmp_algorithm *const algos[] = {
	(const usmp_algorithm *)(const void *)&fx_old};
#define FX_MINOR 0
#define FX_NAME "good_v1_0"
#endif

/* ---- newer_minor: claims a minor this host does not have ------------------ */
#if defined(FX_NEWER_MINOR)
static const usmp_algorithm fx_newer = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_newer", "from the future", "",
	FN(fx_plain), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_newer};
#define FX_MINOR (USMP_ABI_MINOR + 1)
#define FX_NAME "newer_minor"
#endif

/* ---- short_struct: descriptor struct_size below ABI 1.0 ------------------ */
#if defined(FX_SHORT_STRUCT)
static const usmp_algorithm fx_short = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_short", "never seen", "",
	FN(fx_plain), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_short};
#define FX_NAME "short_struct"
#define FX_STRUCT_SIZE offsetof(usmp_plugin, algorithm_count)
#endif

/* ---- bad_signature: one algorithm with a bad type, one good ------------- */
#if defined(FX_BAD_SIGNATURE)
static const usmp_algorithm fx_bad_sig = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_bad_sig", "bad signature",
	"seed:u65=0", FN(fx_seeded), NULL, 0,
};
static const usmp_algorithm fx_sig_ok = USMP_ALGORITHM_INIT(
	fx_seeded, "fx_sig_ok", FX_CAPS, "good neighbour");
static const usmp_algorithm *const algos[] = {&fx_bad_sig, &fx_sig_ok};
#define FX_NAME "bad_signature"
#endif

/* ---- bad_entries: one good algorithm among entries broken each its way -- */
#if defined(FX_BAD_ENTRIES)
static const usmp_algorithm fx_upper = {
	sizeof(usmp_algorithm), FX_CAPS, "Upper", "bad name", "", FN(fx_plain),
	NULL, 0,
};
static const usmp_algorithm fx_no_fn = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_no_fn", "no function", "", NULL, NULL, 0,
};
static const usmp_algorithm fx_tiny = {
	offsetof(usmp_algorithm, fn), FX_CAPS, "fx_tiny", "struct too short", "",
	FN(fx_plain), NULL, 0,
};
static const usmp_algorithm fx_twice = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_entries_ok", "declared twice", "",
	FN(fx_plain), NULL, 0,
};
static const usmp_algorithm fx_entries_ok = USMP_ALGORITHM_INIT(
	fx_seeded, "fx_entries_ok", FX_CAPS, "the survivor");
static const usmp_algorithm *const algos[] = {
	NULL, &fx_upper, &fx_no_fn, &fx_tiny, &fx_entries_ok, &fx_twice};
#define FX_NAME "bad_entries"
#endif

/* ---- duplicate: fx_good again (taken by good_v1_1), "auto", its own --- */
#if defined(FX_DUPLICATE)
static const usmp_algorithm fx_dup_unique = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_dup_unique", "survives", "",
	FN(fx_plain), NULL, 0,
};
/* A plugin may not take over the built-in default either. */
static const usmp_algorithm fx_fake_auto = {
	sizeof(usmp_algorithm), FX_CAPS, "auto", "an impostor", "",
	FN(fx_plain), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_good, &fx_dup_unique,
                                              &fx_fake_auto};
#define FX_NAME "duplicate"
#endif

/* ---- echo: one knob of every type, reported back ------------------------- */
#if defined(FX_ECHO)
/* Logs "b=.. i=.. u=.. l=.. q=.. d=<%a> s=<..>" at INFO and, when the view
 * has at least 7 buffers, stores the raw bits of each value in
 * out[0..6].offset (pool 0): b, i (sign-extended), u, l, q, bits of d, strlen(s). */
#define FX_ECHO_KNOBS(X)                                                       \
	X(bool, b, false, "a bool")                                                \
	X(i32, i, -1, "an i32")                                                    \
	X(u32, u, 1, "a u32")                                                      \
	X(i64, l, -2, "an i64")                                                    \
	X(u64, q, 2, "a u64")                                                      \
	X(f64, d, 0.5, "an f64")                                                   \
	X(str, s, hello, "a string")
USMP_ALGORITHM_DECLARE(fx_echo, FX_ECHO_KNOBS);
static int fx_echo(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   bool b, int32_t i, uint32_t u, int64_t l, uint64_t q,
                   double d, const char *s)
{
	char line[512];
	uint64_t bits;

	memcpy(&bits, &d, sizeof bits);
	snprintf(line, sizeof line,
	         "b=%s i=%" PRId32 " u=%" PRIu32 " l=%" PRId64 " q=%" PRIu64
	         " d=%a s=<%s>",
	         b ? "true" : "false", i, u, l, q, d, s ? s : "(null)");
	h->log(h, USMP_LOG_INFO, line);
	if (v->buffer_count >= 7 && v->pool_count >= 1) {
		uint64_t vals[7] = {b ? 1u : 0u, (uint64_t)(int64_t)i, u,
		                    (uint64_t)l, q, bits, s ? strlen(s) : UINT64_MAX};
		for (int k = 0; k < 7; k++) {
			out[k].pool = 0;
			out[k].offset = vals[k];
		}
		return 0;
	}
	return stack_plan(v, h, out);
}
static const usmp_algorithm fx_echo_algo = USMP_ALGORITHM_INIT(
	fx_echo, "fx_echo", USMP_CAP_DETERMINISTIC,
	"logs the knob values it receives");
static const usmp_algorithm *const algos[] = {&fx_echo_algo};
#define FX_NAME "echo"
#endif

/* ---- invalid_plan: claims success with everything at offset 0 ----------- */
#if defined(FX_INVALID_PLAN)
static const usmp_algorithm fx_invalid_algo = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_invalid_plan",
	"returns overlapping buffers and says USMP_OK", "", FN(fx_invalid), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_invalid_algo};
#define FX_NAME "invalid_plan"
#endif

/* ---- volunteers for auto (ABI 1.2, USMP_CAP_PORTFOLIO) ------------------ */
#if defined(FX_VOLUNTEER) || defined(FX_NOT_VOLUNTEER)
#include <string.h>
/* First fit in the order of the buffers' names: it knows the optimal order
 * of a problem whose names spell it (tests/test_volunteer.c's crafted
 * problem, where every shipped heuristic stays above the bound). One pool
 * (the first candidate), live ranges only. */
static int fx_oracle(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out)
{
	uint32_t n = v->buffer_count;
	uint32_t *order = h->alloc(h, (n ? n : 1) * sizeof *order);
	char *done = h->alloc(h, n ? n : 1);
	if (!order || !done)
		return 5;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i;
		for (; j > 0 && strcmp(v->buffers[order[j - 1]].name,
		                       v->buffers[i].name) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
		done[i] = 0;
	}
	bool ok = true;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t b = order[k];
		uint32_t pool = v->candidates[v->buffers[b].candidate_start];
		uint64_t align = usmp_buffer_alignment(v, b, pool), off = 0;
		bool moved = true;
		while (moved) { /* lowest offset clear of every placed neighbour */
			moved = false;
			off = usmp_align_up(off, align, &ok);
			for (uint32_t o = 0; o < n; o++)
				if (done[o] && usmp_live_overlap(v, b, o) &&
				    off < out[o].offset + v->buffers[o].size &&
				    out[o].offset < off + v->buffers[b].size) {
					off = out[o].offset + v->buffers[o].size;
					moved = true;
				}
		}
		out[b] = (usmp_placement){pool, 0, off};
		done[b] = 1;
	}
	h->free(h, order);
	h->free(h, done);
	return ok ? 0 : 1;
}
#if defined(FX_VOLUNTEER)
/* Declares twice first_fit's time: auto runs it when that fits. */
static const usmp_algorithm fx_oracle_algo = {
	sizeof(usmp_algorithm), USMP_CAP_DETERMINISTIC | USMP_CAP_PORTFOLIO,
	"fx_oracle", "first fit in name order, volunteering for auto", "",
	FN(fx_oracle), NULL, 2.0,
};
#define FX_NAME "volunteer"
#else
/* The same algorithm without the bit: auto never runs it. */
static const usmp_algorithm fx_oracle_algo = {
	sizeof(usmp_algorithm), USMP_CAP_DETERMINISTIC, "fx_oracle_off",
	"first fit in name order, not volunteering", "", FN(fx_oracle), NULL, 0,
};
#define FX_NAME "not_volunteer"
#endif
static const usmp_algorithm *const algos[] = {&fx_oracle_algo};
#endif

/* A volunteer that crashes, and one that returns an invalid plan: auto
 * ignores both, with a note. */
#if defined(FX_VOLUNTEER_CRASH)
static const usmp_algorithm fx_vcrash_algo = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO, "fx_volunteer_crash",
	"volunteers, then dereferences NULL", "", FN(fx_crash), NULL, 0,
};
static const usmp_algorithm fx_vinvalid_algo = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO, "fx_volunteer_invalid",
	"volunteers, then puts every buffer at offset 0", "", FN(fx_invalid),
	NULL, 0.5,
};
static const usmp_algorithm *const algos[] = {&fx_vcrash_algo,
                                              &fx_vinvalid_algo};
#define FX_NAME "volunteer_crash"
#endif

/* A volunteer whose declared cost auto cannot use (negative): refused, its
 * neighbour kept. */
#if defined(FX_BAD_COST)
static const usmp_algorithm fx_bad_cost = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO, "fx_bad_cost",
	"declares a negative cost", "", FN(fx_plain), NULL, -1.0,
};
static const usmp_algorithm fx_cost_ok = {
	sizeof(usmp_algorithm), USMP_CAP_PORTFOLIO, "fx_cost_ok",
	"declares cost 3", "", FN(fx_plain), NULL, 3.0,
};
static const usmp_algorithm *const algos[] = {&fx_bad_cost, &fx_cost_ok};
#define FX_NAME "bad_cost"
#endif

/* ---- faulting plugins: what isolation must survive ---------------------- */
#if defined(FX_CRASH)
static const usmp_algorithm fx_crash_algo = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_crash", "dereferences NULL", "",
	FN(fx_crash), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_crash_algo};
#define FX_NAME "crash"
#endif

#if defined(FX_HANG)
static int fx_hang(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	for (volatile unsigned long spin = 0;; spin++)
		; /* never looks at should_stop() */
	return 0;
}
static const usmp_algorithm fx_hang_algo = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_hang", "never returns", "",
	FN(fx_hang), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_hang_algo};
#define FX_NAME "hang"
#endif

#if defined(FX_SCRIBBLE)
/* A valid plan, then 64 KiB written past the end of the output array. */
static int fx_scribble(const usmp_view *v, const usmp_host *h,
                       usmp_placement *out)
{
	int st = stack_plan(v, h, out);
	volatile unsigned char *past = (volatile unsigned char *)(out + v->buffer_count);
	for (size_t i = 0; i < 65536; i++)
		past[i] = 0xa5;
	return st;
}
static const usmp_algorithm fx_scribble_algo = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_scribble",
	"writes past the end of its output array", "", FN(fx_scribble), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_scribble_algo};
#define FX_NAME "scribble"
#endif

#if defined(FX_LEAK)
/* A valid plan, leaving host allocations behind (the host frees them). */
static int fx_leak(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	for (int i = 0; i < 10; i++)
		if (!h->alloc(h, 1000))
			return 5;
	return stack_plan(v, h, out);
}
static const usmp_algorithm fx_leak_algo = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_leak",
	"forgets to free what it allocated", "", FN(fx_leak), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_leak_algo};
#define FX_NAME "leak"
#endif

#if defined(FX_SLOW_FIRST_FIT)
/* Stands in for first_fit (the name auto tries first, with its order knob):
 * sleeps 1.2 s, longer than auto's default limit, then stacks the buffers,
 * a valid plan far above the bound. */
#define FX_SLOW_KNOBS(X) X(str, order, size, "ignored")
USMP_ALGORITHM_DECLARE(fx_slow, FX_SLOW_KNOBS);
static int fx_slow(const usmp_view *v, const usmp_host *h, usmp_placement *out,
                   const char *order)
{
	(void)order;
	struct timespec ts = {1, 200000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
	return stack_plan(v, h, out);
}
static const usmp_algorithm fx_slow_algo = USMP_ALGORITHM_INIT(
	fx_slow, "first_fit", FX_CAPS, "sleeps 1.2 s, then stacks every buffer");
static const usmp_algorithm *const algos[] = {&fx_slow_algo};
#define FX_NAME "slow_first_fit"
#endif

/* ---- shadow_first_fit: takes the shipped first_fit's name, found first ---- */
#if defined(FX_SHADOW_FIRST_FIT)
static int fx_shadow(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const char *order)
{
	(void)order;
	return stack_plan(v, h, out);
}
static const usmp_algorithm fx_shadow_algo = {
	sizeof(usmp_algorithm), FX_CAPS, "first_fit",
	"stacks every buffer, under the shipped first_fit's name", "order:str=size",
	FN(fx_shadow), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_shadow_algo};
#define FX_NAME "shadow_first_fit"
#endif

/* ---- wrong_major: a v1 descriptor whose abi_major says 2 ------------------ */
#if defined(FX_WRONG_MAJOR)
static const usmp_algorithm fx_major2 = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_major2", "descriptor says major 2",
	"", FN(fx_plain), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_major2};
#define FX_MINOR 0
#define FX_MAJOR 2
#define FX_NAME "wrong_major"
#endif

/* ---- misbehaving at load: constructors the plugin scanner must survive -- */
#if defined(FX_CTOR_CRASH) || defined(FX_CTOR_EXIT) || defined(FX_CTOR_HANG)
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void fx_misbehave(void)
{
#if defined(FX_CTOR_CRASH)
	raise(SIGSEGV);
#elif defined(FX_CTOR_EXIT)
	exit(0);
#else
	for (;;)
		pause();
#endif
}
static const usmp_algorithm fx_ctor_algo = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_ctor", "never reached: its "
	"plugin misbehaves while loading", "", FN(fx_plain), NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_ctor_algo};
#if defined(FX_CTOR_CRASH)
#define FX_NAME "ctor_crash"
#elif defined(FX_CTOR_EXIT)
#define FX_NAME "ctor_exit"
#else
#define FX_NAME "ctor_hang"
#endif
#endif

/* ---- the descriptor ------------------------------------------------------ */
#if defined(FX_NAME)
#ifndef FX_STRUCT_SIZE
#define FX_STRUCT_SIZE sizeof(usmp_plugin)
#endif
#ifndef FX_MAJOR
#define FX_MAJOR USMP_ABI_MAJOR
#endif
#ifndef FX_MINOR /* the minor this host has, unless the fixture says */
#define FX_MINOR USMP_ABI_MINOR
#endif
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 = {
	FX_STRUCT_SIZE, FX_MAJOR, FX_MINOR,
	FX_NAME, "0.0.1-fixture", "Apache-2.0",
	sizeof algos / sizeof algos[0], 0, algos,
};
#endif

/* ---- v2_only: a plugin for a future major -------------------------------- */
#if defined(FX_V2_ONLY)
static const usmp_algorithm fx_v2 = {
	sizeof(usmp_algorithm), FX_CAPS, "fx_v2", "from major 2", "", FN(fx_plain),
	NULL, 0,
};
static const usmp_algorithm *const algos[] = {&fx_v2};
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v2 = {
	sizeof(usmp_plugin), 2, 0, "v2_only", "2.0", "Apache-2.0", 1, 0, algos,
};
#endif

/* ---- not_a_plugin: a shared object without any descriptor ---------------- */
#if defined(FX_NOT_A_PLUGIN)
USMP_PLUGIN_EXPORT int fixture_not_a_plugin(void);
int fixture_not_a_plugin(void)
{
	return 42;
}
#endif
