/* use_headers.c — the public headers on their own, compiled as C99 and C11
 * with -pedantic -Werror: a host or plugin in any of these modes can use them.
 * Prints TAP so the check counts as test cases. */
#include <usmp/usmp.h>
#include <usmp/plugin.h>
#include <usmp/common.h>
#include <stdio.h>
#include <string.h>

/* One knob of every type, and an algorithm without knobs, declared with
 * USMP_ALGORITHM_DECLARE: the definitions below must match the prototypes. */
#define ALL_KNOBS(X)                                                           \
	X(bool, flag, false, "a bool")                                             \
	X(i32, small, -1, "an i32")                                                \
	X(u32, count, 7, "a u32")                                                  \
	X(i64, delta, -2, "an i64")                                                \
	X(u64, gap, 0, "a u64")                                                    \
	X(f64, ratio, 0.5, "an f64")                                               \
	X(str, order, size, "a str")                                               \
	X(str, prefix, , "an empty default")
USMP_ALGORITHM_DECLARE(all_knobs, ALL_KNOBS);
USMP_ALGORITHM_DECLARE(no_knobs, USMP_NO_KNOBS);

static int all_knobs(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, bool flag, int32_t small,
                     uint32_t count, int64_t delta, uint64_t gap, double ratio,
                     const char *order, const char *prefix)
{
	(void)v, (void)h, (void)out, (void)small, (void)count, (void)delta;
	(void)gap, (void)ratio, (void)order, (void)prefix;
	return flag ? USMP_ERR_INVALID : USMP_OK;
}

static int no_knobs(const usmp_view *v, const usmp_host *h, usmp_placement *out)
{
	(void)v, (void)h, (void)out;
	return USMP_OK;
}

static const usmp_algorithm all_algo = USMP_ALGORITHM_INIT(
	all_knobs, "all_knobs", USMP_CAP_DETERMINISTIC, "every knob type");
static const usmp_algorithm none_algo = USMP_ALGORITHM_INIT(
	no_knobs, "no_knobs", USMP_CAP_MULTI_POOL | USMP_CAP_DETERMINISTIC,
	"no knobs");

/* The whole plugin descriptor from USMP_PLUGIN_INIT, as a plugin writes
 * it (the same line compiles as C++: use_headers.cpp). */
static const usmp_algorithm *const c_algos[] = {&all_algo, &none_algo};
USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT("c_plugin", "1.0", "MIT", c_algos);

static int ok(int n, int cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", n, what);
	return !cond;
}

int main(void)
{
	usmp_algorithm a = {0};
	a.struct_size = sizeof a;
	int bad = 0;
	printf("1..7\n");
	bad |= ok(1, USMP_ABI_MAJOR == 1, "ABI major is 1");
	bad |= ok(2, USMP_HAS_FIELD(&a, usmp_algorithm, param_help),
	          "USMP_HAS_FIELD works in this language mode");
	bad |= ok(3, usmp_align_up(13, 8, &(bool){true}) == 16,
	          "inline helpers compile and work");
	bad |= ok(4, !strcmp(all_algo.params, "flag:bool=false small:i32=-1 "
	                     "count:u32=7 delta:i64=-2 gap:u64=0 ratio:f64=0.5 "
	                     "order:str=size prefix:str=") &&
	                 !strcmp(none_algo.params, ""),
	          "USMP_ALGORITHM_DECLARE builds the signature string");
	bad |= ok(5, !strncmp(all_algo.param_help, "flag: a bool\nsmall: an i32\n",
	                      27) &&
	                 !strcmp(strrchr(all_algo.param_help, '\n'),
	                         "\nprefix: an empty default") &&
	                 !strcmp(none_algo.param_help, ""),
	          "USMP_ALGORITHM_DECLARE builds the knob help");
	bad |= ok(6, all_algo.struct_size == sizeof(usmp_algorithm) &&
	                 all_algo.fn == (usmp_algorithm_fn)all_knobs &&
	                 !strcmp(none_algo.name, "no_knobs") &&
	                 none_algo.caps == (USMP_CAP_MULTI_POOL |
	                                    USMP_CAP_DETERMINISTIC),
	          "USMP_ALGORITHM_INIT fills the descriptor in field order");
	bad |= ok(7, usmp_plugin_v1.struct_size == sizeof(usmp_plugin) &&
	                 usmp_plugin_v1.abi_major == USMP_ABI_MAJOR &&
	                 usmp_plugin_v1.abi_minor == USMP_ABI_MINOR &&
	                 !strcmp(usmp_plugin_v1.name, "c_plugin") &&
	                 !strcmp(usmp_plugin_v1.license, "MIT") &&
	                 usmp_plugin_v1.algorithm_count == 2 &&
	                 usmp_plugin_v1.reserved == 0 &&
	                 usmp_plugin_v1.algorithms[1] == &none_algo,
	          "USMP_PLUGIN_INIT fills the plugin descriptor, counting the array");
	return bad;
}
