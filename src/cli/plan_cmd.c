/* plan_cmd.c — `usmp plan`: read a problem, plan it, print a summary to
 * stderr, write the plan (stdout or -o) and optionally an SVG picture. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Time kept back per buffer for writing the plan, out of --time-limit,
 * which covers the whole command (the JSON writer prints one short record
 * per buffer). */
#define WRITE_SECONDS_PER_BUFFER 1e-6

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_summary(const char *path, usmp_problem *p, usmp_plan *plan,
                          double limit)
{
	uint32_t parts = usmp_plan_part_count(plan);
	fprintf(stderr, "usmp: %s: %u buffers, %u pool%s, %u part%s\n", path,
	        usmp_problem_buffer_count(p), usmp_problem_pool_count(p),
	        usmp_problem_pool_count(p) == 1 ? "" : "s", parts,
	        parts == 1 ? "" : "s");
	for (uint32_t i = 0; i < parts; i++) {
		usmp_part_info pi = {.struct_size = sizeof pi};
		if (usmp_plan_part(plan, i, &pi))
			continue;
		fprintf(stderr, "  part %u: target %s, algorithm %s%s%s%s, %u buffers, "
		        "%.1f ms\n", i + 1, *pi.target ? pi.target : "-",
		        pi.algorithm, *pi.params ? " (" : "", pi.params,
		        *pi.params ? ")" : "", pi.buffer_count, pi.time_ms);
		if (limit > 0 && pi.time_ms > limit * 1e3)
			fprintf(stderr, "    over the time limit of %g s: a first "
			        "plan is always finished, however long it takes\n",
			        limit);
		for (uint32_t j = 0; j < usmp_problem_pool_count(p); j++) {
			if (usmp_problem_pool_group(p, j) != pi.group)
				continue;
			fprintf(stderr, "    pool %-12s %12llu bytes\n",
			        usmp_problem_pool_name(p, j),
			        (unsigned long long)usmp_plan_pool_size(plan, j));
		}
		double ratio = pi.lower_bound ? (double)pi.size / (double)pi.lower_bound
		                              : 1.0;
		fprintf(stderr, "    total %llu bytes, lower bound %llu, ratio %.4f%s\n",
		        (unsigned long long)pi.size,
		        (unsigned long long)pi.lower_bound, ratio,
		        pi.optimal ? " (optimal)"
		                   : pi.proven_bound > pi.lower_bound ? " (bound improved)" : "");
		if (!pi.optimal && pi.proven_bound > pi.lower_bound)
			fprintf(stderr, "    proven bound %llu (gap %.4f%%)\n",
			        (unsigned long long)pi.proven_bound,
			        100.0 * (double)(pi.size - pi.proven_bound) /
			                (double)pi.proven_bound);
	}
}

