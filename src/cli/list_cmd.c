/* list_cmd.c — `usmp list [-v]` and `usmp select TARGET`: what the registry
 * holds, and which algorithm a target gets and why. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(uint32_t t)
{
	static const char *names[] = {"?", "bool", "i32", "u32", "i64",
	                              "u64", "f64", "str"};
	return t < sizeof names / sizeof *names ? names[t] : "?";
}

static void print_caps(uint32_t caps)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{USMP_CAP_MULTI_POOL, "multi-pool"},
		{USMP_CAP_OVERLAP_RULES, "overlap-rules"},
		{USMP_CAP_FIXED_OFFSETS, "fixed-offsets"},
		{USMP_CAP_EXPLICIT_CONFLICTS, "conflict-edges"},
		{USMP_CAP_EXACT, "exact"},
		{USMP_CAP_DETERMINISTIC, "deterministic"},
		{USMP_CAP_ANYTIME, "anytime"},
		{USMP_CAP_PORTFOLIO, "volunteers for auto"},
	};
	const char *sep = "";
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (caps & names[i].bit) {
			printf("%s%s", sep, names[i].name);
			sep = ", ";
		}
	if (!*sep)
		printf("none");
}

/* `usmp list -v`: auto's members, what each is for and where it is
 * expected to help, then the plugins' volunteers with their files. */
static void print_members(const usmp_registry *r)
{
	static const char *roles[] = {"?", "first plan", "heuristic", "search",
	                              "volunteer"};
	printf("auto's members (docs/algorithms.md): a first plan from the first "
	       "that fits;\nthe heuristics while their cost (x first_fit's "
	       "time) fits the time left, best\ngain per cost for the shape "
	       "first; the volunteers (listed last); then the\nsearch; all "
	       "after the first plan only while no plan is at the lower bound\n");
	uint32_t n = usmp_registry_member_count(r);
	for (uint32_t i = 0; i < n; i++) {
		usmp_member_info m = {.struct_size = sizeof m};
		if (usmp_registry_member(r, i, &m))
			continue;
		char name[160], cost[32], shapes[40] = "";
		snprintf(name, sizeof name, "%s%s%s", cli_shown(m.name),
		         *m.knobs ? ":" : "", cli_shown(m.knobs));
		if (m.cost > 0)
			snprintf(cost, sizeof cost, "cost %g", m.cost);
		else
			snprintf(cost, sizeof cost, "%s",
			         m.role == USMP_MEMBER_SEARCH ? "time left" : "cost unknown");
		static const struct {
			uint32_t bit;
			const char *name;
		} sh[] = {{USMP_SHAPE_FEW, "few"}, {USMP_SHAPE_MANY, "many"},
		          {USMP_SHAPE_WIDE, "wide"}};
		for (size_t k = 0; k < sizeof sh / sizeof *sh; k++)
			if (m.shapes & sh[k].bit)
				snprintf(shapes + strlen(shapes),
				         sizeof shapes - strlen(shapes), "%s%s",
				         *shapes ? ", " : "", sh[k].name);
		printf("  %-10s  %-28s  %-12s  helps: %s", roles[m.role < 5 ? m.role : 0],
		       name, cost, *shapes ? shapes : "none (runs when it fits)");
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		usmp_plugin_info pi = {.struct_size = sizeof pi};
		if (m.algorithm == UINT32_MAX)
			printf("  (not installed)");
		else if (m.role == USMP_MEMBER_VOLUNTEER &&
		         !usmp_registry_algorithm(r, m.algorithm, &ai) &&
		         !usmp_registry_plugin(r, ai.plugin, &pi))
			printf("  from %s", cli_shown(pi.path));
		putchar('\n');
	}
	printf("  (few: at most 100 buffers alive at once; many: more, sizes "
	       "within four decades;\n  wide: more, over four decades)\n\n");
}

static const cli_option list_options[] = {
	{'v', "verbose", NULL, 0,
	 "add capabilities, knobs, plugin files and skipped plugins"},
	{'h', "help", NULL, 0, "print this help and exit"},
	{0, NULL, NULL, 0, NULL},
};

/* Plain `usmp list`: shadowed algorithms as warnings, and how many plugins
 * and algorithms were skipped, to stderr (stdout keeps the list). */
