/* dispatch.c — the one way libusmp calls an algorithm (dispatch.h): whether
 * it can take the view, whether it runs isolated, then in process or not. */
#include "dispatch.h"

#include <stdlib.h>
#include <string.h>

uint32_t usmp__caps_needed(const usmp_view *v)
{
	uint32_t need = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		if (v->buffers[i].candidate_count > 1)
			need |= USMP_CAP_MULTI_POOL;
		if (v->buffers[i].flags & USMP_BUFFER_FIXED)
			need |= USMP_CAP_FIXED_OFFSETS;
	}
	if (v->conflict_start[v->buffer_count])
		need |= USMP_CAP_EXPLICIT_CONFLICTS;
	return need;
}

int usmp__check_caps(const usmp__algo *a, const usmp_view *v, char **msg)
{
	static const struct {
		uint32_t bit;
		const char *what, *cap;
	} caps[] = {
		{USMP_CAP_MULTI_POOL, "buffers with several candidate pools",
		 "multi-pool"},
		{USMP_CAP_FIXED_OFFSETS, "buffers with fixed offsets",
		 "fixed-offsets"},
		{USMP_CAP_EXPLICIT_CONFLICTS, "explicit conflict edges",
		 "conflict-edges"},
	};
	uint32_t missing = usmp__caps_needed(v) & ~a->caps;
	char what[160] = "", cap[80] = "";
	if (!missing)
		return USMP_OK;
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		if (!(missing & caps[i].bit))
			continue;
		if (*what) {
			strcat(what, " and ");
			strcat(cap, ", ");
		}
		strcat(what, caps[i].what);
		strcat(cap, caps[i].cap);
	}
	if (msg)
		usmp__set_msg(msg, "algorithm \"%s\" cannot plan %s: it lacks the "
		              "%s %s", a->name, what,
		              missing & (missing - 1) ? "capabilities" : "capability",
		              cap);
	return USMP_ERR_UNSUPPORTED;
}

/* A plugin found outside the shipped plugin directory (paths.c). */
static bool untrusted_plugin(const usmp_registry *r, uint32_t plugin)
{
	usmp_plugin_info info = {.struct_size = sizeof info};
	if (usmp_registry_plugin(r, plugin, &info))
		return true;
	return !usmp__in_plugindir(info.path);
}

bool usmp__dispatch_isolates(const usmp_registry *r, const usmp__algo *a,
                             uint32_t flags)
{
	if (flags & USMP_PLAN_ISOLATE)
		return true;
	if (flags & USMP_PLAN_NO_ISOLATE)
		return false;
	if (!a->builtin)
		return untrusted_plugin(r, a->plugin);
	if (!a->portfolio)
		return false; /* libusmp's own code, running nothing else */
	for (uint32_t i = 0; i < usmp_registry_plugin_count(r); i++)
		if (untrusted_plugin(r, i))
			return true;
	return false;
}

static int dispatch_call(usmp__call *c)
{
	if (!usmp__dispatch_isolates(c->r, c->algo, c->flags))
		return usmp__invoke(c);
	/* The grace the kill rule allows past the deadline (budget.h). */
	double budget = c->hc->deadline > 0 ? c->hc->deadline - usmp__now() : 0;
	double grace = c->member ? USMP__GRACE_MEMBER
	                         : usmp__isolate_grace(budget,
	                                               c->view->buffer_count);
	return usmp__isolated_call(c, grace);
}

/* A plugin's status outside enum usmp_status breaks the contract: it is
 * USMP_ERR_PLUGIN naming the algorithm and its file, never passed on (a
 * host would get a status no usmp_status_name knows). */
static int unknown_status(usmp__call *c, int st)
{
	usmp_plugin_info info = {.struct_size = sizeof info};
	if (usmp_registry_plugin(c->r, c->algo->plugin, &info))
		info.name = info.path = "?";
	usmp__set_msg(&c->error, "algorithm \"%s\" (plugin \"%s\", %s) "
	              "returned %d, which is no usmp_status (0 to %d)",
	              c->algo->name, info.name, info.path, st,
	              USMP_ERR_INTERNAL);
	return USMP_ERR_PLUGIN;
}

int usmp__dispatch(usmp__call *c)
{
	if (!c->algo)
		return USMP_ERR_INTERNAL;
	/* A member's log lines name it after the portfolio: "auto/first_fit". */
	const char *outer = c->hc->member;
	if (c->member)
		c->hc->member = c->algo->name;
	int st = dispatch_call(c);
	if (!c->algo->builtin && !c->error &&
	    (st < USMP_OK || st > USMP_ERR_INTERNAL))
		st = unknown_status(c, st);
	c->hc->member = outer;
	return st;
}

void usmp__call_finish(usmp__call *c)
{
	free(c->who);
	c->who = NULL;
	usmp__free_msg(&c->error);
}
