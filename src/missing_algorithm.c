/* missing_algorithm.c — why an algorithm name is not in the registry: its plugin
 * was refused, or the algorithms there are, close names and what was skipped. */
#include "registry_private.h"

#include <stdlib.h>
#include <string.h>

/* "auto, first_fit, ..." (heap), or NULL when out of memory. */
static char *algo_list(const usmp_registry *r)
{
	uint32_t n = usmp__registry_algo_count(r);
	size_t len = 1;
	char *s;

	for (uint32_t i = 0; i < n; i++)
		len += strlen(usmp__registry_algo_at(r, i)->name) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, usmp__registry_algo_at(r, i)->name);
	}
	return s;
}

/* c, in lower case when fold is set and c is an ASCII capital. */
static char fold_ascii(char c, bool fold)
{
	return fold && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

size_t usmp__edit_distance(const char *a, size_t n, const char *b, size_t m,
                           bool fold)
{
	size_t row[USMP__EDIT_MAX + 1];

	if (n > USMP__EDIT_MAX || m > USMP__EDIT_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= m; j++)
		row[j] = j;
	for (size_t i = 1; i <= n; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t up = row[j];
			size_t best = diag + (fold_ascii(a[i - 1], fold) !=
			                      fold_ascii(b[j - 1], fold));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[m];
}

size_t usmp__name_distance(const char *name, const char *cand)
{
	size_t n = strlen(name);
	size_t d = usmp__edit_distance(name, n, cand, strlen(cand), false);
	return d > 0 && d <= (n < 4 ? 1 : n < 9 ? 2 : 3) ? d : SIZE_MAX;
}

/* Whether `cand` is close enough to `name` to suggest. */
static bool close_name(const char *name, const char *cand)
{
	return usmp__name_distance(name, cand) != SIZE_MAX;
}

/* Append ", \"name\"" (or the first) to the suggestions in *out. */
static void suggest(char **out, const char *name)
{
	char *prev = *out;

	*out = NULL;
	usmp__set_msg(out, "%s%s\"%s\"", prev ? prev : "", prev ? ", " : "",
	              name);
	free(prev);
}

/* Most skipped plugins named in one "no algorithm" message. */
#define MAX_SKIPPED_NAMED 6

int usmp__explain_missing(usmp_registry *r, const char *name, char **msg)
{
	const char *why = usmp__registry_refusal(r, name);
	const char *shipped = usmp__registry_missing_plugindir(r);
	const char *misses = usmp__registry_path_misses(r);
	const char *settings = usmp__registry_path_settings(r);
	char *list = NULL, *close = NULL, *skipped = NULL, *prev;
	uint32_t nd = usmp_registry_diagnostic_count(r), named = 0, more = 0;

	if (why) {
		usmp__set_msg(msg, "algorithm \"%s\" was refused when its plugin "
		                   "was loaded: %s", name, why);
		return USMP_ERR_PLUGIN;
	}
	list = algo_list(r);
	for (uint32_t i = 0; i < usmp__registry_algo_count(r); i++)
		if (close_name(name, usmp__registry_algo_at(r, i)->name))
			suggest(&close, usmp__registry_algo_at(r, i)->name);
	for (size_t i = 0; i < r->refused_count; i++)
		if (close_name(name, r->refused[i].name))
			suggest(&close, r->refused[i].name);
	for (uint32_t i = 0; i < nd; i++) {
		int kind = usmp_registry_diagnostic_kind(r, i);
		if (kind != USMP_DIAG_PLUGIN_SKIPPED &&
		    kind != USMP_DIAG_ALGORITHM_SKIPPED)
			continue;
		if (named == MAX_SKIPPED_NAMED) {
			more++;
			continue;
		}
		prev = skipped;
		skipped = NULL;
		usmp__set_msg(&skipped, "%s%s%s", prev ? prev : "", prev ? "; " : "",
		              usmp_registry_diagnostic(r, i));
		free(prev);
		named++;
	}
	if (more) {
		prev = skipped;
		skipped = NULL;
		usmp__set_msg(&skipped, "%s; and %u more", prev, more);
		free(prev);
	}
	/* Nothing close and nothing skipped: most often a plugin of the
	 * user's own that was never searched for, so say where to put it,
	 * and which entries of the plugin path held none (a misspelt one). */
	usmp__set_msg(msg, "no algorithm \"%s\" (algorithms: %s)%s%s%s%s%s%s%s%s%s%s%s",
	              name, list ? list : "?", close ? "; did you mean " : "",
	              close ? close : "", close ? "?" : "",
	              skipped ? (close ? " Skipped while loading plugins: "
	                               : "; skipped while loading plugins: ")
	                      : "",
	              skipped ? skipped : "",
	              close || skipped ? ""
	              : shipped        ? "; "
	                               : "; an algorithm from a plugin of your own "
	                                 "loads when its .so file, or its "
	                                 "directory, is on the plugin path (",
	              close || skipped || shipped ? "" : settings,
	              close || skipped || shipped ? "" : ")",
	              close || skipped || !shipped ? "" : shipped,
	              /* misses begins "entries of SETTING ...": capitalised
	               * where it begins a sentence */
	              !misses             ? ""
	              : close && !skipped ? " E"
	                                  : "; e",
	              misses ? misses + 1 : "");
	free(list);
	free(close);
	free(skipped);
	return USMP_ERR_NOT_FOUND;
}
