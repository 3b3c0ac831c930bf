/* check_plugin.c — `usmp check-plugin FILE`: each algorithm of one plugin run
 * isolated on the built-in problems and edge-case knobs, failures in words. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strsignal */
#include "check_plugin.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { OPT_TIME_LIMIT = CLI_LONG_ONLY, OPT_SAVE };

static const cli_option check_plugin_options[] = {
	{OPT_TIME_LIMIT, "time-limit", "SECONDS", 0,
	 "seconds each call may take (default 5)"},
	{OPT_SAVE, "save", "DIR", 0,
	 "write the built-in problems to DIR as JSON, to reproduce failures"},
	{'v', "verbose", NULL, 0, "print every call and its outcome"},
	{'h', "help", NULL, 0, "print this help and exit"},
	{0, NULL, NULL, 0, NULL},
};

/* Length of the long string given to every str knob. */
#define LONG_STR_LEN 4096

/* One set of knob values to try: the defaults, or one knob changed. */
typedef struct setting {
	char *assign; /* "name=value", NULL for the defaults */
	char *shown;  /* how reports name it: "with pad=4294967295" */
} setting;

typedef struct checker {
	usmp_registry *r;
	const char *path;     /* the plugin file, as given */
	const char *save_dir; /* --save, or NULL */
	usmp_problem **problems;
	double time_limit;
	int verbose;
	unsigned calls, failures;
} checker;

/* What one call came to. */
enum verdict { PASS, ACCEPTED, FAIL };
typedef struct outcome {
	enum verdict verdict;
	int killed;     /* not back within the time limit plus grace */
	int at_limit;   /* ran (about) until the time limit */
	char text[1536];
} outcome;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "SIGSEGV" for the common signals a plugin dies of. */
static const char *signal_abbrev(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGABRT: return "SIGABRT";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGPIPE: return "SIGPIPE";
	default: return NULL;
	}
}

/* The capability names of `caps`, as in plugin.h ("USMP_CAP_MULTI_POOL"). */
static void cap_names(uint32_t caps, char *out, size_t n)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{USMP_CAP_MULTI_POOL, "USMP_CAP_MULTI_POOL"},
		{USMP_CAP_OVERLAP_RULES, "USMP_CAP_OVERLAP_RULES"},
		{USMP_CAP_FIXED_OFFSETS, "USMP_CAP_FIXED_OFFSETS"},
		{USMP_CAP_EXPLICIT_CONFLICTS, "USMP_CAP_EXPLICIT_CONFLICTS"},
		{USMP_CAP_EXACT, "USMP_CAP_EXACT"},
		{USMP_CAP_DETERMINISTIC, "USMP_CAP_DETERMINISTIC"},
		{USMP_CAP_ANYTIME, "USMP_CAP_ANYTIME"},
	};
	size_t at = 0;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof *names && at < n; i++)
		if (caps & names[i].bit)
			at += (size_t)snprintf(out + at, n - at, "%s%s", at ? ", " : "",
			                       names[i].name);
}

/* ---- knob settings ------------------------------------------------------ */

static int add_setting(setting **list, size_t *count, const char *name,
                       const char *value)
{
	setting *grown = realloc(*list, (*count + 1) * sizeof **list);
	if (!grown)
		return -1;
	*list = grown;
	setting *s = &grown[*count];
	memset(s, 0, sizeof *s);
	if (!name) {
		s->shown = strdup("with its default knobs");
		if (!s->shown)
			return -1;
		(*count)++;
		return 0;
	}
	size_t len = strlen(name) + strlen(value) + 2;
	s->assign = malloc(len);
	s->shown = malloc(len + 64);
	if (!s->assign || !s->shown) {
		free(s->assign);
		free(s->shown);
		return -1;
	}
	snprintf(s->assign, len, "%s=%s", name, value);
	if (strlen(value) > 40)
		snprintf(s->shown, len + 64, "with %s=\"%.8s...\" (%zu bytes)", name,
		         value, strlen(value));
	else if (!*value)
		snprintf(s->shown, len + 64, "with %s=\"\" (empty)", name);
	else
		snprintf(s->shown, len + 64, "with %s=%s", name, value);
	(*count)++;
	return 0;
}

