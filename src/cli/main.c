/* main.c — the `usmp` command: its usage and --help, and dispatch to a
 * subcommand (the helpers they share are in common.c). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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
	      "2 bad usage or input, 3 no plan fits the pools, 4 plugin or ABI failure,\n"
	      "5 out of memory.\n"
	      "Environment: USMP_PLUGIN_PATH (plugin directories), USMP_ALGORITHM\n"
	      "(per-target rules, e.g. 'ethos-u*=exact:time_limit=2;*=best_fit'),\n"
	      "USMP_LOG (error|warn|info|debug: algorithm log messages to stderr),\n"
	      "USMP_ALLOW_INSECURE_PLUGINS (1: load world-writable or foreign plugins).\n",
	      stdout);
}

static const cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

/* "plan, verify, ..." into buf (cut at `size`). */
static void command_names(char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof commands / sizeof *commands && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
		                 commands[i]->name);
		if (n < 0)
			break;
		len += (size_t)n;
	}
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
		if (!cmd) {
			char names[256];
			command_names(names, sizeof names);
			cli_error("help: unknown command \"%s\" (commands: %s)", argv[2],
			          names);
			return EXIT_USAGE;
		}
		if (argc > 3) {
			cli_error("help: expected one command, got %d (try `usmp --help`)",
			          argc - 2);
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
	/* Before anything else: a --time-limit counts from here on, and
	 * from the process's start before it where the system says when. */
	(void)cli_process_start();
#ifdef M_MMAP_THRESHOLD
	/* Arrays of a million buffers' worth come and go while planning; glibc
	 * raises its mmap threshold as they are freed and then keeps freed
	 * ones in the heap: a fixed threshold gives them back (peak memory of
	 * a 1M-buffer plan: 15% less). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
	int code = run(argc, argv);
	cli_shown_release();
	/* What a command printed (bounds, a verdict, a listing) must have
	 * reached stdout: a full disk is not "done". A command that failed
	 * has said why already (plan names a failed write of its own). */
	int unflushed = fflush(stdout) != 0;
	if ((unflushed || ferror(stdout)) && code == EXIT_DONE) {
		cli_error("<stdout>: write failed%s%s", unflushed ? ": " : "",
		          unflushed ? strerror(errno) : "");
		code = EXIT_USAGE;
	}
	return code;
}
