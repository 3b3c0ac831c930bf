/* common.c — the helpers every subcommand shares: exit statuses, byte counts,
 * seconds and format names, loading a problem, the registry, the spill line. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	case USMP_ERR_NOMEM:
		return EXIT_NOMEM;
	default:
		return EXIT_OTHER;
	}
}

const char *cli_seconds_hint(const char *text, char *buf, size_t n)
{
	static const struct {
		const char *unit, *name;
		double seconds;
	} units[] = {{"us", "microseconds", 1e-6}, {"ms", "milliseconds", 1e-3},
	             {"s", "seconds", 1},          {"sec", "seconds", 1},
	             {"m", "minutes", 60},         {"min", "minutes", 60},
	             {"h", "hours", 3600}};
	char *end;
	double x = strtod(text, &end);
	if (end == text || !isfinite(x) || !(x > 0))
		return "";
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcasecmp(end, units[i].unit))
			continue;
		snprintf(buf, n, "; the unit \"%s\" (%s) is not read: write "
		         "seconds as a number, e.g. --time-limit %g", end,
		         units[i].name, x * units[i].seconds);
		return buf;
	}
	return "";
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

usmp_problem *cli_load_problem(const char *path, uint64_t capacity, int *code)
{
	*code = EXIT_USAGE;
	if (capacity != USMP_UNBOUNDED && !is_csv_path(path)) {
		cli_error("%s: --capacity applies to CSV problems only (a JSON "
		          "problem gives each pool its \"size_limit\")", path);
		return NULL;
	}
	usmp_problem *p = usmp_problem_create();
	if (!p) {
		cli_error("out of memory");
		*code = EXIT_NOMEM;
		return NULL;
	}
	int st = usmp_problem_read(p, path, USMP_FORMAT_AUTO, capacity);
	if (st) {
		cli_error("%s", usmp_problem_error(p));
		usmp_problem_destroy(p);
		/* Out of memory says nothing about the file (exit 5). */
		if (st == USMP_ERR_NOMEM)
			*code = EXIT_NOMEM;
		return NULL;
	}
	return p;
}

/* Algorithms' log lines (USMP_LOG) name buffers and pools from the problem:
 * shown escaped, as every other line of the command, where the library's
 * own lines on stderr carried their bytes raw to the terminal. */
static void log_shown(void *ctx, int level, const char *algorithm,
                      const char *message)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "usmp: %s: ", cli_shown(algorithm));
	fprintf(stderr, "%s\n", cli_shown(message));
}

const char *cli_log_unknown(void)
{
	static const char *levels[] = {"error", "warn", "info", "debug"};
	const char *s = getenv("USMP_LOG");
	if (!s || !*s)
		return NULL;
	for (size_t i = 0; i < sizeof levels / sizeof *levels; i++)
		if (!strcmp(s, levels[i]))
			return NULL;
	return s;
}

void cli_log_shown(usmp_registry *r)
{
	/* The library takes an unknown level for silence: say so, once. */
	static int warned;
	const char *s = cli_log_unknown();
	if (s && !warned) {
		warned = 1;
		cli_error("warning: USMP_LOG=%s: expected " CLI_LOG_LEVELS " (unset "
		          "or empty: no log messages); no log messages are shown", s);
	}
	usmp_registry_set_log(r, log_shown, NULL, USMP_LOG_LEVEL_ENV);
}

void cli_print_diagnostics(const usmp_registry *r)
{
	uint32_t n = usmp_registry_diagnostic_count(r);
	/* The first few, then how many more: a USMP_PLUGIN_PATH of thousands
	 * of missing entries would print thousands of lines. */
	for (uint32_t i = 0; i < n && i < CLI_DIAGNOSTICS_SHOWN; i++)
		fprintf(stderr, "usmp: %s: %s\n",
		        usmp_registry_diagnostic_kind(r, i) == USMP_DIAG_SHADOWED
		                ? "warning" : "note",
		        cli_shown(usmp_registry_diagnostic(r, i)));
	if (n > CLI_DIAGNOSTICS_SHOWN)
		fprintf(stderr, "usmp: note: ... and %u more: `usmp list -v` shows "
		        "them all\n", n - CLI_DIAGNOSTICS_SHOWN);
}

usmp_registry *cli_registry(int verbose, uint32_t flags)
{
	usmp_registry_options o = {.struct_size = sizeof o, .flags = flags};
	usmp_registry *r = NULL;
	if (usmp_registry_create(&o, &r)) {
		cli_error("cannot create the plugin registry (out of memory)");
		return NULL;
	}
	if (verbose)
		cli_print_diagnostics(r);
	cli_log_shown(r);
	return r;
}

/* The part's spill, when some buffer is outside its first candidate pool
 * (docs/design.md, "Several pools: the objective"): bytes, buffers, the
 * largest and where it went, what is forced, the spill floor or that the
 * spill is at it (the least possible, also when an exact search proved
 * it: the library raises the floor to it); auto's plans above the floor
 * add that auto keeps the least its members found, unproven. */
void cli_print_spill(FILE *f, const char *lead, usmp_problem *p,
                     usmp_plan *plan, const usmp_part_info *pi)
{
	uint32_t pool = USMP_NO_POOL;
	if (!pi->spill_count)
		return;
	usmp_plan_placement(plan, pi->spill_largest, &pool, NULL);
	fprintf(f, "%sspill %llu byte%s: %u buffer%s outside %s first "
	        "candidate pool, the largest \"%s\" in %s", lead,
	        (unsigned long long)pi->spill, cli_s(pi->spill), pi->spill_count,
	        pi->spill_count == 1 ? "" : "s",
	        pi->spill_count == 1 ? "its" : "their",
	        cli_name(usmp_problem_buffer_name(p, pi->spill_largest)),
	        pool == USMP_NO_POOL ? "?" : cli_name(usmp_problem_pool_name(p, pool)));
	/* Forced: no plan keeps those bytes in their first pools. */
	if (pi->spill_forced == pi->spill)
		fprintf(f, "; forced: %s larger than its first candidate "
		        "pool or fixed in another\n",
		        pi->spill_count == 1 ? "it is" : "each is");
	else if (pi->spill_forced)
		fprintf(f, "; %llu byte%s of it forced",
		        (unsigned long long)pi->spill_forced,
		        cli_s(pi->spill_forced));
	if (pi->spill_forced == pi->spill)
		return;
	/* The spill floor (usmp_part_info.spill_floor): no valid plan spills
	 * less, so a spill at it is the least there is. */
	if (pi->spill <= pi->spill_floor) {
		fputs("; the least possible: no valid plan spills less\n", f);
		return;
	}
	if (pi->spill_floor > pi->spill_forced)
		fprintf(f, "; no valid plan spills less than %llu byte%s",
		        (unsigned long long)pi->spill_floor,
		        cli_s(pi->spill_floor));
	/* A plan whose spill an exact search proved the least has it as its
	 * floor (above); auto's other plans are the least its members found. */
	fputs(!strncmp(pi->algorithm, "auto", 4)
	              ? "; auto keeps the least spill it found, not proven the "
	                "least (-a exact may prove it, given the time)\n"
	              : "\n",
	      f);
}