static void print_skipped_summary(const usmp_registry *r)
{
	uint32_t plugins = 0, algos = 0, other = 0;
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(r); i++) {
		switch (usmp_registry_diagnostic_kind(r, i)) {
		case USMP_DIAG_SHADOWED:
			fprintf(stderr, "usmp: warning: %s\n",
			        cli_shown(usmp_registry_diagnostic(r, i)));
			break;
		case USMP_DIAG_PLUGIN_SKIPPED: plugins++; break;
		case USMP_DIAG_ALGORITHM_SKIPPED: algos++; break;
		default: other++; break;
		}
	}
	if (!plugins && !algos && !other)
		return;
	fprintf(stderr, "usmp: note: ");
	const char *sep = "";
	if (plugins) {
		fprintf(stderr, "%u plugin%s", plugins, plugins == 1 ? "" : "s");
		sep = ", ";
	}
	if (algos) {
		fprintf(stderr, "%s%u algorithm%s", sep, algos, algos == 1 ? "" : "s");
		sep = ", ";
	}
	if (plugins || algos)
		fprintf(stderr, " skipped");
	if (other)
		fprintf(stderr, "%s%u other diagnostic%s", sep, other,
		        other == 1 ? "" : "s");
	fprintf(stderr, ": usmp list -v says why\n");
}

static int cmd_list(int argc, char **argv)
{
	int verbose = 0, c;
	cli_parser ps;
	cli_parser_init(&ps, &cli_list_command);
	while ((c = cli_next_option(&ps, argc, argv)) != -1) {
		if (c == 'h') {
			cli_print_help(&cli_list_command);
			return EXIT_DONE;
		}
		if (c != 'v')
			return EXIT_USAGE;
		verbose = 1;
	}
	if (optind != argc) {
		cli_error("usage: usmp list [-v]");
		return EXIT_USAGE;
	}
	usmp_registry *r = cli_registry(0, 0);
	if (!r)
		return EXIT_OTHER;
	uint32_t np = usmp_registry_plugin_count(r);
	if (verbose) {
		uint32_t major, minor;
		usmp_abi_version(&major, &minor);
		printf("libusmp %s, plugin ABI %u.%u\n\n", usmp_version(), major, minor);
	}
	for (uint32_t a = 0; a < usmp_registry_algorithm_count(r); a++) {
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		if (usmp_registry_algorithm(r, a, &ai))
			continue;
		usmp_plugin_info pi = {.struct_size = sizeof pi};
		int builtin = ai.plugin == UINT32_MAX ||
		              usmp_registry_plugin(r, ai.plugin, &pi);
		if (!verbose) {
			printf("%-22s %-8s %s\n", cli_shown(ai.name),
			       builtin ? "built-in" : cli_shown(pi.name),
			       cli_shown(ai.summary));
			continue;
		}
		printf("%s  (%s)\n  %s\n  capabilities: ", cli_shown(ai.name),
		       builtin ? "built into libusmp" : cli_shown(pi.name),
		       cli_shown(ai.summary));
		print_caps(ai.caps);
		putchar('\n');
		for (uint32_t k = 0; k < ai.param_count; k++) {
			usmp_param_info ki = {.struct_size = sizeof ki};
			if (usmp_registry_param(r, a, k, &ki))
				continue;
			const char *dflt = *ki.default_value
			                           ? cli_shown(ki.default_value) : "\"\"";
			printf("  -p %s=%s  (%s, default %s)%s%s\n", cli_shown(ki.name),
			       dflt, type_name(ki.type), dflt, *ki.help ? "  " : "",
			       cli_shown(ki.help));
		}
		if (!ai.param_count)
			printf("  no knobs\n");
		putchar('\n');
	}
	if (!verbose)
		print_skipped_summary(r);
	if (verbose) {
		print_members(r);
		printf("plugins:\n");
		for (uint32_t i = 0; i < np; i++) {
			usmp_plugin_info pi = {.struct_size = sizeof pi};
			if (usmp_registry_plugin(r, i, &pi))
				continue;
			printf("  %s %s (%s), ABI %u.%u, %u algorithm%s: %s\n",
			       cli_shown(pi.name), cli_shown(pi.version),
			       cli_shown(pi.license), pi.abi_major, pi.abi_minor,
			       pi.algorithm_count, pi.algorithm_count == 1 ? "" : "s",
			       cli_shown(pi.path));
		}
		if (!np)
			printf("  none found (set USMP_PLUGIN_PATH?)\n");
		uint32_t nd = usmp_registry_diagnostic_count(r);
		if (nd)
			printf("skipped:\n");
		for (uint32_t i = 0; i < nd; i++)
			printf("  %s\n", cli_shown(usmp_registry_diagnostic(r, i)));
	}
	usmp_registry_destroy(r);
	return EXIT_DONE;
}

