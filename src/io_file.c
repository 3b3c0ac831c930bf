/* io_file.c — the public read/parse/write entry points for problems and plans:
 * reading files ("-" = stdin), choosing the format, and dispatching. */
#include "io.h"
#include "plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A name for messages: the path, or "<stdin>"/"<stdout>" for "-". */
static const char *display_name(const char *path, int output)
{
	if (strcmp(path, "-") == 0)
		return output ? "<stdout>" : "<stdin>";
	return path;
}

/* USMP_FORMAT_AUTO resolved by the name's suffix: ".csv" is CSV. */
static int resolve_format(int format, const char *name)
{
	if (format != USMP_FORMAT_AUTO)
		return format;
	size_t n = name ? strlen(name) : 0;
	if (n >= 4 && strcasecmp(name + n - 4, ".csv") == 0)
		return USMP_FORMAT_CSV;
	return USMP_FORMAT_JSON;
}

static int format_known(int format)
{
	return format == USMP_FORMAT_AUTO || format == USMP_FORMAT_JSON ||
	       format == USMP_FORMAT_CSV;
}

static int is_empty(const usmp_problem *p)
{
	return usmp__problem_empty(p);
}

int usmp_problem_parse(usmp_problem *p, const char *data, size_t len,
                       const char *name, int format, uint64_t capacity)
{
	if (!p)
		return USMP_ERR_INVALID;
	if (!name)
		name = "<input>";
	if (!data && len)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s: no data", name);
	if (!format_known(format))
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s: unknown format %d", name, format);
	if (!is_empty(p))
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s: the problem to read into must be "
		                          "empty", name);
	if (!data)
		data = "";
	int rc = resolve_format(format, name) == USMP_FORMAT_CSV
	                 ? usmp__csv_read_problem(p, data, len, name, capacity)
	                 : usmp__json_read_problem(p, data, len, name);
	if (rc)
		return rc;
	/* Checks across records (an overlap rule's schedule, a fixed pool
	 * among the candidates) belong to prepare: run them now, so a bad
	 * file is refused while its name is known. */
	rc = usmp__problem_prepare(p);
	if (rc) {
		char *why = usmp__strdup(usmp_problem_error(p));
		usmp__problem_clear(p);
		usmp__problem_fail(p, rc, "%s: %s", name, why ? why : "invalid");
		free(why);
	}
	return rc;
}

int usmp_problem_read(usmp_problem *p, const char *path, int format,
                      uint64_t capacity)
{
	char *data = NULL, *msg = NULL;
	size_t len = 0;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	if (!path || !*path)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "no problem file given");
	if (!is_empty(p))
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s: the problem to read into must be "
		                          "empty", display_name(path, 0));
	rc = usmp__read_file(path, resolve_format(format, path), &data, &len,
	                     &msg);
	if (rc != USMP_OK) {
		usmp__problem_clear(p);
		usmp__problem_fail(p, rc, "%s", msg);
		goto done;
	}
	/* "-" has no suffix: AUTO reads JSON from stdin. */
	rc = usmp_problem_parse(p, data, len, display_name(path, 0),
	                        resolve_format(format, path), capacity);
done:
	free(data);
	usmp__free_msg(&msg);
	return rc;
}

