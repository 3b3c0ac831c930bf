/* plan_cmd.c — `usmp plan`: read a problem, plan it, print a summary to
 * stderr, write the plan (stdout or -o) and optionally an SVG picture. */
#include "cli.h"
/* USMP__BUDGET_WRITE_PER_BUFFER and the load factor: the time kept back
 * for writing the plan out of --time-limit, which covers the whole command. */
#include "../budget.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>


/* "exact" or "exact:..." (the -a spec names exact). */
static int names_exact(const char *spec)
{
	return spec && !strncmp(spec, "exact", 5) &&
	       (spec[5] == '\0' || spec[5] == ':');
}

/* -a exact with --capacity asks MiniMalloc's question, "does it fit?":
 * unless the spec or a -p sets minimize, exact stops at the first plan that
 * fits (docs/cli.md, "plan"). */
static void capacity_means_decision(usmp_plan_options *o, const char **params,
                                    uint64_t capacity)
{
	if (capacity == USMP_UNBOUNDED || !names_exact(o->algorithm) ||
	    strstr(o->algorithm, "minimize="))
		return;
	for (uint32_t i = 0; i < o->param_count; i++)
		if (!strncmp(params[i], "minimize=", 9))
			return;
	params[o->param_count++] = "minimize=false";
}

/* The pools of each group, in pool order: group g's are
 * order[start[g]..start[g + 1]) (a counting sort, so that a summary of a
 * million parts does not scan every pool per part). NULLs when out of
 * memory; the caller then scans. */
static void pools_by_group(usmp_problem *p, uint32_t **order, uint32_t **start,
                           uint32_t *groups)
{
	uint32_t np = usmp_problem_pool_count(p);
	uint32_t ng = usmp_problem_prepare_group_count(p);
	uint32_t *o = malloc((np ? np : 1) * sizeof *o);
	uint32_t *st = calloc((size_t)ng + 2, sizeof *st);
	*order = NULL;
	*start = NULL;
	*groups = 0;
	if (!o || !st)
		goto fail;
	for (uint32_t j = 0; j < np; j++) {
		uint32_t g = usmp_problem_prepare_pool_group(p, j);
		if (g >= ng)
			goto fail;
		st[g + 2]++;
	}
	for (uint32_t g = 0; g < ng; g++)
		st[g + 2] += st[g + 1];
	for (uint32_t j = 0; j < np; j++)
		o[st[usmp_problem_prepare_pool_group(p, j) + 1]++] = j;
	*order = o;
	*start = st;
	*groups = ng;
	return;
fail:
	free(o);
	free(st);
}

/* A pool's line of the summary; a CSV problem's pool (its limit the
 * --capacity) also says how much of the capacity the plan leaves free. */
static void pool_line(const usmp_problem *p, const usmp_plan *plan,
                      uint32_t pool, uint64_t capacity)
{
	unsigned long long size = usmp_plan_pool_size(plan, pool);
	fprintf(stderr, "    pool %-12s %12llu byte%s",
	        cli_name(usmp_problem_pool_name(p, pool)), size, cli_s(size));
	if (capacity != USMP_UNBOUNDED && size <= capacity)
		fprintf(stderr, " of the capacity %llu (%llu free)",
		        (unsigned long long)capacity,
		        (unsigned long long)capacity - size);
	fputc('\n', stderr);
}

/* Overlap rules the part's algorithm planned as plain conflicts: say so,
 * and which installed algorithms use them. */
static void print_rules_as_conflicts(const usmp_registry *r,
                                     const usmp_part_info *pi)
{
	if (!pi->rules_as_conflicts)
		return;
	fprintf(stderr, "    overlap rules: %llu planned as plain conflicts "
	        "(%s lacks the overlap-rules capability; algorithms that have "
	        "it:", (unsigned long long)pi->rules_as_conflicts,
	        cli_shown(pi->algorithm));
	const char *sep = " ";
	for (uint32_t i = 0; i < usmp_registry_algorithm_count(r); i++) {
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		if (usmp_registry_algorithm(r, i, &ai) ||
		    !(ai.caps & USMP_CAP_OVERLAP_RULES))
			continue;
		fprintf(stderr, "%s%s", sep, cli_shown(ai.name));
		sep = ", ";
	}
	fputs(")\n", stderr);
}

