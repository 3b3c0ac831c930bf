/* registry_private.h — the layout of struct usmp_registry and the selection
 * rules, shared by registry.c (loading, queries) and select.c (selection). */
#ifndef USMP_REGISTRY_PRIVATE_H
#define USMP_REGISTRY_PRIVATE_H

#include "internal.h"

#include <pthread.h>

/* A loaded plugin. Strings are copies; `handle` is dlclose()d on destroy. */
typedef struct usmp__plugin_rec {
	void *handle;
	char *path, *name, *version, *license;
	uint32_t abi_major, abi_minor, algorithm_count;
} usmp__plugin_rec;

/* A selection rule "pattern=algo:k=v:k=v", parsed and validated. A rule from
 * USMP_ALGORITHM that failed validation is kept with `error` set, so that
 * resolving a target it matches fails with that message. */
typedef struct usmp__rule {
	char *text;            /* the rule as written (trimmed) */
	char *pattern;         /* fnmatch glob */
	const usmp__algo *algo; /* NULL when broken */
	char **assign;         /* "k=v" strings, in order */
	uint32_t assign_count;
	char *params;          /* the assignments joined by spaces, "" for none */
	char *error;           /* non-NULL: why the rule is unusable */
	int status;            /* with error: the usmp_status to report */
} usmp__rule;

typedef struct usmp__rule_list {
	usmp__rule *items;
	size_t count, cap;
} usmp__rule_list;

/* Strings and rules that must outlive a thread-safe call (select() results
 * for overrides, error messages of concurrent selects): kept, de-duplicated,
 * until the registry is destroyed. Guarded by usmp_registry.keep_lock. */
typedef struct usmp__kept {
	char **strings;
	size_t string_count, string_cap;
	usmp__rule **overrides; /* rules parsed from override specs */
	size_t override_count, override_cap;
} usmp__kept;

struct usmp_registry {
	usmp__plugin_rec *plugins;
	size_t plugin_count, plugin_cap;
	usmp__algo *algos; /* built-ins first; never changes after creation */
	size_t algo_count, algo_cap;
	char **diags;
	size_t diag_count, diag_cap;

	/* Selection: API rules change (bind/clear, write lock); env rules and
	 * the default are fixed at creation. */
	pthread_rwlock_t rules_lock;
	usmp__rule_list api_rules;
	usmp__rule_list env_rules;
	usmp__rule default_rule;

	pthread_mutex_t keep_lock;
	usmp__kept kept;
	const char *error; /* a kept string or "" */
};

/* select.c: parse USMP_ALGORITHM into env_rules (bad rules become
 * diagnostics and broken rules) and set up the default rule. Called once by
 * usmp_registry_create after every plugin is loaded. */
int usmp__select_init(usmp_registry *r, const char *env_rules);
/* Free every rule and kept string. */
void usmp__select_finish(usmp_registry *r);
/* Add a diagnostic line (registry.c). */
void usmp__registry_diag(usmp_registry *r, const char *fmt, ...)
	USMP__PRINTF(2, 3);

/* ---- scanner.c: reading plugins in a forked scanner process ------------ */

/* Seconds one plugin may take to load in the scanner before it is killed. */
#define USMP__SCAN_TIMEOUT 10.0

enum usmp__scan_outcome {
	USMP__SCAN_PASS = 1, /* loaded and passed the checks */
	USMP__SCAN_REFUSED,  /* loaded, refused by the checks: lines say why */
	USMP__SCAN_FAILED    /* crashed, exited or hung: lines[0] says so */
};

typedef struct usmp__scan_item {
	const char *path;  /* in: the file, as dlopen() gets it */
	int outcome;       /* out: usmp__scan_outcome */
	char **lines;      /* out: diagnostics, each "PATH: reason" */
	size_t line_count, line_cap;
} usmp__scan_item;

/* Passes one diagnostic line from the checker back to the parent. */
typedef void (*usmp__scan_emit)(void *sink, const char *line);
/* Runs in the scanner child: load `path`, check it, emit its diagnostics,
 * return whether it passed. Need not free anything. */
typedef bool (*usmp__scan_check)(const char *path, usmp__scan_emit emit,
                                 void *sink);

/* Check every item in one scanner child, started again after the plugin
 * in progress crashes, exits or hangs (USMP__SCAN_TIMEOUT). Every item gets
 * an outcome; returns USMP_OK or USMP_ERR_NOMEM. */
int usmp__scan(usmp__scan_item *items, size_t n, usmp__scan_check check);
/* Free the items' lines. */
void usmp__scan_finish(usmp__scan_item *items, size_t n);

#endif /* USMP_REGISTRY_PRIVATE_H */
