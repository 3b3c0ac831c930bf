/* fuzz_params.c — fuzzes the parameter-signature parser, typed value parsing
 * and knob assignment. Input: a signature line, then one "key=value" per line.
 * Every value that parses must format and parse back to itself. */
#include "fuzz.h"
#include "internal.h"

#include <math.h>
#include <string.h>

static int same_value(int type, const usmp__value *a, const usmp__value *b)
{
	switch (type) {
	case USMP_PARAM_BOOL: return a->b == b->b;
	case USMP_PARAM_I32: return a->i32 == b->i32;
	case USMP_PARAM_U32: return a->u32 == b->u32;
	case USMP_PARAM_I64: return a->i64 == b->i64;
	case USMP_PARAM_U64: return a->u64 == b->u64;
	case USMP_PARAM_F64:
		return a->f64 == b->f64 && !!signbit(a->f64) == !!signbit(b->f64);
	case USMP_PARAM_STR: return strcmp(a->str, b->str) == 0;
	default: return 0;
	}
}

/* Parse, format, parse again: the same value. */
static void round_trip(int type, const usmp__value *v)
{
	char *text = usmp__value_format(type, v), *msg = NULL;
	usmp__value back;
	if (!text)
		return;
	int rc = usmp__value_parse(type, text, &back, &msg);
	if (rc != USMP_OK)
		fprintf(stderr, "%s value \"%s\" does not read back: %s\n",
		        usmp__param_type_name(type), text, msg ? msg : "");
	FUZZ_CHECK(rc == USMP_OK);
	FUZZ_CHECK(same_value(type, v, &back));
	usmp__free_msg(&msg);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *msg = NULL;
	usmp__signature sig = {0};
	usmp__knobs knobs;
	int have_knobs = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *line = text, *nl = strchr(text, '\n');
	char *rest = NULL;
	if (nl) {
		*nl = '\0';
		rest = nl + 1;
	}
	int rc = usmp__signature_parse(line, &sig, &msg);
	if (rc != USMP_OK) {
		FUZZ_CHECK(msg && *msg);
		FUZZ_CHECK(sig.count == 0);
	} else {
		FUZZ_CHECK(sig.count <= USMP__MAX_KNOBS);
		for (uint32_t i = 0; i < sig.count; i++) {
			FUZZ_CHECK(usmp__param_type_name(sig.params[i].type) != NULL);
			round_trip(sig.params[i].type, &sig.params[i].default_value);
		}
		usmp__signature_set_help(&sig, "seed: the seed\nx: y\n\n: z\nnohelp");
		if (usmp__knobs_init(&knobs, &sig) == USMP_OK)
			have_knobs = 1;
	}
	usmp__free_msg(&msg);
	/* Every later line: a knob assignment, and a value of every type. */
	while (rest) {
		char *cur = rest;
		nl = strchr(rest, '\n');
		if (nl) {
			*nl = '\0';
			rest = nl + 1;
		} else {
			rest = NULL;
		}
		if (have_knobs) {
			rc = usmp__knobs_set(&knobs, "fuzz", cur, &msg);
			if (rc != USMP_OK)
				FUZZ_CHECK(msg && *msg);
			usmp__free_msg(&msg);
		}
		for (int t = USMP_PARAM_BOOL; t <= USMP_PARAM_STR; t++) {
			usmp__value v;
			rc = usmp__value_parse(t, cur, &v, &msg);
			if (rc == USMP_OK)
				round_trip(t, &v);
			else
				FUZZ_CHECK(msg && *msg);
			usmp__free_msg(&msg);
		}
	}
	if (have_knobs) {
		char *d = usmp__knobs_describe(&knobs);
		FUZZ_CHECK(d != NULL);
		/* Each value described reads back through knobs_set. */
		for (uint32_t i = 0; i < sig.count; i++) {
			char *v = usmp__value_format(sig.params[i].type,
			                             &knobs.values[i]);
			if (!v)
				continue;
			size_t n = strlen(sig.params[i].name) + strlen(v) + 2;
			char *a = malloc(n);
			if (a) {
				snprintf(a, n, "%s=%s", sig.params[i].name, v);
				rc = usmp__knobs_set(&knobs, "fuzz", a, &msg);
				if (rc != USMP_OK)
					fprintf(stderr, "\"%s\": %s\n", a, msg);
				FUZZ_CHECK(rc == USMP_OK);
				usmp__free_msg(&msg);
				free(a);
			}
			free(v);
		}
		free(d);
		usmp__knobs_finish(&knobs);
	}
	usmp__signature_finish(&sig);
	free(text);
	return 0;
}
