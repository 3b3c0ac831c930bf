/* cli.h — what the `usmp` subcommands share: exit codes, the option tables
 * that drive parsing and --help, printing of names, and problem set-up. */
#ifndef USMP_CLI_H
#define USMP_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <usmp/usmp.h>

/* Exit statuses of the command (docs/design.md, "Exit status"). */
enum cli_exit {
	EXIT_DONE = 0,
	EXIT_OTHER = 1,      /* anything else (also: verify found the plan invalid) */
	EXIT_USAGE = 2,      /* bad usage or bad input */
	EXIT_NO_FIT = 3,     /* no plan fits the pools */
	EXIT_PLUGIN = 4,     /* plugin or ABI failure */
	EXIT_NOMEM = 5       /* out of memory: nothing is said about the input */
};

/* One option of a command. The table of a command drives getopt_long, its
 * --help text and its line in `usmp --help`, so they cannot disagree. */
enum { CLI_REPEAT = 1u << 0 }; /* cli_option.flags: may be given many times */
enum { CLI_LONG_ONLY = 256 };   /* keys from here on have no short form */
typedef struct cli_option {
	int key;          /* what cli_next_option returns; < 256: the short form */
	const char *name; /* long name without "--" */
	const char *arg;  /* argument placeholder ("ALGO"), NULL for a flag */
	unsigned flags;   /* CLI_REPEAT */
	const char *help; /* one line for --help */
} cli_option;

/* A subcommand: its name, operands, one-line summary and options (the
 * table ends with an entry whose name is NULL). */
typedef struct cli_command {
	const char *name;
	const char *operands; /* "PROBLEM PLAN" */
	const char *summary;
	const cli_option *options;
	int (*run)(int argc, char **argv);
} cli_command;

/* The subcommands, each defined in its own file (plan_cmd.c, ...). */
extern const cli_command cli_plan_command, cli_verify_command,
	cli_simulate_command, cli_bound_command, cli_list_command,
	cli_select_command, cli_check_plugin_command;

/* Most options one command may have. */
#define CLI_MAX_OPTIONS 24
/* Option parsing over a command's table (options.c). Errors (unknown
 * option, missing or empty argument) are printed; cli_next_option then
 * returns '?'. */
typedef struct cli_parser {
	const cli_command *cmd;
	struct option longopts[CLI_MAX_OPTIONS + 1];
	char shortopts[3 * CLI_MAX_OPTIONS + 2];
} cli_parser;
/* Set up ps to parse cmd's options. */
void cli_parser_init(cli_parser *ps, const cli_command *cmd);
/* The next option's key (optarg holds its argument), -1 after the last. */
int cli_next_option(cli_parser *ps, int argc, char **argv);
/* "-a/--algorithm" for an option key (for messages). */
const char *cli_option_label(const cli_command *cmd, int key);
/* The option lines of --help ("  -a, --algorithm ALGO  help") to stdout. */
void cli_print_options(const cli_option *options);
/* `usmp COMMAND --help` to stdout. */
void cli_print_help(const cli_command *cmd);
/* The command's synopsis ("usmp plan PROBLEM [-a ALGO]..."), wrapped. */
void cli_print_synopsis(const cli_command *cmd, FILE *f, const char *indent);

/* A name from a problem file, a path or another user-supplied string as it
 * may be shown on a terminal: control characters, invalid UTF-8, C1
 * controls and bidirectional controls escaped C-style ("\n", "\x1b",
 * "\u202e"). Backslashes stay as they are: messages quote JSON source text,
 * whose escapes must read as written. The text stays valid until 8 more
 * calls; freed by cli_shown_release. The string itself when nothing needs
 * escaping. */
const char *cli_shown(const char *text);
/* A name from the problem as messages and summaries quote it: cli_shown,
 * and over CLI_NAME_SHOWN_MAX bytes only its first CLI_NAME_KEPT (fewer
 * rather than split a UTF-8 sequence) and "…(N bytes)", so a 1 MB name
 * gives a short line. Plan files keep names whole. Valid as cli_shown. */
#define CLI_NAME_SHOWN_MAX 120u
#define CLI_NAME_KEPT 60u
const char *cli_name(const char *name);
/* The line "<lead>spill N bytes: ..." of a part whose buffers are outside
 * their first candidate pool (nothing otherwise), to f (plan, verify). */