static void free_settings(setting *list, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(list[i].assign);
		free(list[i].shown);
	}
	free(list);
}

/* The defaults, then each knob alone at each edge value of its type that
 * differs from its default. */
static int build_settings(usmp_registry *r, uint32_t algo, uint32_t knobs,
                          const char *long_str, setting **list, size_t *count)
{
	static const char *const bools[] = {"false", "true", NULL};
	static const char *const i32s[] = {"-2147483648", "0", "2147483647", NULL};
	static const char *const u32s[] = {"0", "4294967295", NULL};
	static const char *const i64s[] = {"-9223372036854775808", "0",
	                                   "9223372036854775807", NULL};
	static const char *const u64s[] = {"0", "18446744073709551615", NULL};
	static const char *const f64s[] = {"-1", "0", "1e300", NULL};
	const char *strs[] = {"", long_str, NULL};

	*list = NULL;
	*count = 0;
	if (add_setting(list, count, NULL, NULL))
		return -1;
	for (uint32_t k = 0; k < knobs; k++) {
		usmp_param_info pi = {.struct_size = sizeof pi};
		if (usmp_registry_param(r, algo, k, &pi))
			continue;
		const char *const *values;
		switch (pi.type) {
		case USMP_PARAM_BOOL: values = bools; break;
		case USMP_PARAM_I32: values = i32s; break;
		case USMP_PARAM_U32: values = u32s; break;
		case USMP_PARAM_I64: values = i64s; break;
		case USMP_PARAM_U64: values = u64s; break;
		case USMP_PARAM_F64: values = f64s; break;
		default: values = strs; break;
		}
		for (const char *const *v = values; *v; v++)
			if (strcmp(*v, pi.default_value) &&
			    add_setting(list, count, pi.name, *v))
				return -1;
	}
	return 0;
}

/* ---- one call ----------------------------------------------------------- */

/* Judge a plan the library returned as USMP_OK: verify it again and, when
 * its pools are small enough, replay it in memory. */
static void judge_plan(usmp_plan *plan, usmp_problem *p, outcome *o)
{
	uint64_t total = 0;
	if (usmp_plan_verify(plan, p)) {
		o->verdict = FAIL;
		snprintf(o->text, sizeof o->text, "returned a plan the verifier "
		         "rejects: %s", usmp_plan_error(plan));
		return;
	}
	for (uint32_t j = 0; j < usmp_problem_pool_count(p); j++) {
		uint64_t s = usmp_plan_pool_size(plan, j);
		total = total + s < total ? UINT64_MAX : total + s;
	}
	if (total <= (1u << 20) && usmp_plan_simulate(plan, p)) {
		o->verdict = FAIL;
		snprintf(o->text, sizeof o->text, "returned a plan that fails when "
		         "replayed in memory: %s", usmp_plan_error(plan));
		return;
	}
	o->verdict = PASS;
	snprintf(o->text, sizeof o->text, "valid plan, %llu byte%s",
	         (unsigned long long)total, cli_s(total));
}