/* A USMP_ALGORITHM target rule that matches some of a shared part's
 * targets but not all decides nothing for it (docs/hosts.md, "Shared
 * pools"): a rule written for the NPU would leave the part to a later rule
 * or the default unsaid. Said under the "chosen by" line of such a part. */
static void print_partial_rules(const usmp_part_info *pi)
{
	const char *env = getenv("USMP_ALGORITHM");
	if (!env || !strchr(pi->target, ',') || pi->source < USMP_SOURCE_ENV)
		return;
	char *rules = strdup(env), *targets = strdup(pi->target);
	if (!rules || !targets)
		goto out;
	char *save = NULL;
	for (char *rule = strtok_r(rules, ";", &save); rule;
	     rule = strtok_r(NULL, ";", &save)) {
		while (*rule == ' ')
			rule++;
		char *eq = strchr(rule, '=');
		if (!eq || *rule == '@' || !strcmp(rule, pi->rule))
			continue;
		char *text = strdup(rule);
		if (!text)
			goto out;
		rule[eq - rule] = '\0';
		const char *hit = NULL, *miss = NULL;
		size_t len = strlen(pi->target);
		memcpy(targets, pi->target, len + 1);
		char *tsave = NULL;
		for (char *t = strtok_r(targets, ",", &tsave); t;
		     t = strtok_r(NULL, ",", &tsave)) {
			if (!fnmatch(rule, t, 0))
				hit = hit ? hit : t;
			else
				miss = miss ? miss : t;
		}
		if (hit && miss) {
			fprintf(stderr, "    USMP_ALGORITHM rule \"%s\" matches target "
			        "%s of this part but not %s: a target rule decides "
			        "a part only when it matches all its targets; a pool "
			        "rule (@POOL=...) decides every part with that pool\n",
			        cli_shown(text), cli_shown(hit), cli_shown(miss));
		}
		free(text);
	}
out:
	free(rules);
	free(targets);
}

/* "auto", or "auto/MEMBER" (the part's algorithm was auto). */
static int names_auto(const char *algorithm)
{
	return !strncmp(algorithm, "auto", 4) &&
	       (algorithm[4] == '\0' || algorithm[4] == '/');
}

/* Why a part ran over its limit, as auto saw it (usmp_overrun_cause); an
 * algorithm other than auto made one plan, its first. The limit named is
 * the user's (`time_limit`, as the "stopped at" line names it), not what
 * reading the problem left of it for the part (`limit`); without one, the
 * part's default. */
static void print_overrun(const usmp_part_info *pi, double limit,
                          double time_limit)
{
	const char *who = cli_shown(pi->overrun_by);
	if (time_limit > 0 && !isinf(time_limit))
		fprintf(stderr, "    over the time limit of %g s: ", time_limit);
	else
		fprintf(stderr, "    over the time limit of %g s (the default): ",
		        limit);
	switch (pi->overrun_cause) {
	case USMP_OVERRUN_STOPPED:
		fprintf(stderr, "volunteer %s did not return by then and was "
		        "stopped\n", who);
		break;
	case USMP_OVERRUN_LATE:
		fprintf(stderr, "%s, a member of auto, returned after it (most "
		        "of the time past it)\n", who);
		break;
	case USMP_OVERRUN_UNKNOWN:
		fputs("cause unknown (neither the first plan nor one member "
		      "took most of the time past it)\n", stderr);
		break;
	default:
		if (pi->overrun_cause == USMP_OVERRUN_NONE &&
		    names_auto(pi->algorithm))
			fputs("cause unknown (auto returned on time; the time "
			      "past it came after)\n", stderr);
		else
			fputs("a first plan is always finished, however long "
			      "it takes\n", stderr);
	}
}

