/* names.c — the loose ends 6 fixture plugin: algorithm names that break
 * [a-z][a-z0-9_]* each its way, and one valid algorithm. */
#include <usmp/plugin.h>

#include "../fixture_stack.h"

#define FN(f) ((usmp_algorithm_fn)(f))

static int le6_stack(const usmp_view *v, const usmp_host *h,
                     usmp_placement *out)
{
	(void)h;
	return fx_stack(v, out, NULL);
}

#define LE6_ALGO(var, name)                                                    \
	static const usmp_algorithm var = {                                     \
		sizeof(usmp_algorithm), USMP_CAP_MULTI_POOL, name, "bad name", "", \
		FN(le6_stack), NULL, 0,                                         \
	}

LE6_ALGO(a_dash, "Acme-LF");
LE6_ALGO(a_digit, "2opt.fast");
LE6_ALGO(a_utf8, "caf\xc3\xa9-fit");
LE6_ALGO(a_none, "__");
LE6_ALGO(a_ok, "le6_ok");

static const usmp_algorithm *const algos[] = {&a_dash, &a_digit, &a_utf8,
                                              &a_none, &a_ok};

USMP_PLUGIN_EXPORT const usmp_plugin usmp_plugin_v1 =
	USMP_PLUGIN_INIT("bad_names", "0.0.1-fixture", "Apache-2.0", algos);