int usmp_problem_write(usmp_problem *p, const char *path, int format)
{
	char *msg = NULL;
	usmp__out o;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	if (!path || !*path)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "no output file given");
	if (!format_known(format))
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "unknown format %d", format);
	/* A problem that fails its checks across records (a fixed pool outside
	 * the candidates, an overlap rule off its schedule) is written as it
	 * is, so that a host can save the problem it could not plan and the
	 * failure replays from the file (a bug report). */
	rc = usmp__problem_prepare(p);
	if (rc != USMP_OK && rc != USMP_ERR_INVALID)
		return rc;
	format = resolve_format(format, path);
	/* What the format cannot hold is refused before the file is touched. */
	if (format == USMP_FORMAT_CSV &&
	    (rc = usmp__csv_check_problem(p)) != USMP_OK) {
		goto named;
	}
	if (usmp__out_open(&o, path, &msg)) {
		rc = usmp__problem_fail(p, USMP_ERR_IO, "%s", msg);
		goto done;
	}
	if (format == USMP_FORMAT_CSV)
		rc = usmp__csv_write_problem(p, o.f);
	else
		rc = usmp__json_write_problem(p, o.f);
	/* On failure the output is dropped: the file stays as it was. */
	int crc = usmp__out_close(&o, rc == USMP_OK, &msg);
	/* The stream's reason (naming the file) beats a writer's "cannot
	 * write"; a writer's own refusal stays. */
	if (crc != USMP_OK && (rc == USMP_OK || rc == USMP_ERR_IO)) {
		rc = usmp__problem_fail(p, crc, "%s", msg);
		goto done;
	}
	if (rc == USMP_OK)
		goto done;
named:
	/* A refusal names the record and field; the file goes before it. */
	usmp__free_msg(&msg);
	msg = usmp__strdup(usmp_problem_error(p));
	usmp__problem_fail(p, rc, "writing %s: %s", display_name(path, 1),
	                   msg ? msg : "cannot be written");
done:
	usmp__free_msg(&msg);
	return rc;
}

int usmp_plan_read(usmp_problem *p, const char *path, int format,
                   usmp_plan **out)
{
	char *data = NULL, *msg = NULL;
	size_t len = 0;
	usmp_plan *plan = NULL;
	int rc;

	if (!out)
		return USMP_ERR_INVALID;
	*out = NULL;
	if (!p)
		return USMP_ERR_INVALID;
	rc = usmp__problem_prepare(p);
	plan = usmp__plan_alloc(p);
	if (!plan)
		return USMP_ERR_NOMEM;
	*out = plan;
	if (rc != USMP_OK) {
		rc = usmp__plan_fail(plan, rc, "%s", usmp_problem_error(p));
		goto done;
	}
	if (!path || !*path) {
		rc = usmp__plan_fail(plan, USMP_ERR_INVALID, "no plan file given");
		goto done;
	}
	if (!format_known(format)) {
		rc = usmp__plan_fail(plan, USMP_ERR_INVALID,
		                     "%s: unknown format %d", path, format);
		goto done;
	}
	rc = usmp__read_file(path, resolve_format(format, path), &data, &len,
	                     &msg);
	if (rc != USMP_OK) {
		usmp__plan_fail(plan, rc, "%s", msg);
		goto done;
	}
	if (resolve_format(format, path) == USMP_FORMAT_CSV)
		rc = usmp__csv_read_plan(plan, p, data, len,
		                         display_name(path, 0));
	else
		rc = usmp__json_read_plan(plan, p, data, len,
		                          display_name(path, 0));
	if (rc == USMP_OK)
		usmp__plan_spill(plan, p);
done:
	free(data);
	usmp__free_msg(&msg);
	return rc;
}

static int write_plan_checked(usmp_plan *plan, usmp_problem *p,
                              const char *path,
                              int (*check)(usmp_plan *, usmp_problem *),
                              int (*fn)(usmp_plan *, usmp_problem *, FILE *));
/* The `check` of a format usmp_plan_write does not know (never called). */
static int refuse_format(usmp_plan *plan, usmp_problem *p)
{
	USMP__UNUSED(p);
	return usmp__plan_fail(plan, USMP_ERR_INVALID, "unknown format");
}

/* Shared by the plan writers: check, open, write with `fn`, close, report.
 * `check` (may be NULL) refuses what `fn` cannot write, before opening. */
