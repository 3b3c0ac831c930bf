/* log.c — where algorithms' log messages go: the host's log function set on
 * the registry (usmp_registry_set_log), else stderr, at the level USMP_LOG names. */
#include "registry_private.h"

#include <stdlib.h>
#include <string.h>

int usmp__log_level_from_env(void)
{
	static const char *const names[] = {"error", "warn", "info", "debug"};
	const char *s = getenv("USMP_LOG");
	if (!s)
		return USMP__LOG_SILENT;
	for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
		if (!strcmp(s, names[i]))
			return USMP_LOG_ERROR + i;
	/* Unset, empty or unknown: the default, silent (errors reach the
	 * caller in the failure message anyway). */
	return USMP__LOG_SILENT;
}

int usmp_registry_set_log(usmp_registry *r, usmp_log_fn fn, void *ctx,
                          int level)
{
	if (!r)
		return USMP_ERR_INVALID;
	if (fn && level != USMP_LOG_LEVEL_ENV &&
	    (level < USMP_LOG_ERROR || level > USMP_LOG_DEBUG))
		return USMP_ERR_INVALID;
	r->log_fn = fn;
	r->log_ctx = fn ? ctx : NULL;
	r->log_level = fn ? level : USMP_LOG_LEVEL_ENV;
	return USMP_OK;
}

void usmp__log_config(const usmp_registry *r, usmp_log_fn *fn, void **ctx,
                      int *level)
{
	*fn = r ? r->log_fn : NULL;
	*ctx = r ? r->log_ctx : NULL;
	*level = r && r->log_level != USMP_LOG_LEVEL_ENV
	                 ? r->log_level
	                 : usmp__log_level_from_env();
}
