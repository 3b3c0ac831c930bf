/* rule_shadow.c — a selection rule no part can reach: an earlier rule of the
 * same list and kind matches whatever it matches, and the first match decides. */
#include "registry_private.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Earlier globs a later literal pattern is tried against, per kind: a
 * list longer than any written by hand is still checked in linear time. */
#define GLOBS_TRIED 64

static bool is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[\\") != NULL;
}

size_t *usmp__rules_shadowing(const usmp__rule_list *l)
{
	usmp__strmap seen[2];
	size_t star[2] = {SIZE_MAX, SIZE_MAX};
	size_t globs[2][GLOBS_TRIED];
	uint32_t nglobs[2] = {0, 0};
	size_t *by = malloc((l->count ? l->count : 1) * sizeof *by);

	usmp__strmap_init(&seen[0]);
	usmp__strmap_init(&seen[1]);
	if (!by)
		goto fail;
	for (size_t j = 0; j < l->count; j++) {
		const usmp__rule *rule = &l->items[j];
		int kind = rule->pool ? 1 : 0;
		uint32_t first;
		by[j] = SIZE_MAX;
		if (usmp__strmap_get(&seen[kind], rule->pattern,
		                     &first) == USMP_OK) {
			by[j] = first;
		} else if (star[kind] != SIZE_MAX) {
			by[j] = star[kind]; /* "*" (or "@*") matches every name */
		} else if (!is_glob(rule->pattern)) {
			for (uint32_t g = 0; g < nglobs[kind]; g++) {
				const usmp__rule *e = &l->items[globs[kind][g]];
				if (fnmatch(e->pattern, rule->pattern, 0) == 0) {
					by[j] = globs[kind][g];
					break;
				}
			}
		}
		if (by[j] != SIZE_MAX || j > UINT32_MAX)
			continue;
		if (usmp__strmap_put(&seen[kind], rule->pattern,
		                     (uint32_t)j) == USMP_ERR_NOMEM)
			goto fail;
		if (!strcmp(rule->pattern, "*"))
			star[kind] = j;
		else if (is_glob(rule->pattern) && nglobs[kind] < GLOBS_TRIED)
			globs[kind][nglobs[kind]++] = j;
	}
	usmp__strmap_finish(&seen[0]);
	usmp__strmap_finish(&seen[1]);
	return by;
fail:
	usmp__strmap_finish(&seen[0]);
	usmp__strmap_finish(&seen[1]);
	free(by);
	return NULL;
}

int usmp__rule_shadow_line(const usmp__rule_list *l, size_t j, size_t by,
                           char **line)
{
	const usmp__rule *rule = &l->items[j], *e = &l->items[by];
	const char *kind = rule->pool ? "pool" : "target";
	bool same = !strcmp(rule->pattern, e->pattern);
	char why[64];

	if (same)
		snprintf(why, sizeof why, "has the same pattern");
	else if (!strcmp(e->pattern, "*"))
		snprintf(why, sizeof why, "matches every %s", kind);
	else
		snprintf(why, sizeof why, "matches that %s too", kind);
	*line = NULL;
	usmp__set_msg(line, "rule \"%s\" never decides: the earlier rule \"%s\" "
	              "%s (the first rule that matches a part decides it): "
	              "%s%s%s", rule->text, e->text, why,
	              same ? "" : "put \"", same ? "" : rule->text,
	              same ? "remove one" : "\" before it, or remove one");
	return *line ? USMP_OK : USMP_ERR_NOMEM;
}