/* A USMP_ERR_PLUGIN failure in words: crash, kill, exit, invalid plan. */
static void judge_plugin_error(const checker *c, const char *msg,
                               double elapsed, outcome *o)
{
	const char *at;
	int sig;
	o->verdict = FAIL;
	if (elapsed >= c->time_limit) {
		o->killed = 1;
		snprintf(o->text, sizeof o->text, "took longer than %g s (the time "
		         "limit) and was killed after %.1f s; call host->should_stop() "
		         "in long loops and return when it says so", c->time_limit,
		         elapsed);
	} else if ((at = strstr(msg, "crashed with signal ")) &&
	           sscanf(at, "crashed with signal %d", &sig) == 1) {
		const char *abbrev = signal_abbrev(sig);
		char name[32];
		if (abbrev)
			snprintf(name, sizeof name, "%s", abbrev);
		else
			snprintf(name, sizeof name, "signal %d", sig);
		snprintf(o->text, sizeof o->text, "crashed with %s (%s)%s", name,
		         strsignal(sig),
		         sig == SIGSEGV || sig == SIGBUS
		                 ? "; a write past the end of `out` (buffer_count "
		                   "entries) also ends this way"
		                 : "");
	} else if ((at = strstr(msg, "returned an invalid plan: "))) {
		/* The violation alone: the plugin's file and the advice to run
		 * check-plugin are what this command is. */
		at += strlen("returned an invalid plan: ");
		const char *end = strstr(at, "; its plugin \"");
		const char *part = end ? strstr(end, " (part ") : NULL;
		snprintf(o->text, sizeof o->text, "returned a plan the verifier "
		         "rejects: %.*s%s", (int)(end ? end - at : (int)strlen(at)),
		         at, part ? part : "");
	} else if (strstr(msg, "instead of returning")) {
		snprintf(o->text, sizeof o->text, "ended its process instead of "
		         "returning (exit(), or a crash a sanitizer or signal "
		         "handler turned into an exit): %s", msg);
	} else {
		snprintf(o->text, sizeof o->text, "failed: %s", msg);
	}
}

/* Run `algo` with setting `s` on problem `pi` and judge the result. With
 * `keep`, a plan that passed is handed over in *keep (NULL otherwise). */
static void run_call(checker *c, const usmp_algorithm_info *ai,
                     const setting *s, size_t pi, int defaults, outcome *o,
                     usmp_plan **keep)
{
	const check_problem *cp = &check_problems[pi];
	usmp_problem *p = c->problems[pi];
	usmp_plan_options opts = {.struct_size = sizeof opts};
	const char *params[1];
	usmp_plan *plan = NULL;

	memset(o, 0, sizeof *o);
	if (keep)
		*keep = NULL;
	opts.flags = USMP_PLAN_ISOLATE;
	opts.algorithm = ai->name;
	if (s->assign) {
		params[0] = s->assign;
		opts.params = params;
		opts.param_count = 1;
	}
	opts.time_limit = c->time_limit;
	double t0 = now();
	int st = usmp_plan_compute(c->r, p, &opts, &plan);
	double elapsed = now() - t0;
	const char *msg = plan ? usmp_plan_error(plan) : "out of memory";
	o->at_limit = elapsed >= 0.9 * c->time_limit;
	c->calls++;

	if (!plan) {
		o->verdict = FAIL;
		snprintf(o->text, sizeof o->text, "usmp ran out of memory");
	} else if (st == USMP_OK) {
		judge_plan(plan, p, o);
	} else if (st == USMP_ERR_PLUGIN || st == USMP_ERR_INVALID_PLAN) {
		judge_plugin_error(c, msg, elapsed, o);
	} else if (st == USMP_ERR_UNSUPPORTED &&
	           (ai->caps & cp->needs) == cp->needs) {
		char caps[256];
		cap_names(cp->uses & ai->caps, caps, sizeof caps);
		o->verdict = FAIL;
		if (cp->uses & ai->caps)
			snprintf(o->text, sizeof o->text, "declares %s but refused a "
			         "problem that needs it: %s", caps, msg);
		else
			snprintf(o->text, sizeof o->text, "refused a problem that "
			         "needs no capability (unsupported): %s", msg);
	} else if (st == USMP_ERR_INFEASIBLE && cp->feasible) {
		o->verdict = defaults ? FAIL : ACCEPTED;
		snprintf(o->text, sizeof o->text, "said infeasible, but a valid plan "
		         "exists: %s", msg);
	} else if (st == USMP_ERR_INFEASIBLE) {
		o->verdict = PASS;
		snprintf(o->text, sizeof o->text, "infeasible, as expected");
	} else if (st == USMP_ERR_STOPPED || st == USMP_ERR_INVALID) {
		/* Stopping at the limit or refusing a knob value is the
		 * algorithm's right, but not with its defaults on a tiny problem. */
		o->verdict = defaults ? FAIL : ACCEPTED;
		snprintf(o->text, sizeof o->text, "%s: %s",
		         st == USMP_ERR_STOPPED
		                 ? "stopped at the time limit without a plan"
		                 : "refused (invalid)",
		         msg);
	} else {
		o->verdict = FAIL;
		snprintf(o->text, sizeof o->text, "returned %s (%d) on a problem "
		         "that %s: %s", usmp_status_name(st), st,
		         cp->feasible ? "a valid plan exists for"
		                      : "is infeasible (USMP_ERR_INFEASIBLE expected)",
		         msg);
	}
	if (o->verdict == FAIL && !cp->feasible && st != USMP_ERR_PLUGIN &&
	    st != USMP_ERR_INFEASIBLE && st != USMP_ERR_INVALID_PLAN && plan &&
	    st != USMP_OK && !strstr(o->text, "expected"))
		snprintf(o->text + strlen(o->text),
		         sizeof o->text - strlen(o->text),
		         " (no plan fits: USMP_ERR_INFEASIBLE expected)");
	if (keep && st == USMP_OK && o->verdict == PASS) {
		*keep = plan;
		plan = NULL;
	}
	usmp_plan_destroy(plan);
}

