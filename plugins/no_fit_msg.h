/* no_fit_msg.h — the message the heuristic plugins give when a buffer fits
 * in none of its candidate pools; header-only, as every plugin's module is. */
#ifndef USMP_PLUGINS_NO_FIT_MSG_H
#define USMP_PLUGINS_NO_FIT_MSG_H
#include <stdio.h>

#include <usmp/plugin.h>

#include "name_shown.h"

/* "<algo>: buffer "<name>" (<size> byte(s)) fits in none of its <n>
 * candidate pool(s)" into msg[0..cap). */
static inline void no_fit_msg(char *msg, size_t cap, const char *algo,
                              const usmp_buffer_rec *r)
{
	char nm[NAME_SHOWN_MAX];
	snprintf(msg, cap,
	         "%s: buffer \"%s\" (%llu byte%s) fits in none of its %u "
	         "candidate pool(s)",
	         algo, name_shown(r->name, nm), (unsigned long long)r->size,
	         r->size == 1 ? "" : "s", r->candidate_count);
}

#endif