int cmd_plan(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"algorithm", required_argument, NULL, 'a'},
		{"param", required_argument, NULL, 'p'},
		{"target", required_argument, NULL, 't'},
		{"output", required_argument, NULL, 'o'},
		{"time-limit", required_argument, NULL, 'T'},
		{"capacity", required_argument, NULL, 'C'},
		{"format", required_argument, NULL, 'F'},
		{"svg", required_argument, NULL, 'S'},
		{"isolate", no_argument, NULL, 'I'},
		{"no-isolate", no_argument, NULL, 'N'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0},
	};
	usmp_plan_options opts = {.struct_size = sizeof opts};
	const char **params = calloc((size_t)argc + 1, sizeof *params);
	const char *output = NULL, *svg = NULL;
	uint64_t capacity = USMP_UNBOUNDED;
	int format = USMP_FORMAT_AUTO, quiet = 0, c, code = EXIT_USAGE;
	usmp_problem *p = NULL;
	usmp_registry *r = NULL;
	usmp_plan *plan = NULL;
	double t_start = now_seconds();
	if (!params)
		return EXIT_OTHER;
	optind = 1;
	while ((c = getopt_long(argc, argv, "a:p:t:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': opts.algorithm = optarg; break;
		case 'p':
			if (!strchr(optarg, '=')) {
				cli_error("-p %s: expected KEY=VALUE", optarg);
				goto out;
			}
			params[opts.param_count++] = optarg;
			break;
		case 't': opts.target = optarg; break;
		case 'o': output = optarg; break;
		case 'S': svg = optarg; break;
		case 'I': opts.flags |= USMP_PLAN_ISOLATE; break;
		case 'N': opts.flags |= USMP_PLAN_NO_ISOLATE; break;
		case 'q': quiet = 1; break;
		case 'T': {
			char *end;
			opts.time_limit = strtod(optarg, &end);
			if (end == optarg || *end || !(opts.time_limit >= 0) ||
			    opts.time_limit > 1e9) {
				cli_error("--time-limit %s: expected seconds >= 0", optarg);
				goto out;
			}
			break;
		}
		case 'C':
			if (cli_parse_bytes(optarg, &capacity) || capacity == 0) {
				cli_error("--capacity %s: expected a positive byte count "
				          "(e.g. 1048576 or 1M)", optarg);
				goto out;
			}
			break;
		case 'F':
			format = cli_parse_format(optarg);
			if (format < 0) {
				cli_error("--format %s: expected json or csv", optarg);
				goto out;
			}
			break;
		case 'h':
			puts("usage: usmp plan PROBLEM [-a ALGO] [-p KEY=VALUE]... "
			     "[-t TARGET] [--time-limit SECONDS] [--capacity BYTES] "
			     "[-o PLAN] [--format json|csv] [--svg FILE] [--isolate|--no-isolate]");
			code = EXIT_DONE;
			goto out;
		default:
			goto out;
		}
	}
	if (optind != argc - 1) {
		cli_error("plan: expected one PROBLEM file (try `usmp plan --help`)");
		goto out;
	}
	if (opts.param_count && !opts.algorithm) {
		cli_error("-p needs -a: knobs belong to an algorithm");
		goto out;
	}
	opts.params = params;
	const char *path = argv[optind];
	p = cli_load_problem(path, capacity);
	if (!p)
		goto out;
	r = cli_registry(0);
	if (!r) {
		code = EXIT_OTHER;
		goto out;
	}
	double limit = opts.time_limit;
	if (opts.time_limit > 0) {
		/* The limit is for the whole command: reading is done, writing
		 * is still to come. */
		double left = opts.time_limit - (now_seconds() - t_start) -
		              WRITE_SECONDS_PER_BUFFER *
		                      (double)usmp_problem_buffer_count(p);
		opts.time_limit = left > 1e-3 ? left : 1e-3;
	}
	int st = usmp_plan_compute(r, p, &opts, &plan);
	if (st) {
		cli_error("%s: %s", path, plan ? usmp_plan_error(plan)
		                               : "out of memory");
		for (uint32_t i = 0; st == USMP_ERR_PLUGIN &&
		                     i < usmp_registry_diagnostic_count(r); i++)
			fprintf(stderr, "usmp: note: skipped plugin %s\n",
			        usmp_registry_diagnostic(r, i));
		code = cli_exit_for(st);
		goto out;
	}
	if (!quiet)
		print_summary(path, p, plan, limit);
	if (format == USMP_FORMAT_AUTO && !output)
		format = USMP_FORMAT_JSON;
	st = usmp_plan_write(plan, p, output ? output : "-", format);
	if (st) {
		cli_error("%s", usmp_plan_error(plan));
		code = cli_exit_for(st);
		goto out;
	}
	if (svg && (st = usmp_plan_write_svg(plan, p, svg))) {
		cli_error("%s", usmp_plan_error(plan));
		code = cli_exit_for(st);
		goto out;
	}
	if (!quiet && output)
		fprintf(stderr, "usmp: plan written to %s%s%s\n", output,
		        svg ? ", picture to " : "", svg ? svg : "");
	else if (!quiet && svg)
		fprintf(stderr, "usmp: picture written to %s\n", svg);
	code = EXIT_DONE;
out:
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	free(params);
	return code;
}