void cli_print_spill(FILE *f, const char *lead, usmp_problem *p,
                     usmp_plan *plan, const usmp_part_info *pi);
/* Free what cli_shown still holds (at exit). */
void cli_shown_release(void);
/* Print "usmp: <message>" to stderr, the message escaped like cli_shown. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- common.c: the helpers every subcommand shares ----------------------- */

/* "s" for a count other than 1: "%llu byte%s", n, cli_s(n). */
static inline const char *cli_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

/* "USMP_ALGORITHM", "--algorithm", "API", "default" for a usmp_rule_source. */
const char *cli_source_name(uint32_t source);

/* The exit status for a usmp_status. */
int cli_exit_for(int status);
/* What a refused --time-limit TEXT gets after the message when TEXT is a
 * number and a unit ("2s", "1m", "500ms"): "; the unit "m" (minutes) is not
 * read: write seconds as a number, e.g. --time-limit 60" in buf (n bytes);
 * "" otherwise. Nothing new is accepted. */
const char *cli_seconds_hint(const char *text, char *buf, size_t n);
/* Parse a byte count ("1048576", "1M", "256K", "2G": binary units). */
int cli_parse_bytes(const char *text, uint64_t *out);
/* Parse a format name ("json", "csv"); -1 when unknown. */
int cli_parse_format(const char *text);
/* Load a problem file; on failure prints the error, sets *code to the exit
 * status (EXIT_NOMEM out of memory, EXIT_USAGE for bad input or a file
 * that cannot be read) and returns NULL. `capacity` (USMP_UNBOUNDED for
 * none) is refused for a JSON problem. */
usmp_problem *cli_load_problem(const char *path, uint64_t capacity, int *code);
/* Most registry diagnostics cli_registry prints before "... and N more". */
#define CLI_DIAGNOSTICS_SHOWN 8u
/* The registry's load diagnostics to stderr: skipped plugins as notes,
 * shadowed algorithms as warnings; the first CLI_DIAGNOSTICS_SHOWN, then
 * "... and N more". */
void cli_print_diagnostics(const usmp_registry *r);
/* Create the registry with usmp_registry_flag `flags`; prints its load
 * diagnostics (cli_print_diagnostics) when `verbose`. Its algorithms log as cli_log_shown says. */
usmp_registry *cli_registry(int verbose, uint32_t flags);
/* The levels USMP_LOG may name, for messages. */
#define CLI_LOG_LEVELS "error, warn, info or debug"
/* USMP_LOG's value when it names no level (NULL: unset, empty or known). */
const char *cli_log_unknown(void);
/* Algorithms' log lines on `r` (at the level USMP_LOG names) go to stderr
 * escaped like cli_shown; an unknown USMP_LOG is warned about, once per
 * process. */
void cli_log_shown(usmp_registry *r);

/* Refuse (out_guard.c; message printed, -1) outputs that cannot be opened
 * (a directory, a missing directory), and outputs that would overwrite the problem
 * file or each other (`-o` and `--svg`); NULL or "-" is stdout. */
int cli_check_outputs(const char *problem, const char *output, const char *svg);

/* clock.c: monotonic wall seconds (cli_now), the process's CPU seconds, and
 * the cli_now() reading of when the process started (a --time-limit covers
 * the whole command: loading the libraries too). The first call of
 * cli_process_start fixes it; main makes that call first. */
double cli_now(void);
double cli_cpu_seconds(void);
double cli_process_start(void);

/* stdout_aside.c: while plugin code runs (loading plugins, planning,
 * unloading), standard output goes to stderr, so that what a plugin or a
 * process it forks prints never joins a plan written to stdout;
 * cli_stdout_back gives the command its standard output again. */
void cli_stdout_aside(void);
void cli_stdout_back(void);

/* plugin_imports.c: the usmp_* functions the plugin file at `path` imports
 * (undefined in its ELF dynamic symbol table), joined by ", " into `out`
 * (cut to n bytes); their count, 0 also for a file it cannot read. */
unsigned cli_plugin_imports(const char *path, char *out, size_t n);

#endif
