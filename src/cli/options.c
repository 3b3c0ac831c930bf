/* options.c — option parsing, --help and synopsis lines of the subcommands,
 * all from one table per command, so the help lists exactly what is taken. */
#include "cli.h"

#include <string.h>

static const cli_option *find_key(const cli_command *cmd, int key)
{
	for (const cli_option *o = cmd->options; o->name; o++)
		if (o->key == key)
			return o;
	return NULL;
}

void cli_parser_init(cli_parser *ps, const cli_command *cmd)
{
	size_t n = 0, s = 0;
	memset(ps, 0, sizeof *ps);
	ps->cmd = cmd;
	/* ':' first: a missing argument returns ':', not '?'. */
	ps->shortopts[s++] = ':';
	for (const cli_option *o = cmd->options; o->name && n < CLI_MAX_OPTIONS;
	     o++, n++) {
		ps->longopts[n].name = o->name;
		ps->longopts[n].has_arg = o->arg ? required_argument : no_argument;
		ps->longopts[n].val = o->key;
		if (o->key < CLI_LONG_ONLY) {
			ps->shortopts[s++] = (char)o->key;
			if (o->arg)
				ps->shortopts[s++] = ':';
		}
	}
	optind = 1;
}

const char *cli_option_label(const cli_command *cmd, int key)
{
	static char label[80];
	const cli_option *o = find_key(cmd, key);
	if (!o)
		snprintf(label, sizeof label, "-%c", key);
	else if (key < CLI_LONG_ONLY)
		snprintf(label, sizeof label, "-%c/--%s", key, o->name);
	else
		snprintf(label, sizeof label, "--%s", o->name);
	return label;
}

/* What to add when a refused option asks for log lines (-v, --verbose,
 * --log-level, --debug...): the command's logs are set by USMP_LOG. */
static const char *log_hint(int key, const char *given)
{
	static const char *const words[] = {"--verbose", "--log", "--debug",
	                                    NULL};
	bool asks = key == 'v' || key == 'd';
	for (size_t i = 0; !asks && words[i]; i++)
		asks = !strncmp(given, words[i], strlen(words[i]));
	return asks ? "; log lines are asked for by the environment: "
	              "USMP_LOG=info (or debug) usmp ..."
	            : "";
}

/* The message for an option getopt_long refused ('?'). */
static void refused_option(const cli_parser *ps, int argc, char **argv)
{
	const char *cmd = ps->cmd->name;
	const char *given = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (optopt && optopt < CLI_LONG_ONLY && !find_key(ps->cmd, optopt)) {
		cli_error("%s: unrecognized option '-%c' (try `usmp %s --help`)%s",
		          cmd, optopt, cmd, log_hint(optopt, ""));
		return;
	}
	if (optopt) { /* a flag given "--flag=value" */
		cli_error("%s: option '--%s' takes no argument", cmd,
		          find_key(ps->cmd, optopt)->name);
		return;
	}
	/* A long option that is unknown, or a prefix of several. */
	size_t len = strcspn(given, "=");
	char names[512] = "";
	int matches = 0;
	if (len > 2 && !strncmp(given, "--", 2))
		for (const cli_option *o = ps->cmd->options; o->name; o++)
			if (!strncmp(o->name, given + 2, len - 2)) {
				size_t at = strlen(names);
				snprintf(names + at, sizeof names - at, "%s--%s",
				         matches++ ? ", " : "", o->name);
			}
	if (matches > 1)
		cli_error("%s: option '%.*s' is ambiguous (%s)", cmd, (int)len,
		          given, names);
	else
		cli_error("%s: unrecognized option '%s' (try `usmp %s --help`)%s",
		          cmd, given, cmd, log_hint(0, given));
}

int cli_next_option(cli_parser *ps, int argc, char **argv)
{
	opterr = 0;
	int c = getopt_long(argc, argv, ps->shortopts, ps->longopts, NULL);
	if (c == -1)
		return -1;
	if (c == '?') {
		refused_option(ps, argc, argv);
		return '?';
	}
	const cli_option *o = find_key(ps->cmd, c == ':' ? optopt : c);
	if (c == ':') {
		cli_error("%s: option %s needs an argument (%s)", ps->cmd->name,
		          cli_option_label(ps->cmd, optopt), o ? o->arg : "?");
		return '?';
	}
	if (o && o->arg && !*optarg) {
		cli_error("%s \"\": expected %s, not an empty string (see `usmp %s "
		          "--help`)", cli_option_label(ps->cmd, c), o->arg,
		          ps->cmd->name);
		return '?';
	}
	return c;
}

/* "-a, --algorithm ALGO" or "    --time-limit SECONDS" into `out`. */
static int option_column(const cli_option *o, char *out, size_t n)
{
	char shortform[8] = "    ";
	if (o->key < CLI_LONG_ONLY)
		snprintf(shortform, sizeof shortform, "-%c, ", o->key);
	return snprintf(out, n, "%s--%s%s%s", shortform, o->name,
	                o->arg ? " " : "", o->arg ? o->arg : "");
}

void cli_print_options(const cli_option *options)
{
	char col[128];
	int width = 0;
	for (const cli_option *o = options; o->name; o++) {
		int w = option_column(o, col, sizeof col);
		if (w > width)
			width = w;
	}
	for (const cli_option *o = options; o->name; o++) {
		option_column(o, col, sizeof col);
		printf("  %-*s  %s\n", width, col, o->help);
	}
}

void cli_print_help(const cli_command *cmd)
{
	printf("usage: usmp %s%s%s [OPTION]...\n%s\n\noptions:\n", cmd->name,
	       *cmd->operands ? " " : "", cmd->operands, cmd->summary);
	cli_print_options(cmd->options);
	printf("\nExit status and environment: `usmp --help`; "
	       "the full reference: `man usmp`.\n");
}

void cli_print_synopsis(const cli_command *cmd, FILE *f, const char *indent)
{
	char head[64], item[128];
	int at = snprintf(head, sizeof head, "usmp %s ", cmd->name);
	int margin = (int)strlen(indent) + at;
	fprintf(f, "%s%s%s", indent, head, cmd->operands);
	at = margin + (int)strlen(cmd->operands);
	for (const cli_option *o = cmd->options; o->name; o++) {
		if (o->key == 'h')
			continue;
		if (o->key < CLI_LONG_ONLY)
			snprintf(item, sizeof item, "[-%c%s%s]%s", o->key,
			         o->arg ? " " : "", o->arg ? o->arg : "",
			         o->flags & CLI_REPEAT ? "..." : "");
		else
			snprintf(item, sizeof item, "[--%s%s%s]%s", o->name,
			         o->arg ? " " : "", o->arg ? o->arg : "",
			         o->flags & CLI_REPEAT ? "..." : "");
		int len = (int)strlen(item);
		if (at > margin && at + 1 + len > 78) {
			fprintf(f, "\n%*s%s", margin, "", item);
			at = margin + len;
		} else {
			fprintf(f, "%s%s", at > margin || *cmd->operands ? " " : "",
			        item);
			at += len + 1;
		}
	}
	fputc('\n', f);
}
