/* cli.h — what the `usmp` subcommands share: exit codes, option parsing
 * helpers and the registry/problem set-up every command needs. */
#ifndef USMP_CLI_H
#define USMP_CLI_H

#include <usmp/usmp.h>

/* Exit statuses of the command (DESIGN.md, "The command"). */
enum cli_exit {
	EXIT_DONE = 0,
	EXIT_OTHER = 1,      /* anything else (also: verify found the plan invalid) */
	EXIT_USAGE = 2,      /* bad usage or bad input */
	EXIT_NO_FIT = 3,     /* no plan fits the pools */
	EXIT_PLUGIN = 4      /* plugin or ABI failure */
};

/* The exit status for a usmp_status. */
int cli_exit_for(int status);
/* Print "usmp: <message>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a byte count ("1048576", "1M", "256K", "2G": binary units). */
int cli_parse_bytes(const char *text, uint64_t *out);
/* Parse a format name ("json", "csv"); -1 when unknown. */
int cli_parse_format(const char *text);
/* Load a problem file; on failure prints the error and returns NULL. */
usmp_problem *cli_load_problem(const char *path, uint64_t capacity);
/* Create the registry with usmp_registry_flag `flags`; prints load
 * diagnostics (skipped plugins) when `verbose`. */
usmp_registry *cli_registry(int verbose, uint32_t flags);

int cmd_plan(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_bound(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_select(int argc, char **argv);

#endif