static int write_plan_with(usmp_plan *plan, usmp_problem *p, const char *path,
                           int format,
                           int (*check)(usmp_plan *, usmp_problem *),
                           int (*fn)(usmp_plan *, usmp_problem *, FILE *))
{
	if (!plan)
		return USMP_ERR_INVALID;
	/* A write leaves the plan's own status and message as they were
	 * (after an earlier write failed too), or records why it failed. */
	int own_status = plan->write_failed ? plan->own_status : plan->status;
	char *own_error = usmp__plan_write_begin(plan);
	int rc = check == refuse_format
	                 ? usmp__plan_fail(plan, USMP_ERR_INVALID,
	                                   "unknown format %d", format)
	                 : write_plan_checked(plan, p, path, check, fn);
	return usmp__plan_write_end(plan, rc, own_status, own_error);
}

/* write_plan_with's work, recording a failure on the plan. */
static int write_plan_checked(usmp_plan *plan, usmp_problem *p,
                              const char *path,
                              int (*check)(usmp_plan *, usmp_problem *),
                              int (*fn)(usmp_plan *, usmp_problem *, FILE *))
{
	char *msg = NULL;
	usmp__out o;
	int rc;

	if (!p)
		return usmp__plan_fail(plan, USMP_ERR_INVALID, "no problem given");
	if (!path || !*path)
		return usmp__plan_fail(plan, USMP_ERR_INVALID,
		                       "no output file given");
	rc = usmp__problem_prepare(p);
	if (rc != USMP_OK)
		return usmp__plan_fail(plan, rc, "%s", usmp_problem_error(p));
	if (plan->buffer_count != usmp__problem_nbuffers(p) ||
	    plan->pool_count != usmp__problem_npools(p))
		return usmp__plan_wrong_problem(plan, p, USMP_ERR_INVALID);
	if (check && (rc = check(plan, p)) != USMP_OK)
		goto named;
	if (usmp__out_open(&o, path, &msg)) {
		rc = usmp__plan_fail(plan, USMP_ERR_IO, "%s", msg);
		goto done;
	}
	rc = fn(plan, p, o.f);
	/* On failure the output is dropped: the file stays as it was. */
	int crc = usmp__out_close(&o, rc == USMP_OK, &msg);
	/* The stream's reason (naming the file) beats a writer's "cannot
	 * write"; a writer's own refusal stays. */
	if (crc != USMP_OK && (rc == USMP_OK || rc == USMP_ERR_IO)) {
		rc = usmp__plan_fail(plan, crc, "%s", msg);
		goto done;
	}
	if (rc == USMP_OK)
		goto done;
named:
	/* A refusal names the record and field; the file goes before it. */
	usmp__free_msg(&msg);
	msg = usmp__strdup(usmp_plan_error(plan));
	usmp__plan_fail(plan, rc, "writing %s: %s", display_name(path, 1),
	                msg ? msg : "cannot be written");
done:
	usmp__free_msg(&msg);
	return rc;
}

/* The JSON plan writer writes complete plans only. */
static int check_complete(usmp_plan *plan, usmp_problem *p)
{
	for (uint32_t i = 0; i < plan->buffer_count; i++)
		if (plan->placements[i].pool >= plan->pool_count)
			return usmp__plan_fail(plan, USMP_ERR_INVALID,
			                       "buffer \"%s\" has no placement; "
			                       "only complete plans can be written",
			                       usmp__problem_buffer(p, i)->name);
	return USMP_OK;
}

int usmp_plan_write(usmp_plan *plan, usmp_problem *p, const char *path,
                    int format)
{
	if (!format_known(format))
		return write_plan_with(plan, p, path, format, refuse_format,
		                       usmp__json_write_plan);
	if (path && resolve_format(format, path) == USMP_FORMAT_CSV)
		return write_plan_with(plan, p, path, format,
		                       usmp__csv_check_plan, usmp__csv_write_plan);
	return write_plan_with(plan, p, path, format, check_complete,
	                       usmp__json_write_plan);
}

int usmp_plan_write_svg(usmp_plan *plan, usmp_problem *p, const char *path)
{
	return write_plan_with(plan, p, path, USMP_FORMAT_AUTO, NULL,
	                       usmp__svg_write_plan);
}