/* A second run with the same knobs, for an algorithm that declares
 * USMP_CAP_DETERMINISTIC: the same plan, or a failure naming a buffer
 * placed differently. */
static void check_repeat(checker *c, const usmp_algorithm_info *ai,
                         const setting *s, size_t pi, const usmp_plan *first,
                         outcome *o)
{
	usmp_plan *again = NULL;
	usmp_problem *p = c->problems[pi];
	run_call(c, ai, s, pi, 1, o, &again);
	if (!again || o->at_limit) {
		usmp_plan_destroy(again);
		return; /* failed on its own (reported), or cut short by the limit */
	}
	for (uint32_t b = 0; b < usmp_problem_buffer_count(p); b++) {
		uint32_t p1 = 0, p2 = 0;
		uint64_t o1 = 0, o2 = 0;
		usmp_plan_placement(first, b, &p1, &o1);
		usmp_plan_placement(again, b, &p2, &o2);
		if (p1 == p2 && o1 == o2)
			continue;
		o->verdict = FAIL;
		snprintf(o->text, sizeof o->text, "declares USMP_CAP_DETERMINISTIC "
		         "but a second run gave another plan: buffer \"%s\" at "
		         "offset %llu in pool \"%s\", then at offset %llu in pool "
		         "\"%s\"", usmp_problem_buffer_name(p, b),
		         (unsigned long long)o1, usmp_problem_pool_name(p, p1),
		         (unsigned long long)o2, usmp_problem_pool_name(p, p2));
		break;
	}
	if (o->verdict != FAIL)
		snprintf(o->text, sizeof o->text, "the same plan again "
		         "(deterministic)");
	usmp_plan_destroy(again);
}

/* ---- reporting ---------------------------------------------------------- */

static void report_failure(checker *c, const usmp_algorithm_info *ai,
                           const setting *s, size_t pi, const outcome *o,
                           const char *extra)
{
	const check_problem *cp = &check_problems[pi];
	c->failures++;
	printf("FAIL algorithm %s %s, on problem \"%s\" (%s): %s%s\n",
	       cli_shown(ai->name), cli_shown(s->shown), cp->name, cp->about,
	       cli_shown(o->text), extra);
	if (c->save_dir)
		printf("     reproduce: USMP_PLUGIN_PATH='%s' usmp plan "
		       "'%s/%s.json' -a %s%s%s --isolate\n",
		       cli_shown(c->path), cli_shown(c->save_dir), cp->name,
		       cli_shown(ai->name), s->assign ? " -p " : "",
		       s->assign ? cli_shown(s->assign) : "");
}

