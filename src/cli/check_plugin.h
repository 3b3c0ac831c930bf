/* check_plugin.h — what `usmp check-plugin` shares between its files: the
 * built-in problems (check_problems.c) the checker (check_plugin.c) runs. */
#ifndef USMP_CLI_CHECK_PLUGIN_H
#define USMP_CLI_CHECK_PLUGIN_H

#include "cli.h"

/* A small problem exercising one feature. */
typedef struct check_problem {
	const char *name;  /* as shown in reports ("aligned") */
	const char *about; /* what it contains, one line */
	uint32_t needs;    /* usmp_capability bits an algorithm needs to get it */
	uint32_t uses;     /* bits whose promise it tests (needs, and optional ones) */
	int feasible;      /* 1: a valid plan exists; 0: none does */
	int (*build)(usmp_problem *p); /* fills an empty problem; 0 on success */
} check_problem;

extern const check_problem check_problems[];
extern const size_t check_problem_count;

/* A new problem built by cp, or NULL (out of memory). */
usmp_problem *check_problem_build(const check_problem *cp);

#endif
