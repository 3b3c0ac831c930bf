/* main.c — the `usmp` command: dispatch to a subcommand, and the helpers
 * every subcommand shares (exit codes, byte counts, loading). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static const cli_command *const commands[] = {
	&cli_plan_command,  &cli_verify_command, &cli_simulate_command,
	&cli_bound_command, &cli_list_command,   &cli_select_command,
	&cli_check_plugin_command,
};

static const cli_option top_options[] = {
	{'h', "help", NULL, 0, "print this help and exit (also: usmp help [COMMAND])"},
	{CLI_LONG_ONLY, "version", NULL, 0,
	 "print the versions of usmp and of the plugin ABI and exit"},
	{0, NULL, NULL, 0, NULL},
};

static void print_usage(FILE *f)
{
	fputs("usage: usmp COMMAND [ARGS]\n"
	      "       usmp --help | --version\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
		cli_print_synopsis(commands[i], f, "  ");
		fprintf(f, "      %s\n", commands[i]->summary);
	}
}

static void print_help(void)
{
	print_usage(stdout);
	fputs("\noptions:\n", stdout);
	cli_print_options(top_options);
	fputs("\n`usmp COMMAND --help` lists a command's options; "
	      "`man usmp` is the reference.\n"
	      "\n"
	      "Exit status: 0 done, 1 other failure (or an invalid plan for verify),\n"
	      "2 bad usage or input, 3 no plan fits the pools, 4 plugin or ABI failure.\n"
	      "Environment: USMP_PLUGIN_PATH (plugin directories), USMP_ALGORITHM\n"
	      "(per-target rules, e.g. 'ethos-u*=exact:time_limit=2;*=best_fit'),\n"
	      "USMP_LOG (error|warn|info|debug: algorithm log messages to stderr),\n"
	      "USMP_ALLOW_INSECURE_PLUGINS (1: load world-writable or foreign plugins).\n",
	      stdout);
}

const char *cli_source_name(uint32_t source)
{
	static const char *names[] = {"?", "API", "--algorithm", "USMP_ALGORITHM",
	                              "default"};
	return source < sizeof names / sizeof *names ? names[source] : "?";
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

/* Whether the library reads `path` as CSV (USMP_FORMAT_AUTO: by suffix). */
static int is_csv_path(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && !strcasecmp(path + n - 4, ".csv");
}

usmp_problem *cli_load_problem(const char *path, uint64_t capacity)
{
	if (capacity != USMP_UNBOUNDED && !is_csv_path(path)) {
		cli_error("%s: --capacity applies to CSV problems only (a JSON "
		          "problem gives each pool its \"size_limit\")", path);
		return NULL;
	}
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
			fprintf(stderr, "usmp: %s: %s\n",
			        usmp_registry_diagnostic_kind(r, i) == USMP_DIAG_SHADOWED
			                ? "warning" : "note",
			        cli_shown(usmp_registry_diagnostic(r, i)));
	return r;
}

static const cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	const char *word = argv[1];
	if (!strcmp(word, "help") && argc > 2) {
		const cli_command *cmd = find_command(argv[2]);
		if (!cmd || argc > 3) {
			cli_error("help: expected one of the commands (try `usmp --help`)");
			return EXIT_USAGE;
		}
		cli_print_help(cmd);
		return EXIT_DONE;
	}
	if (!strcmp(word, "-h") || !strcmp(word, "--help") ||
	    !strcmp(word, "help")) {
		print_help();
		return EXIT_DONE;
	}
	if (!strcmp(word, "--version")) {
		uint32_t major, minor;
		usmp_abi_version(&major, &minor);
		printf("usmp %s (plugin ABI %u.%u)\n", usmp_version(), major, minor);
		return EXIT_DONE;
	}
	const cli_command *cmd = find_command(word);
	if (cmd)
		return cmd->run(argc - 1, argv + 1);
	if (*word == '-')
		cli_error("unrecognized option '%s' (try `usmp --help`)", word);
	else
		cli_error("unknown command \"%s\" (try `usmp --help`)", word);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
#ifdef M_MMAP_THRESHOLD
	/* Arrays of a million buffers' worth come and go while planning; glibc
	 * raises its mmap threshold as they are freed and then keeps freed
	 * ones in the heap: a fixed threshold gives them back (peak memory of
	 * a 1M-buffer plan: 15% less). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
	int code = run(argc, argv);
	cli_shown_release();
	return code;
}