/* Run every setting of algorithm `a` on every problem it declares the
 * capabilities for. */
static int check_algorithm(checker *c, uint32_t a, const char *long_str)
{
	usmp_algorithm_info ai = {.struct_size = sizeof ai};
	setting *settings = NULL;
	size_t nset = 0;
	unsigned before = c->failures, calls = c->calls, accepted = 0;
	char skipped[512] = "";

	if (usmp_registry_algorithm(c->r, a, &ai))
		return 0;
	if (build_settings(c->r, a, ai.param_count, long_str, &settings, &nset)) {
		free_settings(settings, nset);
		cli_error("out of memory");
		return -1;
	}
	for (size_t pi = 0; pi < check_problem_count; pi++) {
		const check_problem *cp = &check_problems[pi];
		if ((ai.caps & cp->needs) != cp->needs) {
			size_t at = strlen(skipped);
			char caps[128];
			cap_names(cp->needs & ~ai.caps, caps, sizeof caps);
			snprintf(skipped + at, sizeof skipped - at, "%s\"%s\" (needs %s)",
			         at ? ", " : "", cp->name, caps);
		}
	}
	int stop = 0;
	for (size_t si = 0; si < nset && !stop; si++) {
		setting *s = &settings[si];
		for (size_t pi = 0; pi < check_problem_count; pi++) {
			const check_problem *cp = &check_problems[pi];
			outcome o;
			if ((ai.caps & cp->needs) != cp->needs)
				continue;
			usmp_plan *first = NULL;
			int repeat = si == 0 && (ai.caps & USMP_CAP_DETERMINISTIC);
			run_call(c, &ai, s, pi, si == 0, &o, repeat ? &first : NULL);
			if (first && !o.at_limit) {
				if (c->verbose)
					printf("  ok   %s %s, problem \"%s\": %s\n",
					       cli_shown(ai.name), cli_shown(s->shown),
					       cp->name, cli_shown(o.text));
				check_repeat(c, &ai, s, pi, first, &o);
			}
			usmp_plan_destroy(first);
			if (c->verbose)
				printf("  %-4s %s %s, problem \"%s\": %s\n",
				       o.verdict == FAIL ? "FAIL"
				       : o.verdict == ACCEPTED ? "note" : "ok",
				       cli_shown(ai.name), cli_shown(s->shown), cp->name,
				       cli_shown(o.text));
			if (o.verdict == ACCEPTED)
				accepted++;
			if (o.verdict == FAIL) {
				/* A hang with its defaults would hang everywhere. */
				stop = o.killed && si == 0;
				report_failure(c, &ai, s, pi, &o,
				               stop ? " (further checks of this algorithm "
				                      "skipped)"
				               : o.killed ? " (this setting skipped on the "
				                            "other problems)"
				                          : "");
			}
			if (stop || (o.killed || (o.at_limit && si > 0)))
				break; /* one slow call per setting is enough */
		}
	}
	unsigned ran = c->calls - calls, failed = c->failures - before;
	printf("%s algorithm %s: %u call%s (%zu knob setting%s), %s", failed ?
	       "FAIL" : "ok  ", cli_shown(ai.name), ran, ran == 1 ? "" : "s",
	       nset, nset == 1 ? "" : "s",
	       failed ? "" : "all passed");
	if (failed)
		printf("%u failed", failed);
	if (accepted)
		printf("; %u ended without a plan for an edge-case knob value "
		       "(allowed; -v lists them)", accepted);
	if (*skipped)
		printf("; not run on %s", skipped);
	printf("\n");
	free_settings(settings, nset);
	return 0;
}

