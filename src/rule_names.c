/* rule_names.c — the selection rules against one problem's names: a rule that
 * matches no pool or target of the problem, or never decides, is said. */
#include "problem.h"
#include "registry_private.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Most names listed in one line. */
#define NAMES_SHOWN 8

/* The names a rule is matched against: the pools', or the targets' (each
 * once, in pool order, with the untargeted part's when a pool names none). */
typedef struct name_set {
	const char **names;
	uint32_t count;
	usmp__strmap seen; /* the names, so adding one is O(1): a problem may
	                    * have a million pools each naming its own target */
} name_set;

/* Add `name` unless it is there; USMP_ERR_NOMEM when out of memory. */
static int add_name(name_set *s, const char *name)
{
	uint32_t k;
	if (usmp__strmap_get(&s->seen, name, &k) == USMP_OK)
		return USMP_OK;
	if (usmp__strmap_put(&s->seen, name, s->count) != USMP_OK)
		return USMP_ERR_NOMEM;
	s->names[s->count++] = name;
	return USMP_OK;
}

/* Fill pools and targets from p; USMP_ERR_NOMEM when out of memory. */
static int problem_names(const usmp_problem *p, const char *target,
                         name_set *pools, name_set *targets)
{
	size_t nt = 1;
	for (size_t i = 0; i < p->pool_count; i++)
		nt += p->pools[i].target_count;
	pools->names = malloc((p->pool_count ? p->pool_count : 1) *
	                      sizeof *pools->names);
	targets->names = malloc(nt * sizeof *targets->names);
	if (!pools->names || !targets->names)
		return USMP_ERR_NOMEM;
	for (size_t i = 0; i < p->pool_count; i++) {
		const usmp__pool *pl = &p->pools[i];
		pools->names[pools->count++] = pl->name; /* unique already */
		for (uint32_t j = 0; j < pl->target_count; j++)
			if (add_name(targets, pl->targets[j]) != USMP_OK)
				return USMP_ERR_NOMEM;
		if (!pl->target_count &&
		    add_name(targets, target ? target : "") != USMP_OK)
			return USMP_ERR_NOMEM;
	}
	return USMP_OK;
}

/* The name of s closest to pattern, or NULL when none is close. */
static const char *nearest(const name_set *s, const char *pattern)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (uint32_t i = 0; i < s->count; i++) {
		/* The untargeted part's empty target is no name a rule can
		 * give ("=exact" is refused): never the guess. */
		if (!*s->names[i])
			continue;
		if (!strcasecmp(pattern, s->names[i]))
			return s->names[i]; /* "@SRAM" for "sram" */
		size_t d = usmp__name_distance(pattern, s->names[i]);
		if (d < best_d) {
			best_d = d;
			best = s->names[i];
		}
	}
	return best;
}

/* "\"sram\", \"dram\"" (at most NAMES_SHOWN, then "and N more"), each name
 * shortened as in every library message (msg_format.c), so the list is
 * never cut; "none" when s is empty; NULL when out of memory. */
static char *list_names(const name_set *s)
{
	char *list = usmp__strdup(s->count ? "" : "none");
	for (uint32_t i = 0; i < s->count && list; i++) {
		char *more;
		if (i == NAMES_SHOWN)
			more = usmp__format_msg("%s and %u more", list,
			                        s->count - NAMES_SHOWN);
		else
			more = usmp__format_msg("%s%s\"%s\"", list, i ? ", " : "",
			                        s->names[i]);
		free(list);
		list = more;
		if (i == NAMES_SHOWN)
			break;
	}
	return list;
}

/* Whether `pattern` is a list of names joined by "," (as the summary
 * prints a part's targets), each piece matching a name of s: a pattern is
 * one glob, so such a rule matches nothing. */
static bool names_list(const char *pattern, const name_set *s)
{
	char piece[256];
	if (!strchr(pattern, ','))
		return false;
	for (const char *at = pattern;; at++) {
		size_t n = strcspn(at, ",");
		bool hit = false;
		if (n == 0 || n >= sizeof piece)
			return false;
		memcpy(piece, at, n);
		piece[n] = '\0';
		for (uint32_t k = 0; k < s->count && !hit; k++)
			hit = fnmatch(piece, s->names[k], 0) == 0;
		if (!hit)
			return false;
		at += n;
		if (!*at)
			return true;
	}
}