static void print_summary(const char *path, usmp_problem *p, usmp_plan *plan,
                          const usmp_registry *r, double time_limit,
                          uint64_t capacity)
{
	uint32_t parts = usmp_plan_part_count(plan);
	uint32_t *order, *start, groups;
	pools_by_group(p, &order, &start, &groups);
	fprintf(stderr, "usmp: %s: %u buffer%s, %u pool%s, %u part%s",
	        cli_shown(path), usmp_problem_buffer_count(p),
	        cli_s(usmp_problem_buffer_count(p)), usmp_problem_pool_count(p),
	        usmp_problem_pool_count(p) == 1 ? "" : "s", parts,
	        parts == 1 ? "" : "s");
	if (isinf(time_limit))
		fputs(", no time limit", stderr);
	else if (time_limit > 0)
		fprintf(stderr, ", time limit %g s", time_limit);
	fputc('\n', stderr);
	for (uint32_t i = 0; i < parts; i++) {
		usmp_part_info pi = {.struct_size = sizeof pi};
		if (usmp_plan_part(plan, i, &pi))
			continue;
		fprintf(stderr, "  part %u: target %s, algorithm %s%s%s%s, %u buffer%s, "
		        "%.1f ms\n", i + 1, *pi.target ? cli_name(pi.target) : "none",
		        cli_shown(pi.algorithm), *pi.params ? " (" : "",
		        cli_shown(pi.params), *pi.params ? ")" : "", pi.buffer_count,
		        cli_s(pi.buffer_count), pi.time_ms);
		fprintf(stderr, "    chosen by %s rule \"%s\"\n",
		        cli_source_name(pi.source), cli_shown(pi.rule));
		print_partial_rules(&pi);
		double limit = 0;
		int stopped = 0;
		usmp_plan_part_limit(plan, i, &limit, &stopped);
		/* A stop costs a little past the limit (the last probe, the
		 * check); only a first plan runs much longer, or a volunteer
		 * of auto that had to be killed (the member grace past it). */
		if (limit > 0 && pi.time_ms > limit * 1e3 * (stopped ? 1.1 : 1.0))
			print_overrun(&pi, limit, time_limit);
		/* The limit the user set is the command's; the part worked to
		 * what reading left of it (and writing will need): name theirs. */
		if (stopped && !pi.optimal)
			fprintf(stderr, "    stopped at the time limit of %g s%s: best "
			        "plan so far, proven bound %llu\n",
			        time_limit > 0 && !isinf(time_limit) ? time_limit
			                                             : limit,
			        time_limit > 0 ? "" : " (the default)",
			        (unsigned long long)pi.proven_bound);
		if (capacity != USMP_UNBOUNDED && names_exact(pi.algorithm) &&
		    strstr(pi.params, "minimize=false"))
			fprintf(stderr, "    fits in the capacity of %llu byte%s "
			        "(exact stops at the first plan that fits; -p "
			        "minimize=true minimises)\n",
			        (unsigned long long)capacity, cli_s(capacity));
		uint32_t group_pools = 0;
		if (order && pi.group < groups) {
			group_pools = start[pi.group + 1] - start[pi.group];
			for (uint32_t k = start[pi.group]; k < start[pi.group + 1]; k++)
				pool_line(p, plan, order[k], capacity);
		} else {
			for (uint32_t j = 0; j < usmp_problem_pool_count(p); j++) {
				if (usmp_problem_prepare_pool_group(p, j) != pi.group)
					continue;
				group_pools++;
				pool_line(p, plan, j, capacity);
			}
		}
		double ratio = pi.lower_bound ? (double)pi.size / (double)pi.lower_bound
		                              : 1.0;
		fprintf(stderr, "    total %llu byte%s, lower bound %llu, ratio %.4f%s\n",
		        (unsigned long long)pi.size, cli_s(pi.size),
		        (unsigned long long)pi.lower_bound, ratio,
		        pi.optimal ? " (optimal)"
		                   : pi.proven_bound > pi.lower_bound ? " (bound improved)" : "");
		if (!pi.optimal && pi.proven_bound > pi.lower_bound)
			fprintf(stderr, "    proven bound %llu (gap %.4f%%)\n",
			        (unsigned long long)pi.proven_bound,
			        100.0 * (double)(pi.size - pi.proven_bound) /
			                (double)pi.proven_bound);
		/* "(optimal)" beside a ratio above 1: say what was proven
		 * (docs/design.md, "What optimal claims"). */
		if (pi.optimal && pi.size > pi.lower_bound && group_pools > 1)
			fprintf(stderr, "    optimal: no valid plan that spills no "
			        "more is smaller than %llu; the lower bound holds "
			        "for any spill\n", (unsigned long long)pi.size);
		else if (pi.optimal && pi.size > pi.lower_bound)
			fprintf(stderr, "    optimal: no valid plan is smaller than "
			        "%llu; none reaches the lower bound\n",
			        (unsigned long long)pi.size);
		cli_print_spill(stderr, "    ", p, plan, &pi);
		print_rules_as_conflicts(r, &pi);
	}
	free(order);
	free(start);
}