/* ---- the command -------------------------------------------------------- */

/* Write each built-in problem to DIR/NAME.json. */
static int save_problems(const checker *c)
{
	for (size_t i = 0; i < check_problem_count; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.json", c->save_dir,
		         check_problems[i].name);
		if (usmp_problem_write(c->problems[i], path, USMP_FORMAT_JSON)) {
			cli_error("%s", usmp_problem_error(c->problems[i]));
			return -1;
		}
	}
	return 0;
}

/* The registry holding the plugin at `path` (and the built-ins) only. When
 * the file is not loaded, prints why and sets *code. */
static usmp_registry *load_alone(const char *path, int *code)
{
	/* Only this file: no other plugin directories, no rules. */
	unsetenv("USMP_PLUGIN_PATH");
	unsetenv("USMP_ALGORITHM");
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_DEFAULT_DIRS |
	                                    USMP_REGISTRY_SCAN_ALL,
	                           .plugin_path = path};
	usmp_registry *r = NULL;
	if (usmp_registry_create(&o, &r)) {
		cli_error("cannot create the plugin registry (out of memory)");
		*code = EXIT_OTHER;
		return NULL;
	}
	cli_log_shown(r);
	if (usmp_registry_plugin_count(r) > 0)
		return r;
	uint32_t nd = usmp_registry_diagnostic_count(r);
	int not_plugin = nd == 0;
	for (uint32_t i = 0; i < nd; i++) {
		const char *d = usmp_registry_diagnostic(r, i);
		if (strstr(d, "not a usmp plugin") || strstr(d, "cannot load:"))
			not_plugin = 1;
	}
	if (not_plugin)
		cli_error("%s is not a usmp plugin:", path);
	else
		cli_error("%s: usmp does not load this plugin:", path);
	for (uint32_t i = 0; i < nd; i++)
		fprintf(stderr, "  %s\n", cli_shown(usmp_registry_diagnostic(r, i)));
	*code = not_plugin ? EXIT_USAGE : EXIT_PLUGIN;
	usmp_registry_destroy(r);
	return NULL;
}

static int parse_args(checker *c, int argc, char **argv)
{
	cli_parser ps;
	int opt;
	cli_parser_init(&ps, &cli_check_plugin_command);
	while ((opt = cli_next_option(&ps, argc, argv)) != -1) {
		char *end = NULL;
		switch (opt) {
		case 'h':
			cli_print_help(&cli_check_plugin_command);
			return -2;
		case 'v':
			c->verbose = 1;
			break;
		case OPT_SAVE:
			c->save_dir = optarg;
			break;
		case OPT_TIME_LIMIT:
			errno = 0;
			c->time_limit = strtod(optarg, &end);
			if (errno || *end || !(c->time_limit > 0) ||
			    c->time_limit > 86400) {
				char hint[200];
				cli_error("--time-limit %s: expected seconds, more than 0 "
				          "and at most 86400%s", optarg,
				          cli_seconds_hint(optarg, hint, sizeof hint));
				return -1;
			}
			break;
		default:
			return -1;
		}
	}
	if (argc - optind != 1) {
		cli_error("usage: usmp check-plugin FILE.so [-v] [--time-limit "
		          "SECONDS] [--save DIR]");
		return -1;
	}
	c->path = argv[optind];
	return 0;
}

/* Refuse a path the registry could not load as exactly that one file. */
static int check_path(const char *path)
{
	struct stat st;
	if (strchr(path, ':')) {
		cli_error("%s: a path containing ':' cannot be loaded alone (':' "
		          "separates plugin path entries); rename or link it",
		          path);
		return -1;
	}
	if (stat(path, &st)) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		cli_error("%s: not a regular file (expected a plugin's .so)", path);
		return -1;
	}
	return 0;
}