/* Say one rule that matches no name of its kind. */
static void say_unmatched(const usmp__rule *rule, const name_set *s,
                          const char *who, usmp_log_fn fn, void *ctx,
                          int level)
{
	/* A glob is a family of names, maybe another problem's: no guess. */
	bool glob = strpbrk(rule->pattern, "*?[") != NULL;
	bool list = names_list(rule->pattern, s);
	const char *near = glob || list ? NULL : nearest(s, rule->pattern);
	int at = near || list ? USMP_LOG_WARN : USMP_LOG_INFO;
	const char *kind = rule->pool ? "pool" : "target";
	char *names = NULL, *guess = NULL, *line = NULL;
	if (at > level)
		return;
	names = list_names(s);
	/* the guess quoted (so shortened) as a name, '@' put in after */
	guess = near ? usmp__format_msg("\"%s\"", near) : usmp__strdup("");
	if (!names || !guess)
		goto fail;
	if (list)
		line = usmp__format_msg("rule \"%s\" matches no %s of the problem "
		                        "(%ss: %s): a pattern is one glob, not a "
		                        "list of names joined by \",\": write a "
		                        "glob matching each of them (\"*\" matches "
		                        "all)%s", rule->text, kind, kind, names,
		                        rule->pool ? "" : ", or a pool rule "
		                        "(@POOL=...), which decides a part whatever "
		                        "its targets");
	else if (near)
		line = usmp__format_msg("rule \"%s\" matches no %s of the problem "
		                        "(%ss: %s); did you mean \"%s%s?", rule->text,
		                        kind, kind, names, rule->pool ? "@" : "",
		                        guess + 1);
	else
		line = usmp__format_msg("rule \"%s\" matches no %s of the problem "
		                        "(%ss: %s)", rule->text, kind, kind, names);
	if (!line)
		goto fail;
	if (fn)
		fn(ctx, at, who, line);
	else
		fprintf(stderr, "usmp: %s: %s\n", who, line);
fail:
	free(line);
	free(guess);
	free(names);
}

/* Say the rules of l an earlier rule keeps from ever deciding; whether
 * rule i is one is in by[i] (usmp__rules_shadowing). */
static void say_shadowed(const usmp__rule_list *l, const size_t *by,
                         const char *who, usmp_log_fn fn, void *ctx)
{
	for (size_t i = 0; i < l->count; i++) {
		char *line = NULL;
		if (by[i] == SIZE_MAX ||
		    usmp__rule_shadow_line(l, i, by[i], &line))
			continue;
		if (fn)
			fn(ctx, USMP_LOG_WARN, who, line);
		else
			fprintf(stderr, "usmp: %s: %s\n", who, line);
		free(line);
	}
}

static void check_list(const usmp__rule_list *l, const name_set *pools,
                       const name_set *targets, const char *who,
                       usmp_log_fn fn, void *ctx, int level)
{
	size_t *by = usmp__rules_shadowing(l);
	if (by)
		say_shadowed(l, by, who, fn, ctx);
	for (size_t i = 0; i < l->count; i++) {
		const usmp__rule *rule = &l->items[i];
		if (by && by[i] != SIZE_MAX)
			continue; /* said: it never decides */
		const name_set *s = rule->pool ? pools : targets;
		bool hit = false;
		for (uint32_t k = 0; k < s->count && !hit; k++)
			hit = fnmatch(rule->pattern, s->names[k], 0) == 0;
		if (!hit)
			say_unmatched(rule, s, who, fn, ctx, level);
	}
	free(by);
}

void usmp__rules_check_names(usmp_registry *r, const usmp_problem *p,
                             const char *target, void *log_ctx)
{
	usmp_log_fn fn;
	void *ctx;
	int level;
	name_set pools = {0}, targets = {0};
	usmp__log_config(r, &fn, &ctx, &level);
	if (fn && log_ctx) /* the call's own, as plan.c gives its host */
		ctx = log_ctx;
	if (level < USMP_LOG_WARN)
		return;
	pthread_rwlock_rdlock(&r->rules_lock);
	/* No rules (the common case): nothing to match, nothing to build. */
	if ((!r->api_rules.count && !r->env_rules.count) ||
	    problem_names(p, target, &pools, &targets))
		goto unlock;
	check_list(&r->api_rules, &pools, &targets, "usmp_registry_bind", fn,
	           ctx, level);
	check_list(&r->env_rules, &pools, &targets, "USMP_ALGORITHM", fn, ctx,
	           level);
unlock:
	pthread_rwlock_unlock(&r->rules_lock);
	free(pools.names);
	free(targets.names);
	usmp__strmap_finish(&targets.seen);
}
