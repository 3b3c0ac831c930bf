/* main.c — the `usmp` command: dispatch to a subcommand, and the helpers
 * every subcommand shares (exit codes, byte counts, loading). */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: usmp COMMAND [ARGS]\n"
	"\n"
	"  plan PROBLEM [-a ALGO] [-p KEY=VALUE]... [-t TARGET]\n"
	"       [--time-limit SECONDS] [--capacity BYTES]\n"
	"       [-o PLAN] [--format json|csv] [--svg FILE]\n"
	"                         plan a problem (JSON or MiniMalloc CSV)\n"
	"  verify PROBLEM PLAN    exit 0 when the plan is valid\n"
	"  simulate PROBLEM PLAN  replay the plan in real memory, checking every byte\n"
	"  bound PROBLEM          the lower bound of each pool group\n"
	"  list [-v]              plugins, algorithms, capabilities, knobs\n"
	"  select TARGET [-a ALGO]\n"
	"                         which algorithm a target gets, and why\n"
	"\n"
	"Exit status: 0 done, 1 other failure (or an invalid plan for verify),\n"
	"2 bad usage or input, 3 no plan fits the pools, 4 plugin or ABI failure.\n"
	"Environment: USMP_PLUGIN_PATH (plugin directories), USMP_ALGORITHM\n"
	"(per-target rules, e.g. 'ethos-u*=exact:time_limit=2;*=best_fit'),\n"
	"USMP_LOG (error|warn|info|debug: algorithm log messages to stderr).\n";

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("usmp: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_exit_for(int status)
{
	switch (status) {
	case USMP_OK:
		return EXIT_DONE;
	case USMP_ERR_INVALID:
	case USMP_ERR_NOT_FOUND:
	case USMP_ERR_IO:
	case USMP_ERR_UNSUPPORTED:
		return EXIT_USAGE;
	case USMP_ERR_INFEASIBLE:
		return EXIT_NO_FIT;
	case USMP_ERR_PLUGIN:
	case USMP_ERR_INVALID_PLAN:
		return EXIT_PLUGIN;
	default:
		return EXIT_OTHER;
	}
}

int cli_parse_bytes(const char *text, uint64_t *out)
{
	char *end = NULL;
	if (!text || !*text || *text == '-' || *text == '+')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -1;
	unsigned shift = 0;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return -1;
		}
		if (end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
			return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int cli_parse_format(const char *text)
{
	if (!strcmp(text, "json"))
		return USMP_FORMAT_JSON;
	if (!strcmp(text, "csv"))
		return USMP_FORMAT_CSV;
	return -1;
}

usmp_problem *cli_load_problem(const char *path, uint64_t capacity)
{
	usmp_problem *p = usmp_problem_create();
	if (!p) {
		cli_error("out of memory");
		return NULL;
	}
	if (usmp_problem_read(p, path, USMP_FORMAT_AUTO, capacity)) {
		cli_error("%s", usmp_problem_error(p));
		usmp_problem_destroy(p);
		return NULL;
	}
	return p;
}

usmp_registry *cli_registry(int verbose, uint32_t flags)
{
	usmp_registry_options o = {.struct_size = sizeof o, .flags = flags};
	usmp_registry *r = NULL;
	if (usmp_registry_create(&o, &r)) {
		cli_error("cannot create the plugin registry (out of memory)");
		return NULL;
	}
	uint32_t n = usmp_registry_diagnostic_count(r);
	for (uint32_t i = 0; i < n; i++)
		if (verbose)
			fprintf(stderr, "usmp: note: %s\n",
			        usmp_registry_diagnostic(r, i));
	return r;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} commands[] = {
		{"plan", cmd_plan},   {"verify", cmd_verify}, {"bound", cmd_bound},
		{"list", cmd_list},   {"select", cmd_select},
		{"simulate", cmd_simulate},
	};
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return EXIT_DONE;
	}
	if (!strcmp(argv[1], "--version")) {
		uint32_t major, minor;
		usmp_abi_version(&major, &minor);
		printf("usmp %s (plugin ABI %u.%u)\n", usmp_version(), major, minor);
		return EXIT_DONE;
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cli_error("unknown command \"%s\" (try `usmp --help`)", argv[1]);
	return EXIT_USAGE;
}