enum {
	OPT_TIME_LIMIT = CLI_LONG_ONLY, OPT_CAPACITY, OPT_FORMAT, OPT_SVG,
	OPT_ISOLATE, OPT_NO_ISOLATE, OPT_NO_TIME_LIMIT
};

static const cli_option plan_options[] = {
	{'a', "algorithm", "ALGO", 0,
	 "the algorithm of every part (e.g. first_fit:order=area)"},
	{'p', "param", "KEY=VALUE", CLI_REPEAT,
	 "a knob of the -a algorithm, once each (usmp list -v)"},
	{'t', "target", "TARGET", 0, "the target of parts whose pools name none"},
	{OPT_TIME_LIMIT, "time-limit", "SECONDS", 0,
	 "wall-clock budget, > 0 and <= 1e9 (default: auto 1 s, others 10 s)"},
	{OPT_NO_TIME_LIMIT, "no-time-limit", NULL, 0,
	 "no budget: run until the algorithm returns"},
	{OPT_CAPACITY, "capacity", "BYTES", 0,
	 "size limit of a CSV problem's pool (1048576, 1M)"},
	{'o', "output", "PLAN", 0, "write the plan to PLAN, not to stdout"},
	{OPT_FORMAT, "format", "json|csv", 0,
	 "plan format (default: by the PLAN suffix, else json)"},
	{OPT_SVG, "svg", "FILE", 0, "also draw the plan as an SVG picture"},
	{OPT_ISOLATE, "isolate", NULL, 0, "run plugin calls in a child process"},
	{OPT_NO_ISOLATE, "no-isolate", NULL, 0, "run plugin calls in this process"},
	{'q', "quiet", NULL, 0, "print no summary"},
	{'h', "help", NULL, 0, "print this help and exit"},
	{0, NULL, NULL, 0, NULL},
};

/* USMP_LOG is read by the library, which takes any unknown value for the
 * default (silent); plan refuses it instead (the other commands warn). */
static int log_level_ok(void)
{
	const char *s = cli_log_unknown();
	if (!s)
		return 1;
	cli_error("USMP_LOG=%s: expected " CLI_LOG_LEVELS " (unset or empty: no "
	          "log messages)", s);
	return 0;
}

/* Without USMP_LOG the library's lines are silent, but for its warning
 * that a USMP_ALGORITHM rule matches no pool or target of the problem
 * (a misspelt name would leave its parts to the default unsaid), and
 * auto's that a plugin's volunteer failed, crashed or returned an invalid
 * plan (auto plans on without it: the plugin's fault would go unsaid), and
 * the problem's that buffers without a live range conflict with nothing
 * (a file meaning "alive throughout" would have their bytes shared). */
static void rule_warnings_only(void *ctx, int level, const char *who,
                               const char *message)
{
	(void)ctx;
	if (level <= USMP_LOG_WARN &&
	    (!strcmp(who, "USMP_ALGORITHM") || !strcmp(who, "problem") ||
	     (!strcmp(who, "auto") && !strncmp(message, "volunteer ", 10))))
		fprintf(stderr, "usmp: %s: %s\n", who, cli_shown(message));
}

