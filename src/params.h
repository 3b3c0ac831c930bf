/* params.h — an algorithm's knobs: parameter signatures ("name:type=default"),
 * typed values, and the set of knob values one call gets (params.c). */
#ifndef USMP_PARAMS_H
#define USMP_PARAMS_H

#include "util.h"

/* One knob value, of the type its usmp__param says. */
typedef union usmp__value {
	bool b;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	double f64;
	const char *str; /* points into an owned copy */
} usmp__value;

/* One declared knob: name, type, default and help. */
typedef struct usmp__param {
	char *name;
	int type; /* usmp_param_type */
	char *default_text;
	usmp__value default_value; /* str points at default_text */
	char *help;                /* "" when none */
} usmp__param;

/* The knobs an algorithm declares, in order. */
typedef struct usmp__signature {
	usmp__param *params;
	uint32_t count;
} usmp__signature;

/* Most knobs one signature may declare (bounds the libffi argument list). */
#define USMP__MAX_KNOBS 64

/* The keyword of a usmp_param_type ("u32"), or NULL when out of range. */
const char *usmp__param_type_name(int type);

/* Parse "name:type=default ..." (NULL or "" = no knobs). Names unique,
 * [a-z_][a-z0-9_]*; every default must parse as its type. */
int usmp__signature_parse(const char *text, usmp__signature *sig, char **msg);
/* Attach help lines ("name: text\n...") to the parsed params; unknown
 * names are ignored. */
void usmp__signature_set_help(usmp__signature *sig, const char *help);
/* Free the parsed params. */
void usmp__signature_finish(usmp__signature *sig);
/* Parse one value of a type: full string, range-checked, no trailing junk.
 * On failure *msg holds only the reason ("out of range: ..."); callers add
 * the knob and algorithm. A str value points at `text` itself. */
int usmp__value_parse(int type, const char *text, usmp__value *out, char **msg);
/* Format a value as usmp__value_parse reads it back (f64 round-trips). */
char *usmp__value_format(int type, const usmp__value *v);

/* A set of knob values for one call: defaults overridden by "key=value". */
typedef struct usmp__knobs {
	const usmp__signature *sig;
	usmp__value *values; /* [sig->count] */
	char **strings;      /* owned copies for str values, [sig->count] */
} usmp__knobs;

/* Every knob of sig at its default: 0 or USMP_ERR_NOMEM. */
int usmp__knobs_init(usmp__knobs *k, const usmp__signature *sig);
/* Apply "key=value"; unknown key, bad value: USMP_ERR_INVALID/NOT_FOUND
 * with a message naming the knob and the algorithm `algo`. */
int usmp__knobs_set(usmp__knobs *k, const char *algo, const char *assignment,
                    char **msg);
/* "k=v k=v" of every knob's current value (heap string). */
char *usmp__knobs_describe(const usmp__knobs *k);
/* The same as NUL-terminated name and value strings one after the other
 * (heap block of *len bytes), which a str value's blanks and '=' cannot
 * confuse; NULL when out of memory. */
char *usmp__knobs_list(const usmp__knobs *k, size_t *len);
/* Free the values and string copies. */
void usmp__knobs_finish(usmp__knobs *k);

#endif /* USMP_PARAMS_H */