static int cmd_check_plugin(int argc, char **argv)
{
	checker c = {.time_limit = 5.0};
	char *long_str = NULL;
	int code = EXIT_OTHER;

	int rc = parse_args(&c, argc, argv);
	if (rc)
		return rc == -2 ? EXIT_DONE : EXIT_USAGE;
	if (check_path(c.path))
		return EXIT_USAGE;
	c.problems = calloc(check_problem_count, sizeof *c.problems);
	long_str = malloc(LONG_STR_LEN + 1);
	if (!c.problems || !long_str) {
		cli_error("out of memory");
		goto fail;
	}
	memset(long_str, 'x', LONG_STR_LEN);
	long_str[LONG_STR_LEN] = '\0';
	for (size_t i = 0; i < check_problem_count; i++) {
		c.problems[i] = check_problem_build(&check_problems[i]);
		if (!c.problems[i]) {
			cli_error("cannot build the built-in problem \"%s\"",
			          check_problems[i].name);
			code = EXIT_OTHER;
			goto fail;
		}
	}
	if (c.save_dir && save_problems(&c)) {
		code = EXIT_USAGE;
		goto fail;
	}
	c.r = load_alone(c.path, &code);
	if (!c.r)
		goto fail;

	usmp_plugin_info pi = {.struct_size = sizeof pi};
	usmp_registry_plugin(c.r, 0, &pi);
	printf("%s: plugin \"%s\" %s (%s), ABI %u.%u, %u algorithm%s\n",
	       cli_shown(c.path), cli_shown(pi.name), cli_shown(pi.version),
	       cli_shown(pi.license), pi.abi_major, pi.abi_minor,
	       pi.algorithm_count, pi.algorithm_count == 1 ? "" : "s");
	/* A call into libusmp resolves in this command, which links it, but
	 * not in a host that dlopen()s libusmp locally (RTLD_LOCAL, Python's
	 * ctypes): the plugin would not load there. */
	char imports[512];
	unsigned ni = cli_plugin_imports(c.path, imports, sizeof imports);
	if (ni) {
		c.failures++;
		printf("FAIL imports %s from libusmp: a plugin calls only what "
		       "its usmp_host table gives it and links no libusmp; it "
		       "loads here, where usmp has libusmp, but not in a host "
		       "that dlopen()s libusmp (RTLD_LOCAL) or in Python "
		       "(\"undefined symbol: %.*s\")\n",
		       cli_shown(imports), (int)strcspn(imports, ","), imports);
	}
	/* Algorithms the registry skipped while loading the file. */
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(c.r); i++) {
		c.failures++;
		printf("FAIL not loaded: %s\n",
		       cli_shown(usmp_registry_diagnostic(c.r, i)));
	}
	for (uint32_t a = 0; a < usmp_registry_algorithm_count(c.r); a++) {
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		if (usmp_registry_algorithm(c.r, a, &ai) || ai.plugin != 0)
			continue; /* a built-in */
		if (check_algorithm(&c, a, long_str))
			goto fail;
	}
	if (c.failures)
		printf("%s: %u problem%s found in %u call%s%s\n", cli_shown(c.path),
		       c.failures, c.failures == 1 ? "" : "s", c.calls,
		       c.calls == 1 ? "" : "s",
		       c.save_dir ? "" : " (--save DIR writes the problems, to "
		                         "reproduce)");
	else
		printf("%s: all %u calls passed\n", cli_shown(c.path), c.calls);
	code = c.failures ? EXIT_PLUGIN : EXIT_DONE;
fail:
	if (c.problems)
		for (size_t i = 0; i < check_problem_count; i++)
			usmp_problem_destroy(c.problems[i]);
	free(c.problems);
	free(long_str);
	usmp_registry_destroy(c.r);
	return code;
}

const cli_command cli_check_plugin_command = {
	"check-plugin", "FILE.so",
	"run a plugin's algorithms on small problems and report what fails",
	check_plugin_options, cmd_check_plugin,
};