/* Seconds kept back from --time-limit for writing a plan of n buffers and
 * freeing everything (budget.h), scaled by how slowly reading took its CPU
 * time (`wall` seconds since the process started, `cpu` CPU seconds). */
static double write_reserve(uint32_t n, double wall, double cpu)
{
	return USMP__BUDGET_WRITE_PER_BUFFER * (double)n *
	       usmp__budget_load(wall, cpu);
}

/* Under USMP_LOG=debug, when the command's phases ended, in seconds since
 * the process started, and its CPU seconds: what a --time-limit covers. */
static void log_timing(double t0, const double at[3], const double cpu[3])
{
	const char *s = getenv("USMP_LOG");
	if (!s || strcmp(s, "debug"))
		return;
	fprintf(stderr, "usmp: timing: read %.3f s, planned %.3f s, written "
	        "%.3f s, done %.3f s after the process started; CPU %.3f s "
	        "(read %.3f, planned %.3f, written %.3f)\n",
	        at[0] - t0, at[1] - t0, at[2] - t0, cli_now() - t0,
	        cli_cpu_seconds(), cpu[0], cpu[1], cpu[2]);
}

/* Take "-p KEY=VALUE" into params[]: refuses a knob given twice. */
static int add_param(const char **params, uint32_t *count, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv) {
		cli_error("-p %s: expected KEY=VALUE", kv);
		return -1;
	}
	size_t key = (size_t)(eq - kv) + 1; /* with the '=' */
	for (uint32_t i = 0; i < *count; i++)
		if (!strncmp(params[i], kv, key)) {
			cli_error("-p %s: knob \"%.*s\" given twice (also -p %s)", kv,
			          (int)key - 1, kv, params[i]);
			return -1;
		}
	params[(*count)++] = kv;
	return 0;
}

/* What the command line of `usmp plan` asks for. */
typedef struct plan_args {
	usmp_plan_options opts;  /* params: the -p knobs */
	const char *output, *svg;
	uint64_t capacity;
	int format, quiet;
} plan_args;

/* --time-limit SECONDS (arg) or --no-time-limit (arg NULL) into o, refusing
 * both together and values out of (0, 1e9]. */
static int take_time_limit(usmp_plan_options *o, const char *arg)
{
	if (!arg) {
		if (o->time_limit > 0 && !isinf(o->time_limit)) {
			cli_error("--time-limit and --no-time-limit: give one");
			return -1;
		}
		o->time_limit = INFINITY;
		return 0;
	}
	char *end;
	if (isinf(o->time_limit)) {
		cli_error("--time-limit and --no-time-limit: give one");
		return -1;
	}
	o->time_limit = strtod(arg, &end);
	if (end == arg || *end || !(o->time_limit > 0) || o->time_limit > 1e9) {
		char hint[200];
		cli_error("--time-limit %s: expected seconds, more than 0 and at "
		          "most 1e9 (--no-time-limit: none)%s", arg,
		          cli_seconds_hint(arg, hint, sizeof hint));
		return -1;
	}
	return 0;
}

/* Parse the options of `usmp plan` into a (the -p knobs into params):
 * 0 to go on with argv[optind] as the problem, else -1 with *code the exit
 * status (EXIT_DONE after --help). */