/* The value `params` ("k=v k=v") sets for knob `name`, or NULL. */
static const char *set_value(const char *params, const char *name, size_t *len)
{
	size_t n = strlen(name);
	for (const char *q = params; q && *q;) {
		const char *end = strchr(q, ' ');
		size_t tok = end ? (size_t)(end - q) : strlen(q);
		if (tok > n && !strncmp(q, name, n) && q[n] == '=') {
			*len = tok - n - 1;
			return q + n + 1;
		}
		q = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Every knob of the algorithm with the value the selection gives it. */
static void print_knobs(const usmp_registry *r, const char *algo,
                        const char *params)
{
	uint32_t a;
	usmp_algorithm_info ai = {.struct_size = sizeof ai};
	if (usmp_registry_find_algorithm(r, algo, &a) ||
	    usmp_registry_algorithm(r, a, &ai))
		return;
	if (!ai.param_count)
		printf("  no knobs\n");
	for (uint32_t k = 0; k < ai.param_count; k++) {
		usmp_param_info ki = {.struct_size = sizeof ki};
		if (usmp_registry_param(r, a, k, &ki))
			continue;
		size_t len = 0;
		const char *v = set_value(params, ki.name, &len);
		if (v) {
			char *value = strndup(v, len);
			printf("  %s=%s  (%s, set by the rule)\n", cli_shown(ki.name),
			       value ? cli_shown(value) : "?", type_name(ki.type));
			free(value);
		} else {
			printf("  %s=%s  (%s, default)\n", cli_shown(ki.name),
			       cli_shown(ki.default_value), type_name(ki.type));
		}
	}
}

enum { OPT_POOL = CLI_LONG_ONLY };

static const cli_option select_options[] = {
	{'a', "algorithm", "ALGO", 0,
	 "the algorithm as `usmp plan -a ALGO` would give it"},
	{OPT_POOL, "pool", "POOL", CLI_REPEAT,
	 "a pool of the part, for pool rules (@POOL=ALGO)"},
	{'h', "help", NULL, 0, "print this help and exit"},
	{0, NULL, NULL, 0, NULL},
};

static int cmd_select(int argc, char **argv)
{
	const char *override = NULL;
	const char **pools = calloc((size_t)argc + 1, sizeof *pools);
	uint32_t np = 0;
	int c, code = EXIT_USAGE;
	usmp_registry *r = NULL;
	cli_parser ps;
	if (!pools)
		return EXIT_OTHER;
	cli_parser_init(&ps, &cli_select_command);
	while ((c = cli_next_option(&ps, argc, argv)) != -1) {
		if (c == 'h') {
			cli_print_help(&cli_select_command);
			code = EXIT_DONE;
			goto out;
		}
		if (c == OPT_POOL)
			pools[np++] = optarg;
		else if (c == 'a')
			override = optarg;
		else
			goto out;
	}
	if (optind >= argc && !np) {
		cli_error("usage: usmp select TARGET [-a ALGO]; for a part shared by "
		          "targets or pools: usmp select TARGET... [--pool POOL]...");
		goto out;
	}
	r = cli_registry(0, 0);
	if (!r) {
		code = EXIT_OTHER;
		goto out;
	}
	const char *const *targets = (const char *const *)argv + optind;
	uint32_t nt = (uint32_t)(argc - optind);
	usmp_selection sel = {.struct_size = sizeof sel};
	int st = usmp_registry_select_part(r, targets, nt, pools, np, override,
	                                   &sel);
	if (st) {
		cli_error("%s", usmp_registry_error(r));
		code = cli_exit_for(st);
		goto out;
	}
	for (uint32_t i = 0; i < nt; i++) /* "": the untargeted part */
		printf("%s%s", i ? ", " : "",
		       *targets[i] ? cli_shown(targets[i]) : "(no target)");
	if (!nt)
		printf("(no target)");
	for (uint32_t i = 0; i < np; i++)
		printf("%s%s", i ? ", " : " (pools ", cli_shown(pools[i]));
	printf("%s: %s\n  chosen by %s rule \"%s\"\n", np ? ")" : "",
	       cli_shown(sel.algorithm), cli_source_name(sel.source),
	       cli_shown(sel.rule));
	if (nt > 1 || np)
		printf("  (a pool rule matching one of the pools comes first, then "
		       "the first rule matching every target)\n");
	print_knobs(r, sel.algorithm, sel.params);
	code = EXIT_DONE;
out:
	usmp_registry_destroy(r);
	free(pools);
	return code;
}

const cli_command cli_list_command = {
	"list", "", "the algorithms (built-in and from plugins) and their knobs",
	list_options, cmd_list,
};

const cli_command cli_select_command = {
	"select", "[TARGET...]",
	"which algorithm a part with these targets (and pools) gets, and why",
	select_options, cmd_select,
};
