/* io_json.c — placeholder, being written. */
#include "internal.h"