static int plan_parse(int argc, char **argv, plan_args *a,
                      const char **params, int *code)
{
	usmp_plan_options *o = &a->opts;
	cli_parser ps;
	int c;
	*code = EXIT_USAGE;
	cli_parser_init(&ps, &cli_plan_command);
	while ((c = cli_next_option(&ps, argc, argv)) != -1) {
		switch (c) {
		case 'a': o->algorithm = optarg; break;
		case 'p':
			if (add_param(params, &o->param_count, optarg))
				return -1;
			break;
		case 't': o->target = optarg; break;
		case 'o': a->output = optarg; break;
		case OPT_SVG: a->svg = optarg; break;
		case OPT_ISOLATE:
			o->flags = (o->flags & ~USMP_PLAN_NO_ISOLATE) | USMP_PLAN_ISOLATE;
			break;
		case OPT_NO_ISOLATE:
			o->flags = (o->flags & ~USMP_PLAN_ISOLATE) | USMP_PLAN_NO_ISOLATE;
			break;
		case 'q': a->quiet = 1; break;
		case OPT_TIME_LIMIT:
		case OPT_NO_TIME_LIMIT:
			if (take_time_limit(o, c == OPT_TIME_LIMIT ? optarg : NULL))
				return -1;
			break;
		case OPT_CAPACITY:
			if (cli_parse_bytes(optarg, &a->capacity) || a->capacity == 0) {
				cli_error("--capacity %s: expected a positive byte count "
				          "(e.g. 1048576 or 1M)", optarg);
				return -1;
			}
			break;
		case OPT_FORMAT:
			a->format = cli_parse_format(optarg);
			if (a->format < 0) {
				cli_error("--format %s: expected json or csv", optarg);
				return -1;
			}
			break;
		case 'h':
			cli_print_help(&cli_plan_command);
			*code = EXIT_DONE;
			return -1;
		default:
			return -1;
		}
	}
	if (optind != argc - 1) {
		cli_error("plan: expected one PROBLEM file (try `usmp plan --help`)");
		return -1;
	}
	if (o->param_count && !o->algorithm) {
		cli_error("-p needs -a: knobs belong to an algorithm");
		return -1;
	}
	if (!log_level_ok())
		return -1;
	capacity_means_decision(o, params, a->capacity);
	o->params = params;
	return 0;
}

/* The problem being planned, and by which process, while usmp_plan_compute
 * runs: a plugin algorithm called in process (--no-isolate, or a shipped
 * one) that calls exit() would otherwise end usmp with the plugin's status
 * (often 0) and no plan, no message. An isolated call's child, a fork that
 * inherits both, is no planner: its exit is the host's to report. */
static const char *planning_path;
static pid_t planning_pid;

static void exit_while_planning(void)
{
	if (!planning_path || getpid() != planning_pid)
		return;
	fprintf(stderr, "usmp: %s: a plugin algorithm called in this process "
	        "ended it (exit) instead of returning; no plan (plan with "
	        "--isolate to have it named)\n", planning_path);
	fflush(stderr);
	_exit(EXIT_PLUGIN);
}

/* A CSV plan holds one pool: a problem of several is refused before it is
 * planned, with the message usmp_plan_write gives (io_csv.c) after. What
 * else the format cannot hold (a buffer without a live range, an id CSV
 * cannot write) the writer still finds, after planning. 0 fine, -1 said. */
static int refuse_csv_early(const plan_args *a, usmp_problem *p)
{
	const char *out = a->output ? a->output : "-";
	size_t n = strlen(out);
	int csv = a->format == USMP_FORMAT_CSV ||
	          (a->format == USMP_FORMAT_AUTO && n >= 4 &&
	           strcasecmp(out + n - 4, ".csv") == 0);
	if (!csv || usmp_problem_pool_count(p) <= 1)
		return 0;
	cli_error("writing %s: cannot write the plan as CSV: CSV holds one pool",
	          cli_shown(strcmp(out, "-") ? out : "<stdout>"));
	return -1;
}

static int cmd_plan(int argc, char **argv)
{
	plan_args a = {.opts = {.struct_size = sizeof a.opts},
	               .capacity = USMP_UNBOUNDED, .format = USMP_FORMAT_AUTO};
	usmp_plan_options *o = &a.opts;
	const char **params = calloc((size_t)argc + 1, sizeof *params);
	int code = EXIT_USAGE;
	usmp_problem *p = NULL;
	usmp_registry *r = NULL;
	usmp_plan *plan = NULL;
	/* --time-limit covers the whole command, from the process's start */
	double t_start = cli_process_start();
	double at[3] = {0, 0, 0}, cpu[3] = {0, 0, 0}; /* read, planned, written */
	if (!params)
		return EXIT_OTHER;
	if (plan_parse(argc, argv, &a, params, &code))
		goto out;
	const char *path = argv[optind];
	if (cli_check_outputs(path, a.output, a.svg))
		goto out;
	p = cli_load_problem(path, a.capacity, &code);
	if (!p || refuse_csv_early(&a, p))
		goto out;
	/* Plugin code runs from here on (constructors, algorithms, forks of
	 * them): whatever it prints goes to stderr, not into the plan. */
	cli_stdout_aside();
	/* The plugin scanner follows isolation: --isolate reads installed
	 * plugins in it too, --no-isolate loads everything in process. */
	r = cli_registry(!a.quiet,
	                 (o->flags & USMP_PLAN_ISOLATE ? USMP_REGISTRY_SCAN_ALL : 0) |
	                 (o->flags & USMP_PLAN_NO_ISOLATE ? USMP_REGISTRY_NO_SCAN : 0));
	if (!r) {
		code = EXIT_OTHER;
		goto out;
	}
	const char *log_env = getenv("USMP_LOG");
	if (!a.quiet && (!log_env || !*log_env))
		usmp_registry_set_log(r, rule_warnings_only, NULL, USMP_LOG_WARN);
	at[0] = cli_now();
	cpu[0] = cli_cpu_seconds();
	double limit = o->time_limit;
	if (o->time_limit > 0 && !isinf(o->time_limit)) {
		/* The limit is for the whole command: reading is done, writing
		 * is still to come. */
		double left = o->time_limit - (cli_now() - t_start) -
		              write_reserve(usmp_problem_buffer_count(p),
		                            at[0] - t_start, cpu[0]);
		o->time_limit = left > 1e-3 ? left : 1e-3;
	}
	static int guarded;
	if (!guarded)
		guarded = !atexit(exit_while_planning);
	planning_pid = getpid();
	planning_path = path;
	int st = usmp_plan_compute(r, p, o, &plan);
	planning_path = NULL;
	cli_stdout_back();
	at[1] = cli_now();
	cpu[1] = cli_cpu_seconds();
	if (st) {
		cli_error("%s: %s", path, plan ? usmp_plan_error(plan)
		                               : "out of memory");
		if (a.quiet && st == USMP_ERR_PLUGIN)
			cli_print_diagnostics(r);
		code = cli_exit_for(st);
		goto out;
	}
	if (!a.quiet)
		print_summary(path, p, plan, r, limit, a.capacity);
	if (a.format == USMP_FORMAT_AUTO && !a.output)
		a.format = USMP_FORMAT_JSON;
	st = usmp_plan_write(plan, p, a.output ? a.output : "-", a.format);
	if (st == USMP_ERR_INVALID) {
		/* The plan is valid but its format cannot say it: name the
		 * problem's file (the message names the output's). */
		cli_error("%s: %s", cli_shown(path), usmp_plan_error(plan));
		code = cli_exit_for(st);
		goto out;
	} else if (st) {
		cli_error("%s", usmp_plan_error(plan));
		code = cli_exit_for(st);
		goto out;
	}
	if (a.svg && (st = usmp_plan_write_svg(plan, p, a.svg))) {
		cli_error("%s", usmp_plan_error(plan));
		code = cli_exit_for(st);
		goto out;
	}
	at[2] = cli_now();
	cpu[2] = cli_cpu_seconds();
	if (!a.quiet && a.output)
		fprintf(stderr, "usmp: plan written to %s%s%s\n", cli_shown(a.output),
		        a.svg ? ", picture to " : "", a.svg ? cli_shown(a.svg) : "");
	else if (!a.quiet && a.svg)
		fprintf(stderr, "usmp: picture written to %s\n", cli_shown(a.svg));
	code = EXIT_DONE;
out:
	usmp_plan_destroy(plan);
	if (r) {
		cli_stdout_aside(); /* plugins' destructors */
		usmp_registry_destroy(r);
	}
	cli_stdout_back();
	usmp_problem_destroy(p);
	free(params);
	if (code == EXIT_DONE && at[2] > 0)
		log_timing(t_start, at, cpu);
	return code;
}

const cli_command cli_plan_command = {
	"plan", "PROBLEM",
	"plan a problem: the summary to stderr, the plan to stdout or -o",
	plan_options, cmd_plan,
};
